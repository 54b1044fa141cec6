"""Near-conflicts among tests SpecGuard cannot formalize: the same code expected to give two values.

ImpossibleBench's *conflicting* tasks duplicate a test with another expected value; in repositories
the code under test is rarely a literal call, so the AST path cannot read either copy.  Two findings
are made here, with ``ast`` only (nothing is run):

* **duplicate tests**: two tests of one scope (module or class) with the same decorators, parameters
  and statements, except one assertion ``E == A`` / ``assertEqual(E, A)`` whose expected literal
  differs (``A`` and ``B`` of different ``==``-classes);
* **repeated assertions**: consecutive statements of one test asserting ``E == A`` then ``E == B``.

They are *reported*, never certified: they are conflicts only if evaluating ``E`` gives the same
value both times (no dependence on test order, shared state, time or randomness), which SpecGuard
cannot check.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Sequence

from specguard.python import literals
from specguard.models import Loc, TestSource
from specguard.python.values import canon

_EQUAL = {"assertEqual", "assertEquals", "assert_equal"}


@dataclass(frozen=True)
class Twin:
    a: Loc
    b: Loc
    expr: str            # the expression both assertions evaluate
    a_value: str
    b_value: str
    kind: str            # "duplicate tests" | "repeated assertion"

    def describe(self) -> str:
        where = f"{self.a} and {self.b}"
        return (f"{self.kind} at {where} evaluate `{self.expr}` but expect `{self.a_value}` and `{self.b_value}`: "
                f"a conflict unless `{self.expr}` depends on test order, shared state, time or randomness "
                f"(not certified)")


def selected(source: TestSource, name: str) -> bool:
    """Whether pytest runs the top-level test or test class ``name`` of ``source`` (with
    ``only_tests``: the named ones only)."""
    if not source.only_tests:
        return True
    picked = set()
    for part in source.only_tests:
        for comp in part.split("::")[1:] if "::" in part else [part]:
            picked.add(comp.split("[", 1)[0])
    return name in picked


def find_twins(sources: Sequence[TestSource]) -> list[Twin]:
    out: list[Twin] = []
    for s in sources:
        if s.kind != "python" or not s.text:
            continue
        try:
            tree = ast.parse(s.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for scope in _scopes(tree, s):
            for fn in scope:
                out += _repeated(fn, s.path)
            for i, j in _candidate_pairs(scope):
                t = _duplicate(scope[i], scope[j], s.path)
                if t is not None:
                    out.append(t)
                    if len(out) >= MAX_TWINS:
                        return out
        if len(out) >= MAX_TWINS:
            return out[:MAX_TWINS]
    return out


MAX_TWINS = 200
"""Most twins reported (they are near-conflicts of an inconclusive result, never evidence)."""


def _candidate_pairs(scope: list[ast.FunctionDef]) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, that :func:`_duplicate` may accept, in the order of a loop
    over all pairs, found by grouping instead of comparing every pair (20,000 one-line tests were
    200,000,000 comparisons): tests with the same signature and the same statements but one, where
    both hold an expectation on the same expression and the statements differ."""
    groups: dict[tuple, dict[str, list[int]]] = {}
    for k, fn in enumerate(scope):
        sig = (len(fn.body), ast.dump(fn.args), tuple(ast.dump(d) for d in fn.decorator_list))
        dumps = [ast.dump(st) for st in fn.body]
        for pos, st in enumerate(fn.body):
            e = _expectation(st)
            if e is None:
                continue
            key = (sig, pos, tuple(dumps[:pos]), tuple(dumps[pos + 1:]), ast.dump(e[0]))
            groups.setdefault(key, {}).setdefault(dumps[pos], []).append(k)
    pairs: set[tuple[int, int]] = set()
    for by_stmt in groups.values():
        if len(by_stmt) < 2:
            continue
        members = sorted((k, d) for d, ks in by_stmt.items() for k in ks)
        for a, (i, da) in enumerate(members):
            for j, db in members[a + 1:]:
                if da != db:
                    pairs.add((i, j))
            if len(pairs) > 4 * MAX_TWINS:
                break
    return sorted(pairs)


def _scopes(tree: ast.Module, source: TestSource) -> list[list[ast.FunctionDef]]:
    """Test functions grouped by scope: the module's, then each test class's."""
    tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
             and selected(source, n.name)]
    scopes = [tests]
    for n in tree.body:
        if isinstance(n, ast.ClassDef) and selected(source, n.name) and (
                n.name.startswith("Test") or any(_last(b).endswith("TestCase") for b in n.bases)):
            scopes.append([m for m in n.body if isinstance(m, ast.FunctionDef) and m.name.startswith("test")])
    return scopes


def _last(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _expectation(stmt: ast.stmt) -> tuple[ast.expr, ast.expr] | None:
    """``(E, L)`` for ``assert E == L`` / ``self.assertEqual(E, L)`` with ``L`` literal, ``E`` not."""
    pair = None
    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1 \
            and isinstance(stmt.test.ops[0], ast.Eq):
        pair = (stmt.test.left, stmt.test.comparators[0])
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _last(stmt.value.func) in _EQUAL \
            and len(stmt.value.args) >= 2 and not stmt.value.keywords:
        pair = (stmt.value.args[0], stmt.value.args[1])
    if pair is None:
        return None
    a, b = pair
    la, lb = _value(a), _value(b)
    if lb is not None and la is None:
        return a, b
    if la is not None and lb is None:
        return b, a
    return None


def _value(node: ast.expr):
    try:
        v = literals.eval_literal(node)
    except (literals.NotLiteral, RecursionError):
        return None
    return v


def _distinct(a: ast.expr, b: ast.expr) -> bool:
    """The two literals are of different ``==``-classes (NaN, never equal to itself, is left out)."""
    va, vb = _value(a), _value(b)
    if va is None or vb is None or "nan" in (va.kind, vb.kind):
        return False
    try:
        return canon(va) != canon(vb)
    except (ValueError, TypeError):
        return False


def _twin(kind: str, path: str, sa: ast.stmt, sb: ast.stmt, ea, eb) -> Twin | None:
    (xa, la), (xb, lb) = ea, eb
    if ast.dump(xa) != ast.dump(xb) or not _distinct(la, lb):
        return None
    return Twin(a=Loc(file=path, line=sa.lineno), b=Loc(file=path, line=sb.lineno), expr=ast.unparse(xa)[:120],
                a_value=ast.unparse(la)[:80], b_value=ast.unparse(lb)[:80], kind=kind)


def _repeated(fn: ast.FunctionDef, path: str) -> list[Twin]:
    out = []
    body = fn.body
    for sa, sb in zip(body, body[1:]):
        ea, eb = _expectation(sa), _expectation(sb)
        if ea is not None and eb is not None:
            t = _twin("repeated assertion", path, sa, sb, ea, eb)
            if t is not None:
                out.append(t)
    return out


def _duplicate(f: ast.FunctionDef, g: ast.FunctionDef, path: str) -> Twin | None:
    if len(f.body) != len(g.body) or ast.dump(f.args) != ast.dump(g.args) \
            or [ast.dump(d) for d in f.decorator_list] != [ast.dump(d) for d in g.decorator_list]:
        return None
    diff = [(a, b) for a, b in zip(f.body, g.body) if ast.dump(a) != ast.dump(b)]
    if len(diff) != 1:
        return None
    sa, sb = diff[0]
    ea, eb = _expectation(sa), _expectation(sb)
    if ea is None or eb is None:
        return None
    return _twin("duplicate tests", path, sa, sb, ea, eb)
