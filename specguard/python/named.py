"""Names bound to observation terms (#12.2): ``actual = list(f(x))`` then ``assert actual == v``.

A name bound to Python operations applied to ONE call of the function under test holds a *term*
over that call's result (the expression with the call replaced by
:data:`specguard.formalize.speclang.OBS_VAR`, as :func:`specguard.python.terms.build` renders it).
An assertion on the name is then the observation it would be inline: ``actual == v`` is
``list(result) == v``, one ``obs`` expectation compiled by the spec language (one semantics).

Unpacking is Python's: ``a, b = t`` iterates ``t`` once, and succeeds only when it gives exactly
two items, so ``a`` is ``list(t)[0]`` and the assertion on ``a`` also states
``len(list(t)) == 2`` (a *guard*: established when the name was bound); ``a, *m, b = t`` needs
at least two items, ``m`` is ``list(t)[1:-1]``.  The order of a dict's or set's items is not
modelled (``list(...)`` of such a value is guarded by the spec language), so an unpacking of one
says nothing.

Soundness rules (the walker in :mod:`specguard.formalize.tests` applies them):

* a term is only built from a fresh call or from a name holding a result, never through a call
  of anything but a builtin the spec language models; the name loses its term (like any result)
  when it, or anything sharing an object with it, may be mutated or after any further call
  (a function could keep and later change what it returned);
* a term whose value may be an iterator (``enumerate``/``zip``/``reversed``/a generator
  expression not consumed in the term itself) is not built: a second reading would see fewer
  items;
* a name holding the raw result (``r = f(x)``) that a statement iterates (``list(r)``, ``for``,
  unpacking, ``in``, any consumer, being passed on) is *consumed* there: if the result is an
  iterator, a later reading sees fewer items, so the name is dropped after that statement, and
  an assertion that iterates it twice is not read.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# builtins that read only the items of their first argument (iterating it once, to the end)
CONSUMERS = frozenset({"list", "tuple", "sorted", "set", "frozenset", "sum", "min", "max", "any", "all", "dict"})
# builtins whose value is an iterator over their arguments (lazy: consumed by its readers)
_LAZY = frozenset({"enumerate", "zip", "reversed", "iter", "map", "filter"})
# builtins that look at a value without iterating it (on an iterator too)
_LOOKERS = frozenset({"len", "isinstance", "type", "id", "bool", "repr", "str", "callable", "hash"})
# unittest methods comparing their arguments with ==/is/truth (no iteration)
_PLAIN_ASSERTS = frozenset({"assertEqual", "assertEquals", "assertNotEqual", "assertNotEquals", "assertIs",
                            "assertIsNot", "assertIsNone", "assertIsNotNone", "assertTrue", "assertFalse",
                            "assertIsInstance", "assertNotIsInstance", "assertGreater", "assertGreaterEqual",
                            "assertLess", "assertLessEqual", "assert_", "failUnless", "failIf",
                            "failUnlessEqual", "failIfEqual"})
MAX_UNPACK = 64
# builtins whose value is a new container (or a number, a bool) made from the result's items
_FRESH = frozenset({"list", "tuple", "sorted", "set", "frozenset", "dict", "sum", "any", "all", "len", "bool", "abs",
                    "int"})


@dataclass(frozen=True)
class Term:
    """What a name holds: ``expr`` (an expression over OBS_VAR, SpecGuard's own rendering),
    ``guards`` (boolean expressions over OBS_VAR that Python established when binding it),
    ``from_name``: built from a name bound earlier to the result, not from a fresh call."""

    expr: str
    guards: tuple[str, ...] = ()
    from_name: bool = False

    def node(self) -> ast.expr:
        return ast.parse(self.expr, mode="eval").body

    def item(self, expr: str, guard: str) -> "Term":
        return Term(expr, tuple(dict.fromkeys((*self.guards, guard))), self.from_name)


def may_be_iterator(text: str) -> str | None:
    """Why the value of term ``text`` may be (or contain) an iterator: a lazy builtin or a
    generator expression that no consumer in the term reads; None when it is not."""
    tree = ast.parse(text, mode="eval")
    consumed: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in CONSUMERS | {"len"} \
                and n.args and n.func.id != "len":
            consumed.add(id(n.args[0]))
        elif isinstance(n, ast.comprehension):
            consumed.add(id(n.iter))
        elif isinstance(n, ast.Compare):           # `x in zip(...)` consumes it
            for op, c in zip(n.ops, n.comparators):
                if isinstance(op, (ast.In, ast.NotIn)):
                    consumed.add(id(c))
    for n in ast.walk(tree):
        lazy = isinstance(n, ast.GeneratorExp) or (
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _LAZY)
        if lazy and id(n) not in consumed:
            return f"`{ast.unparse(n)[:40]}` is an iterator (a second reading would see fewer items)"
    return None


def unpack(term: Term, target: ast.Tuple | ast.List) -> list[Term] | None:
    """The terms of the targets of ``<target> = <term>`` by Python's unpacking (one level: a
    nested target is unpacked again from its item's term); None when there is more than one
    starred target or too many targets."""
    elts = target.elts
    stars = [i for i, t in enumerate(elts) if isinstance(t, ast.Starred)]
    if len(elts) > MAX_UNPACK or len(stars) > 1:
        return None
    items = f"list({term.expr})"
    n = len(elts)
    guard = f"len({items}) == {n}" if not stars else f"len({items}) >= {n - 1}"
    out: list[Term] = []
    for i in range(n):
        if stars and i == stars[0]:
            after = n - 1 - i
            out.append(term.item(f"{items}[{i}:{-after if after else ''}]", guard))
        elif stars and i > stars[0]:
            out.append(term.item(f"{items}[{i - n}]", guard))
        else:
            out.append(term.item(f"{items}[{i}]", guard))
    return out


def consumed(stmt: ast.AST, names: set[str]) -> dict[str, list[bool]]:
    """Where ``stmt`` may iterate a value reached from one of ``names`` (a name holding a result
    of the function under test, or a term over one, possibly an iterator or holding iterators):
    per name, one entry per such use, True when the name itself is iterated, False when an item
    or attribute of it is (``list(r[1])``).  Every use counts except ``==``/``is``/ordering
    comparisons, ``len``/``type``/``isinstance``/``bool``..., indexing and attribute reads
    themselves, truth tests, the plain unittest comparisons and an alias ``s = r``."""
    safe: set[int] = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Compare):
            operands = [n.left, *n.comparators]
            for i, x in enumerate(operands):
                if i == 0 or not isinstance(n.ops[i - 1], (ast.In, ast.NotIn)):
                    safe.add(id(x))
        elif isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id in _LOOKERS:
                safe.update(id(a) for a in n.args)
            elif isinstance(f, ast.Attribute) and f.attr in _PLAIN_ASSERTS:
                safe.update(id(a) for a in n.args)
                safe.update(id(k.value) for k in n.keywords)
        elif isinstance(n, (ast.Assert, ast.If, ast.While, ast.IfExp)):
            safe.add(id(n.test))
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            safe.add(id(n.operand))
        elif isinstance(n, ast.BoolOp):
            safe.update(id(v) for v in n.values)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if n.value is not None and all(isinstance(t, ast.Name) for t in targets):
                safe.add(id(n.value))          # `s = r` aliases, it does not iterate
    parent: dict[int, ast.AST] = {}
    for n in ast.walk(stmt):
        for c in ast.iter_child_nodes(n):
            parent[id(c)] = n
    out: dict[str, list[bool]] = {}
    for n in ast.walk(stmt):
        if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names):
            continue
        top: ast.AST = n          # the outermost `r[..]` / `r.x` chain: what the position sees
        while isinstance(parent.get(id(top)), (ast.Subscript, ast.Attribute)) and parent[id(top)].value is top:
            top = parent[id(top)]
        if id(top) not in safe:
            out.setdefault(n.id, []).append(top is n)
    return out


def fresh(text: str) -> bool:
    """The term's value is a new container or a scalar built from the result (``list(...)``,
    ``sorted(...)``, ``len(...)``, a comparison): iterating it does not consume the result, nor
    does consuming the result change it."""
    node = ast.parse(text, mode="eval").body
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _FRESH         # not min/max: they return an item of the result itself
    return isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Constant))

