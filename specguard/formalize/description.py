"""Stage 3: formalize a task description with deterministic rules (no LLM).

Entry point::

    formalize_description(text, *, path="<description>", entry_point=None, line_offset=0)
        -> DescFormalization

The description never sees the tests.  Every claim carries the description line it came
from (``Loc(file=path, line=<1-based line> + line_offset)``) and the trimmed source
line(s) as ``text``; ids are ``D1, D2, ...`` in line order.  Whatever looks like a
statement about the function but is not formalized is reported in ``notes`` with its line
and the reason.  Soundness before coverage: a claim the description does not really make
would create false conflicts, so every rule below declines (with a note) when in doubt.

=====================  ==================================================  ====================
rule                   source form                                         claim
=====================  ==================================================  ====================
signature              ``def name(params) -> Ret:`` (a stub, or a def      ``return_type`` (Ret
                       line in prose; the entry point's def preferred)     unless unconstrained)
doctest example        ``>>> f(<literals>)`` + ``...`` continuation lines,  ``example`` eq value
                       output = a literal repr, up to a blank line/``>>>``
doctest comparison     ``>>> f(<literals>) == <literal>`` output ``True``   ``example`` eq literal
                       (``False``: ne literal)
                       (or no output line, then a blank line/``>>>``)
doctest, wrapped       ``>>> list(f(x))`` / ``tuple(..)`` when annotated    ``example`` eq value
                       as that type; ``>>> print(f(x))`` when annotated
                       int/bool/str (one line)/list/tuple/dict/set
doctest observation    ``>>> sorted(f(x))`` / ``[1, 2]``, ``len(f(x))``,     ``example`` obs
                       ``f(x)[0]``, ``list(f(x))`` unannotated: one call    ``sorted(result) == [1, 2]``
                       under operations (:mod:`specguard.python.terms`)
doctest session        one Python session, read in order                   (used in later lines)
                       (:mod:`specguard.formalize.session`): ``>>> xs =
                       [1, 2]`` then ``>>> f(xs)``: the literal value,
                       until rebound, passed or mutated; ``>>> r = f(x)``
                       / ``>>> a, b = f(x)`` then ``>>> sorted(b)``: an    ``example`` obs
                       observation of that evaluation (``list(R)[1]``;     ``sorted(list(result)[1])``
                       read once unless shown as plain data); closed
                       lambdas, builtins, ``str.lower``, ``operator.add``
                       as function values; state changes end it
doctest directives     ``+SKIP`` (not run), ``+IGNORE_EXCEPTION_DETAIL``,   as without the directive
                       ``+ELLIPSIS`` without ``...``, ``+NORMALIZE_
                       WHITESPACE`` on a literal that survives it
doctest exception      output ``Traceback (most recent call last):`` ...   ``example`` raises
                       ``SomeError: msg``                                  SomeError
doctest, no output     ``>>> f(<literals>)`` then blank line, ``>>>`` or    ``example`` eq None
                       end of docstring (return type must admit None)
worked example         ``Input: a = 1, b = [2]`` / ``Output: 3``            ``example`` eq value
                       (every parameter named once, mapped in order)
phrasings              ``f(2) returns 4``, ``f(2) == 4``, ``f(2) -> 4``,    ``example`` eq / raises
                       ``f(x) -> 19 - 5 - 6 = 8`` (integer arithmetic
                       worked out to exactly the stated integer),
                       ``f(2) should return 4``, ``f("x") raises E``,
                       ``f(2) ➞ 4``, ``f(2) ==> 4``, ``f(2) # => 4``,
                       ``f(2) = 4`` (not when the prose defines f by
                       formulas), lowercase ``true``/``false`` (result may
                       be a bool, never quoted as strings in the text)
for-sentence           "For lst = [1, 2] the output should be 5" (lark     ``example`` eq value
                       grammar, :mod:`specguard.formalize.examples`)
result modulus         "return the answer modulo 10^9 + 7", a Returns:     ``result_range``
                       section "The count modulo 998244353"                 [0, M-1]
result bounds          "returns a non-negative integer", "returns an       ``result_range``
                       integer between 0 and 100", Returns: "A positive    [lo, hi]
                       integer"
=====================  ==================================================  ====================

Literals: arguments are evaluated exactly by :mod:`specguard.python.literals` (doctest sources are
Python, so ``2**3`` is 8; ``^`` is refused as a probable power); results and anything read
from prose must be plain displays (``[1, 2]``, ``-3``, ``'a'``, ``set()``), since a repr is never
an expression and prose arithmetic is not Python's.

Counts on the result: ``examples_seen``/``examples_read`` (example sites: doctest calls of the
function, worked examples, prose calls with literal arguments) and ``statements_seen``/
``statements_read`` (return annotation, stated bounds and moduli).

Declined (noted, never claimed): results in redundant parentheses (``("Venus")``: a 1-tuple meant),
examples after a session line that may change state (a call of unknown code, an import outside
the pure stdlib and the library's own package, a write to an object the session does not own,
``with``/``while``/``try``/``class``, decorators: :func:`specguard.formalize.session.state_change`),
a result name read a second time (an iterator may be consumed) or after it was passed, mutated or
aliased, every example of a doctest session after a line that
rebinds the entry point's name (``f = lambda n: 5``, ``f, g = ...``, ``from operator import neg as f``,
``def``/``class``/``for``/``with``/``:=``/``del``/``+=``, ``import *``; a doctest session is a Python
session: the name no longer denotes the function; ``from m import f`` imports the function
itself and is kept), printed output (a ``-> None`` function, or a result
that may be None when the description talks about printing), object reprs, ellipsis and
the other doctest directives, non-literal arguments, float results of prose examples (usually
rounded) or of any example when the description mentions a tolerance, a modulus about an
input or an intermediate quantity ("a_i mod 2", "x modulo k is 0", congruences), a modulus
or bound under a condition or on a collection, or when the description names another
possible result (-1, None) or an example result outside the range, input constraints
("1 <= n <= 10^5"), and docstrings of other functions than the one described.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable

from specguard.formalize import objects
from specguard.formalize import argstate, session as session_mod
from specguard.formalize.session import Result, Session, state_change
from specguard.python import terms as observe
from specguard.python.bindings import Symbols
from specguard.formalize.examples import parse_for_example
from specguard.python.literals import eval_literal, eval_literals, is_mutable
from specguard.models import (Call, Claim, ClaimKind, DescFormalization, Expect, ExpectKind, Loc, Signature,
                              TypeExpr)
from specguard.python.values import V, py_repr

__all__ = ["formalize_description"]


# -- literal evaluation ---------------------------------------------------------------------
#
# Values come from ``literals.eval_literal`` (exact, safe, raises NotLiteral, a ValueError).
# Results (doctest outputs, prose outputs) and everything read from prose must moreover be a
# plain *display* (constants, -x, containers of displays; ``set()``/``frozenset({..})`` for
# outputs): a repr is never an expression, and in prose ``10^9`` means a power, not Python's XOR.

_LITERAL_ERRORS = (ValueError, TypeError, RecursionError, MemoryError, OverflowError)


def _eval_literal(node: ast.expr) -> V:
    """Exact value of a literal expression node; raises one of ``_LITERAL_ERRORS`` if not one."""
    return eval_literal(node)


def _parse_expr(src: str) -> ast.expr | None:
    try:
        return ast.parse(src.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _is_display(node: ast.expr, *, output: bool = False) -> bool:
    """Is ``node`` plain data written out (no arithmetic, names or calls)?"""
    sub = lambda n: _is_display(n, output=output)
    if isinstance(node, ast.Constant):
        return node.value is not Ellipsis
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(not isinstance(e, ast.Starred) and sub(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and sub(k) and sub(v) for k, v in zip(node.keys, node.values))
    if output and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        return (node.func.id == "set" and not node.args) or \
            (node.func.id == "frozenset" and len(node.args) <= 1 and all(sub(a) for a in node.args))
    return False


def _literal_text(src: str) -> V | None:
    """The value of ``src`` if it is one plain literal display (a result's repr), else None."""
    node = _parse_expr(src)
    if node is None or not _is_display(node, output=True):
        return None
    try:
        return _eval_literal(node)
    except _LITERAL_ERRORS:
        return None


def _has_float(v: V) -> bool:
    if v.kind == "float":
        return True
    if v.kind == "dict":
        return any(_has_float(a) or _has_float(b) for a, b in v.val)
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return any(_has_float(x) for x in v.val)
    return False


# -- output collector ---------------------------------------------------------------------

@dataclass
class _Out:
    """Collects claims (ids assigned at the end, in line order) and notes."""

    path: str
    offset: int
    lines: list[str]
    claims: list[tuple[int, int, dict]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    examples_seen: int = 0          # example sites seen (doctests, worked examples, phrasings)
    statements_seen: int = 0        # other statements seen (return annotation, result bounds)
    examples_read: int = 0          # set at the end: example sites that became claims
    evaluations: dict[int, tuple] = field(default_factory=dict)    # id(claim fields) -> evaluation

    def seen_example(self) -> None:
        self.examples_seen += 1

    def seen_statement(self) -> None:
        self.statements_seen += 1

    def where(self, i: int | None) -> str:
        return self.path if i is None else f"{self.path}:{i + 1 + self.offset}"

    def note(self, i: int | None, msg: str) -> None:
        self.notes.append(f"{self.where(i)}: {msg}")

    def add(self, kind: ClaimKind, i: int, idxs: Iterable[int], evaluation: int | None = None, **fields) -> None:
        """``evaluation``: claims with the same one observe one evaluation of the call (a doctest
        session's ``r = f(x)`` then ``>>> r[0]``, ``>>> len(r)``), so they never disagree as claims
        about separate calls do (see :func:`_dedupe_examples`)."""
        text = "\n".join(self.lines[j].strip() for j in idxs if self.lines[j].strip())
        fields.update(kind=kind, loc=Loc(file=self.path, line=i + 1 + self.offset), text=text)
        self.evaluations[id(fields)] = ("line", evaluation) if evaluation is not None else ("claim", id(fields))
        self.claims.append((i, len(self.claims), fields))

    def drop(self, pred: Callable[[dict], bool]) -> None:
        self.claims = [c for c in self.claims if not pred(c[2])]

    def result(self, sig: Signature | None) -> DescFormalization:
        ordered = sorted(self.claims, key=lambda c: (c[0], c[1]))
        claims = tuple(Claim(id=f"D{n}", **f) for n, (_, _, f) in enumerate(ordered, 1))
        statements = sum(1 for c in claims if c.kind is not ClaimKind.example)
        return DescFormalization(claims=claims, signature=sig, notes=tuple(self.notes),
                                 examples_seen=max(self.examples_seen, self.examples_read),
                                 examples_read=self.examples_read,
                                 statements_seen=max(self.statements_seen, statements), statements_read=statements)


# -- the document: lines, which are prose, which are docstrings ------------------------

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass
class _Doc:
    lines: list[str]                 # effective lines (docstring values substituted)
    tree: ast.Module | None          # set when the text is a Python stub
    prose: list[bool]                # may hold description prose / doctests
    session: list[int]               # doctest session id per line (-1: none)


def _parse_stub(text: str) -> ast.Module | None:
    """The module if ``text`` is Python code defining a function or class, else None."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError):
        return None
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.walk(tree)):
        return tree
    return None


def _docstring(body: list[ast.stmt]) -> ast.Constant | None:
    st = body[0] if body else None
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
        return st.value
    return None


def _read_docstrings(tree: ast.Module, chosen: "_Def | None", out: _Out, entry: str | None = None) -> list[ast.Constant]:
    """The docstrings that describe the function: the module's, its class's and its own.

    Docstrings of other functions (helpers) are not read: what they say is about them.
    """
    owners: list[list[ast.stmt]] = [tree.body]
    if chosen is not None:
        owners += ([chosen.owner.body] if chosen.owner is not None else []) + [chosen.node.body]
    else:       # a class under test: its docstring and its methods' (doctest sessions with objects)
        owners += objects.class_docstring_owners(tree, entry)
    read = [c for c in (_docstring(body) for body in owners) if c is not None]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = _docstring(node.body)
            if doc is not None and doc not in read:
                out.note(doc.lineno - 1, f"docstring of {node.name!r} not read: it documents another "
                                         "function or class")
    return read


def _build_doc(lines: list[str], tree: ast.Module | None, chosen: "_Def | None", out: _Out,
               entry: str | None = None) -> _Doc:
    """Which lines are prose; in a stub, only the describing docstrings (with their values)."""
    if tree is None:
        return _Doc(list(lines), None, [True] * len(lines), [0] * len(lines))
    eff = list(lines)
    prose = [False] * len(lines)
    session = [-1] * len(lines)
    for k, node in enumerate(_read_docstrings(tree, chosen, out, entry)):
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        vlines = node.value.split("\n")
        if len(vlines) != last - first + 1:
            out.note(first, "docstring's escape sequences change its line structure; not read")
            continue
        for j, vl in enumerate(vlines):
            eff[first + j] = vl
            prose[first + j] = True
            session[first + j] = k
    return _Doc(eff, tree, prose, session)


# -- signature and types ------------------------------------------------------------------

_ANY = TypeExpr(name="Any")
_NONE = TypeExpr(name="None")
_SCALARS = {"int", "float", "bool", "str", "bytes"}
_GENERICS = {"list": "list", "List": "list", "tuple": "tuple", "Tuple": "tuple", "dict": "dict",
             "Dict": "dict", "set": "set", "Set": "set", "frozenset": "frozenset", "FrozenSet": "frozenset"}
_TYPING_MODULES = {"typing", "typing_extensions", "t", "builtins"}


def _type_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in _TYPING_MODULES:
        return node.attr
    return None


def _union(members: list[TypeExpr]) -> TypeExpr:
    flat: list[TypeExpr] = []
    for m in members:
        for x in (m.args if m.name == "Union" else (m,)):
            if x.name == "Any":
                return _ANY
            if x not in flat:
                flat.append(x)
    return flat[0] if len(flat) == 1 else TypeExpr(name="Union", args=tuple(flat))


def _type_expr(node: ast.expr | None, depth: int = 0) -> TypeExpr:
    """An annotation as a TypeExpr; anything not understood is ``Any`` (unconstrained)."""
    if node is None or depth > 20:
        return _ANY
    if isinstance(node, ast.Constant):
        if node.value is None:
            return _NONE
        if isinstance(node.value, str):
            return _type_expr(_parse_expr(node.value), depth + 1)
        return _ANY
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_type_expr(node.left, depth + 1), _type_expr(node.right, depth + 1)])
    if isinstance(node, ast.Subscript):
        return _subscript_type(node, depth)
    name = _type_name(node)
    if name in _SCALARS:
        return TypeExpr(name=name)
    if name in ("None", "NoneType"):
        return _NONE
    if name in _GENERICS:
        return TypeExpr(name=_GENERICS[name])
    return _ANY


def _subscript_type(node: ast.Subscript, depth: int) -> TypeExpr:
    base = _type_name(node.value)
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    sub = [_type_expr(x, depth + 1) for x in items]
    if base == "Optional" and len(items) == 1:
        return _union([sub[0], _NONE])
    if base == "Union" and items:
        return _union(sub)
    if base not in _GENERICS:
        return _ANY
    name = _GENERICS[base]
    if name in ("list", "set", "frozenset") and len(items) == 1:
        return TypeExpr(name=name, args=(sub[0],))
    if name == "dict" and len(items) == 2:
        return TypeExpr(name=name, args=tuple(sub))
    if name == "tuple":
        ellipsis = [isinstance(x, ast.Constant) and x.value is Ellipsis for x in items]
        if len(items) == 2 and ellipsis == [False, True]:
            return TypeExpr(name=name, args=(sub[0],), variadic=True)
        if items and not any(ellipsis) and not (len(items) == 1 and isinstance(items[0], ast.Tuple)):
            return TypeExpr(name=name, args=tuple(sub))
    return TypeExpr(name=name)


@dataclass
class _Def:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    line: int                      # 0-based line of ``def``
    lines: list[int]               # header lines
    is_method: bool
    owner: ast.ClassDef | None = None


def _params(d: _Def) -> tuple[str, ...]:
    a = d.node.args
    pos = [x.arg for x in a.posonlyargs + a.args]
    static = any(_type_name(dec) == "staticmethod" for dec in d.node.decorator_list)
    if d.is_method and not static and pos:
        pos = pos[1:]
    names = pos + ([f"*{a.vararg.arg}"] if a.vararg else []) + [x.arg for x in a.kwonlyargs]
    return tuple(names + ([f"**{a.kwarg.arg}"] if a.kwarg else []))


def _defs_from_tree(tree: ast.Module) -> list[_Def]:
    found: list[_Def] = []
    scopes: list[tuple[list[ast.stmt], ast.ClassDef | None]] = [(tree.body, None)]
    for body, owner in scopes:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body_line = st.body[0].lineno - 1 if st.body else st.lineno
                hdr = list(range(st.lineno - 1, max(st.lineno, body_line)))
                found.append(_Def(st, st.lineno - 1, hdr, owner is not None, owner))
            elif isinstance(st, ast.ClassDef):
                scopes.append((st.body, st))
    return found


_DEF_LINE = re.compile(r"^\s*(?:[`>*]\s*)*((?:async\s+)?def\s+[A-Za-z_]\w*\s*\(.*)$")


def _defs_from_prose(lines: list[str]) -> list[_Def]:
    """``def`` headers embedded in prose or markdown (each parsed on its own)."""
    found: list[_Def] = []
    for i, line in enumerate(lines):
        m = _DEF_LINE.match(line)
        if not m:
            continue
        header = m.group(1)
        for j in range(i, min(i + 30, len(lines))):
            if j > i:
                header += "\n" + lines[j]
            src = header.rstrip().rstrip("`").rstrip()
            node = _parse_def(src if src.endswith(":") else src + ":")
            if node is not None:
                found.append(_Def(node, i, list(range(i, j + 1)), False))
                break
    return found


def _parse_def(header: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(header + "\n    pass")
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError):
        return None
    st = tree.body[0] if len(tree.body) == 1 else None
    return st if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _choose_def(defs: list[_Def], entry_point: str | None, out: _Out) -> _Def | None:
    if entry_point is not None:
        named = [d for d in defs if d.node.name == entry_point]
        if not named and defs:
            out.note(defs[0].line, f"no def of the entry point {entry_point!r} in the description; "
                                   f"signature of {defs[0].node.name!r} not used")
        return named[0] if named else None
    if len(defs) > 1:
        out.note(defs[0].line, f"{len(defs)} defs in the description; using the first, {defs[0].node.name!r}")
    return defs[0] if defs else None


def _signature(d: _Def | None, out: _Out) -> Signature | None:
    """The chosen def's signature; adds the ``return_type`` claim."""
    if d is None:
        return None
    returns = _type_expr(d.node.returns) if d.node.returns is not None else None
    a = d.node.args
    plain = not (a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg)
    sig = Signature(name=d.node.name, params=_params(d), returns=returns, line=d.line + 1 + out.offset,
                    plain=plain)
    if returns is not None:
        out.seen_statement()
    if returns is not None and returns.name != "Any":
        out.add(ClaimKind.return_type, d.line, d.lines, type=returns)
    return sig


def _admits(t: TypeExpr | None, name: str) -> bool:
    """May a value of builtin type ``name`` be returned under annotation ``t``?"""
    if t is None or t.name == "Any":
        return True
    if t.name == "Union":
        return any(_admits(a, name) for a in t.args)
    return t.name == name


# -- doctest examples ------------------------------------------------------------------------

_PROMPT = re.compile(r"^(?P<indent>[ \t]*)>>>(?: (?P<src>.*))?$")
_TRACEBACK = re.compile(r"^Traceback \((?:most recent call last|innermost last)\):")
_EXC_LINE = re.compile(r"^(?P<name>[A-Za-z_][\w.]*)(?::.*)?$")
_PURE_CALLS = {"print", "sorted", "len", "list", "tuple", "set", "frozenset", "dict", "str", "repr", "int",
               "float", "bool", "abs", "min", "max", "sum", "round", "type", "isinstance", "any", "all",
               "reversed", "enumerate", "zip", "range", "bytes", "hex", "bin", "oct", "ord", "chr"}


@dataclass
class _Example:
    line: int                 # prompt line (0-based)
    source: str
    src_lines: list[int]
    want: list[str]           # dedented output lines
    want_lines: list[int]
    end: str                  # why the output ended: blank, prompt, docend, dedent, eof
    session: int


def _read_examples(doc: _Doc) -> list[_Example]:
    lines, n = doc.lines, len(doc.lines)
    examples: list[_Example] = []
    i = 0
    while i < n:
        m = _PROMPT.match(lines[i]) if doc.prose[i] else None
        if not m:
            i += 1
            continue
        indent, start = m.group("indent"), i
        src, src_lines = [m.group("src") or ""], [i]
        cont = re.compile(r"^" + re.escape(indent) + r"\.\.\.(?: (.*))?$")
        i += 1
        while i < n and doc.prose[i] and doc.session[i] == doc.session[start] and (c := cont.match(lines[i])):
            src.append(c.group(1) or "")
            src_lines.append(i)
            i += 1
        want, want_lines, end, i = _read_want(doc, i, indent, doc.session[start])
        examples.append(_Example(start, "\n".join(src), src_lines, want, want_lines, end, doc.session[start]))
    return examples


def _read_want(doc: _Doc, i: int, indent: str, session: int) -> tuple[list[str], list[int], str, int]:
    want: list[str] = []
    idxs: list[int] = []
    while i < len(doc.lines):
        line = doc.lines[i]
        if not doc.prose[i] or doc.session[i] != session:
            return want, idxs, "docend", i
        s = line.strip()
        if not s:
            return want, idxs, "blank", i
        if s.startswith(">>>"):
            return want, idxs, "prompt", i
        if s in ('"""', "'''") or s.startswith("```"):
            return want, idxs, "docend", i + 1
        if not line.startswith(indent):
            return want, idxs, "dedent", i
        body = line[len(indent):]
        closing = body.rstrip().endswith(('"""', "'''"))
        if closing:
            body = body.rstrip()[:-3]
        if body.strip():
            want.append(body.rstrip())
            idxs.append(i)
        i += 1
        if closing:
            return want, idxs, "docend", i
    return want, idxs, "eof", i


def _calls_of(node: ast.AST, target: str | None) -> bool:
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == target
               for c in ast.walk(node))


def _literal_call(call: ast.Call, target: str, *, prose: bool = False,
                  env: dict[str, V] | None = None) -> tuple[Call | None, str]:
    """A Call of literal arguments, or (None, reason).  Arguments read from prose must be
    plain displays; ``^`` is refused everywhere (XOR in Python, a power to a human)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return None, "starred argument or **kwargs"
    nodes = list(call.args) + [kw.value for kw in call.keywords]
    if any(isinstance(n, ast.BitXor) for a in nodes for n in ast.walk(a)):
        return None, "an argument uses '^' (XOR in Python, but probably meant as a power)"
    if prose and not all(_is_display(a) for a in nodes):
        return None, "an argument is not a plain literal"
    try:
        values = eval_literals(nodes, env or None)
    except _LITERAL_ERRORS as e:
        return None, f"an argument is not a literal ({getattr(e, 'reason', e)})"
    n = len(call.args)
    kwargs = tuple((kw.arg, v) for kw, v in zip(call.keywords, values[n:]))
    return Call(target=target, args=tuple(values[:n]), kwargs=kwargs), ""


@dataclass
class _Ctx:
    """What the rules share: the function's name and annotation, and description-wide facts."""

    target: str | None
    sig: Signature | None
    tolerance: bool                 # the description mentions approximate float answers
    stub: bool = False              # the description is Python code (doctests live in docstrings)
    prints: bool = False            # the description talks about printing
    quoted_bools: bool = False      # 'true' / "false" appear quoted (strings, not JSON-ish booleans)
    formula: bool = False           # prose defines the function by formulas (``f(n) = f(n-1) + ...``)


def _rebinding(source: str, target: str | None) -> str | None:
    """How a doctest line (any number of statements, as the session runs it) may rebind the name
    ``target``: an assignment (tuple targets included), import (but ``from m import target``, which
    imports the function itself), ``def``, ``class``, loop or ``with`` target, walrus, ``del``,
    augmented assignment, ``import *`` or a dynamic write; else None."""
    if not target:
        return None
    try:
        sym = Symbols.of_module(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None                       # a line that does not parse binds nothing
    # `>>> from stats import mean` imports the function itself (the session's stated import)
    b = next((b for b in sym.of(target) if not (b.kind == "from" and b.orig == target)), None)
    if b is not None:
        return b.describe().rsplit(" at line ", 1)[0]
    if sym.stars:
        return "`import *`"
    dyn = sym.unknown_writes(target)
    return dyn[1] if dyn is not None else None


def _doctest_claims(examples: list[_Example], ctx: _Ctx, out: _Out, read: set[int] = frozenset()) -> None:
    """The doctest sessions, each read in order as one Python session (:mod:`specguard.formalize.session`).
    ``read``: examples of doctest sessions with objects, read by :mod:`specguard.formalize.objects`."""
    rebound_at: dict[int, tuple[int, str]] = {}
    sessions: dict[int, Session] = {}
    own = _own_packages(out.path)
    for ex in examples:
        sess = sessions.setdefault(ex.session, Session(ctx.target, own=own))
        if ex.session in rebound_at:
            line, how = rebound_at[ex.session]
            out.note(ex.line, f"doctest example unused: the session rebinds `{ctx.target}` at line "
                              f"{line + 1 + out.offset} ({how}), so later examples are not about the function")
            continue
        stmts, why = _session_statements(ex)
        if stmts is None:                     # +SKIP, or a line that does not parse: it runs nothing
            if ctx.target and ctx.target in ex.source:
                out.seen_example()
            out.note(ex.line, f"doctest example skipped: {why}")
            continue
        how = _rebinding(ex.source, ctx.target)
        if how is not None:
            rebound_at[ex.session] = (ex.line, how)
            out.note(ex.line, f"doctest line rebinds `{ctx.target}` ({how}); the session's later examples "
                              "are not requirements")
            continue
        _session_line(ex, stmts, why, sess, ctx, out, id(ex) in read)


def _session_line(ex: _Example, stmts: list[ast.stmt], why: str, sess: Session, ctx: _Ctx, out: _Out,
                  by_objects: bool) -> None:
    """One ``>>>`` line of a session: its claim (if any), then what it changes for later lines."""
    mentioned = {n.id for st in stmts for n in ast.walk(st) if isinstance(n, ast.Name) and n.id in sess.results}
    involves = any(_calls_of(st, ctx.target) for st in stmts) or bool(mentioned)
    read_obs = False
    if by_objects:
        pass                               # an object's session (specguard.formalize.objects)
    elif involves and sess.changed is not None:
        out.seen_example()
        line, what = sess.changed
        out.note(ex.line, "doctest example skipped: follows a statement that may change state "
                          f"(line {line + 1 + out.offset}: {what})")
    elif len(stmts) != 1 or why:
        if involves:
            out.seen_example()
        out.note(ex.line, f"doctest example skipped: {why or 'not exactly one statement'}")
    else:
        read_obs = _session_claim(ex, stmts[0], sess, ctx, out)
    # what the line changes for the lines after it, statement by statement as Python runs them
    for st in stmts:
        change, mutated = state_change(st, sess)
        if read_obs:                       # an observation's methods do not mutate (the spec language's whitelist)
            mutated -= set(sess.results)
        if mutated:
            sess.lose_values(mutated, f"may have been changed at line {ex.line + 1 + out.offset}")
        if change is not None and sess.changed is None:
            sess.changed = (ex.line, change)
        if not read_obs:
            used = {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and n.id in sess.results}
            sess.invalidate_results(used, f"used at line {ex.line + 1 + out.offset} by a line not read as "
                                          "an observation")
        # `r = f(xs)`: the call's arguments as they are when it runs (before f may change them)
        pending = _session_call(st.value, ctx, sess, ex, out) if isinstance(st, ast.Assign) \
            and _is_target_call(st.value, ctx.target) else None
        states = {} if by_objects or change is not None or sess.changed is not None else \
            _session_states(st, ctx, sess, ex, out, pending)
        for c in ast.walk(st):
            if _is_target_call(c, ctx.target):
                sess.lose_values(session_mod.mutable_names(c, sess), "passed to the function")
        bound = _bound_names([st])
        owned = change is None and not by_objects and _owned_binding(st, sess)
        kept = set() if by_objects else _bind_session_names(st, sess, ctx, out, ex, change is None, pending)
        rest = bound - kept
        sess.forget(rest, f"rebound at line {ex.line + 1 + out.offset}")
        if owned:
            sess.opaque |= rest            # new values computed from the session's own
        for name, call in states.items():  # what the call left in it: an input of its own (argstate.py)
            sess.results[name] = Result(call, "", (), ex.line)
            sess.opaque.discard(name)


def _session_states(st: ast.stmt, ctx: _Ctx, sess: Session, ex: _Example, out: _Out,
                    pending: tuple[Call | None, str] | None = None) -> dict[str, Call]:
    """``>>> f(xs)`` (or ``>>> r = f(xs)``), ``xs`` bound by a display of constants: the name then
    holds what the call left in it (:mod:`specguard.formalize.argstate`), when the call's
    arguments are exact, none but ``xs`` is mutable (the session does not track aliases) and
    nothing in them is another call."""
    call = st.value if isinstance(st, (ast.Expr, ast.Assign)) else None
    if isinstance(st, ast.Assign) and not (len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
        return {}
    if not isinstance(call, ast.Call) or not _is_target_call(call, ctx.target) \
            or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) \
            or any(isinstance(n, ast.Call) for a in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(a)):
        return {}
    args = [*call.args, *(k.value for k in call.keywords)]
    mutable = [a for a in args if session_mod.mutable_names(a, sess) or not isinstance(a, ast.Name)
               and isinstance(a, (ast.List, ast.Dict, ast.Set))]
    if len(mutable) != 1 or not isinstance(mutable[0], ast.Name) or mutable[0].id not in sess.displays \
            or sess.env.get(mutable[0].id) is None or sess.env[mutable[0].id].kind not in ("list", "dict", "set"):
        return {}
    name = mutable[0].id
    if isinstance(st, ast.Assign) and st.targets[0].id == name:
        return {}
    made, _ = pending or _session_call(call, ctx, sess, ex, out)     # `r = f(xs)`: already made
    if made is None:
        return {}
    i = args.index(mutable[0])
    which = str(i) if i < len(call.args) else call.keywords[i - len(call.args)].arg
    return {name: made.model_copy(update={"after": which})}


def _owned_binding(st: ast.stmt, sess: Session) -> bool:
    """Whether what a clean statement binds is computed only from the session's own values (an
    assignment from them, a loop over them): the names then denote objects only the session holds."""
    if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        target = ast.Name(st.target.id, ast.Load()) if isinstance(st, ast.AugAssign) and \
            isinstance(st.target, ast.Name) else None
        return st.value is not None and session_mod.owned_expr(st.value, sess) and \
            (not isinstance(st, ast.AugAssign) or target is not None and session_mod.owned_expr(target, sess))
    if isinstance(st, ast.For):
        return session_mod.owned_expr(st.iter, sess)
    return False


def _bound_names(stmts: list[ast.stmt]) -> set[str]:
    """Every name the statements may bind (assignment, loop, ``with`` and ``except`` targets,
    ``:=``, ``del``, ``def``/``class``, imports, ``global``); over-inclusive (comprehension
    variables too), so nothing rebound is kept."""
    names: set[str] = set()
    for st in stmts:
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                names.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in n.names}
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                names |= set(n.names)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                names.add(n.name)
            elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                names.add(n.name)
            elif isinstance(n, ast.MatchMapping) and n.rest:
                names.add(n.rest)
    return names


def _bind_session_names(stmt: ast.stmt, sess: Session, ctx: _Ctx, out: _Out, ex: _Example, clean: bool,
                        pending: tuple[Call | None, str] | None = None) -> set[str]:
    """Record what a binding line binds: a literal, a function value, a result of the function
    under test, an import, a new object only the session holds (``clean``: the line changes no
    state); returns the names bound (the others it binds are forgotten by the caller)."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)) and clean:
        names = _bound_names([stmt])
        sess.forget(names, "rebound")
        return session_mod.record_import(stmt, sess)
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in sess.env:
        name = stmt.target.id               # `j += 1`: Python's `j = j + 1` on the exact value
        try:
            v = eval_literal(ast.BinOp(ast.Name(name, ast.Load()), stmt.op, stmt.value), sess.literal_env())
        except _LITERAL_ERRORS:
            return set()
        if is_mutable(sess.env[name]):
            return set()                    # `xs += [1]` extends the list in place (aliases see it)
        sess.rebind({name})
        sess.env[name] = v
        return {name}
    if isinstance(stmt, ast.FunctionDef):
        if not stmt.decorator_list and session_mod.clean_function(stmt, sess):
            sess.rebind({stmt.name})
            sess.functions.add(stmt.name)
            return {stmt.name}
        return set()
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return set()
    target = stmt.targets[0]
    if isinstance(target, ast.Name) and target.id != ctx.target:
        name = target.id
        if session_mod.mutable_names(stmt.value, sess):
            return set()                   # `ys = xs`: one object under two names
        fv = sess.value_of_function(stmt.value, out.path, ex.line + 1 + out.offset)
        if fv is not None:
            sess.rebind({name})
            sess.values[name] = fv
            if isinstance(stmt.value, ast.Lambda) and session_mod.clean_lambda(stmt.value, sess):
                sess.functions.add(name)       # (one that changes its argument is not: `lambda x: x.append(2)`)
            return {name}
        if isinstance(stmt.value, ast.Lambda) and session_mod.clean_lambda(stmt.value, sess):
            sess.rebind({name})
            sess.functions.add(name)
            return {name}
        try:
            v = eval_literal(stmt.value, sess.literal_env())
        except _LITERAL_ERRORS:
            v = None
        if v is not None:
            sess.rebind({name})
            sess.env[name] = v
            if argstate.constant_display(stmt.value):
                sess.displays.add(name)        # a new object of new objects: what a call leaves in it is read
            return {name}
        if clean and not _calls_of(stmt, ctx.target) and session_mod.owned_expr(stmt.value, sess):
            sess.rebind({name})
            sess.opaque.add(name)
            return {name}
    if _is_target_call(stmt.value, ctx.target) and sess.changed is None and not ex.want:
        paths = _unpack_paths(target)
        if paths is None:
            return set()
        call, why = pending or (None, "the call's arguments are not known")
        sess.forget(set(paths), "rebound")
        for name, path in paths.items():
            sess.results[name] = Result(call, why, path, ex.line)
        return set(paths)
    return set()


def _session_call(node: ast.Call, ctx: _Ctx, sess: Session, ex: _Example, out: _Out) -> tuple[Call | None, str]:
    """The call's exact arguments in the session: its literals and function values, a closed
    lambda written in the call included (a new function object, :meth:`Session.value_of_function`)."""
    env = sess.literal_env()
    args, kws = list(node.args), list(node.keywords)
    for k, a in enumerate(args + [kw.value for kw in kws]):
        if isinstance(a, ast.Lambda) or isinstance(a, (ast.Name, ast.Attribute)) and not \
                (isinstance(a, ast.Name) and a.id in env):
            fv = sess.value_of_function(a, out.path, ex.line + 1 + out.offset)
            if fv is None:
                if isinstance(a, ast.Lambda):
                    return None, "an argument is a lambda that reads names other than its parameters"
                continue
            name = f"__specguard_lambda_{k}__"
            env[name] = fv
            if k < len(args):
                args[k] = ast.Name(name, ast.Load())
            else:
                kws[k - len(args)] = ast.keyword(kws[k - len(args)].arg, ast.Name(name, ast.Load()))
    return _literal_call(ast.Call(node.func, args, kws), ctx.target, env=env)


def _unpack_paths(target: ast.expr, prefix: tuple[int, ...] = ()) -> dict[str, tuple[int, ...]] | None:
    """``r`` -> {r: ()}, ``a, (b, c)`` -> {a: (0,), b: (1, 0), c: (1, 1)}; None for starred
    targets, attributes, items or a name bound twice."""
    if isinstance(target, ast.Name):
        return {target.id: prefix}
    if isinstance(target, (ast.Tuple, ast.List)):
        found: dict[str, tuple[int, ...]] = {}
        for i, t in enumerate(target.elts):
            sub = _unpack_paths(t, prefix + (i,))
            if sub is None or set(sub) & set(found):
                return None
            found.update(sub)
        return found
    return None


def _session_claim(ex: _Example, stmt: ast.stmt, sess: Session, ctx: _Ctx, out: _Out) -> bool:
    """The claim of one statement of a session (if any); True when it was read as an observation
    of result names (they count as read once)."""
    env = sess.literal_env()
    if isinstance(stmt, ast.Assign) and not _calls_of(stmt, ctx.target):
        return False
    uses = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in sess.results}
    if uses:
        out.seen_example()
        why = _result_claim(ex, stmt, uses, sess, ctx, out)
        if why is not None:
            out.note(ex.line, f"doctest example skipped: {why}")
            return False
        return True
    call_node, wrapper = _direct_call(stmt, ctx.target)
    if call_node is None or wrapper in ("list", "tuple") and _wrapped_expect(ex, wrapper, ctx)[0] is None:
        if _calls_of(stmt, ctx.target):
            if isinstance(stmt, ast.Assign) and _is_target_call(stmt.value, ctx.target) \
                    and _unpack_paths(stmt.targets[0]) is not None and len(stmt.targets) == 1 and not ex.want:
                names = ", ".join(f"`{n}`" for n in _unpack_paths(stmt.targets[0]))
                out.note(ex.line, f"doctest line binds the result of {ctx.target} to {names}; no claim of its own "
                                  "(later lines observing it are read as observations of this call)")
                return False               # seen when a later line uses it
            out.seen_example()
            why = _observation_claim(ex, stmt, ctx, env, out, sess)
            if why is not None:
                out.note(ex.line, f"doctest example skipped: the call of {ctx.target} is wrapped "
                                  f"in another expression or statement ({why})")
        elif not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out.note(ex.line, f"doctest line is not a call of {ctx.target or 'the entry point'}; no claim")
        return False
    out.seen_example()
    call, why = _session_call(call_node, ctx, sess, ex, out)
    if call is None:
        out.note(ex.line, f"doctest example skipped: {why}")
        return False
    rhs = _eq_comparison(stmt.value, ctx.target)
    if wrapper is not None:
        expect, why = _wrapped_expect(ex, wrapper, ctx)
    elif rhs is None:
        expect, why = _doctest_expect(ex, ctx)
    else:
        expect, why = _comparison_expect(ex, rhs, ctx)
    if expect is None:
        out.note(ex.line, f"doctest example skipped: {why}")
        return False
    out.add(ClaimKind.example, ex.line, ex.src_lines + ex.want_lines, call=call, expect=expect)
    return False


def _result_claim(ex: _Example, stmt: ast.stmt, uses: set[str], sess: Session, ctx: _Ctx, out: _Out) -> str | None:
    """``>>> r`` / ``>>> sorted(a)`` after ``>>> r = f(x)`` / ``>>> a, b = f(x)``: an observation of
    that one evaluation of the call (see :class:`specguard.formalize.session.Result`).  Adds the
    claim and returns None, or returns why not."""
    results = {n: sess.results[n] for n in uses}
    for n, r in results.items():
        bad = r.usable()
        if bad is not None:
            return f"`{n}` is not a term of the call ({bad})"
    if len({r.line for r in results.values()}) != 1:
        return "names bound by different lines (different evaluations of the call)"
    if _calls_of(stmt, ctx.target):
        return f"a result name and another call of {ctx.target} on one line"
    if not isinstance(stmt, ast.Expr):
        return "not an expression"
    if ex.want and _TRACEBACK.match(ex.want[0]):
        return "a traceback (the line raised, not the function's call)"
    one = next(iter(results.values()))
    if isinstance(stmt.value, ast.Name) and not one.path:
        expect, why = _name_expect(ex, ctx)          # `>>> r`: the repr of the result
        if expect is None:
            return why
        out.add(ClaimKind.example, ex.line, ex.src_lines + ex.want_lines, call=one.call, expect=expect,
                evaluation=one.line)
    else:
        placeholder = "__specguard_result__"

        class Sub(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.AST:
                r = results.get(node.id)
                return node if r is None else r.term(ast.Name(placeholder, ast.Load()))
        expr = Sub().visit(ast.fix_missing_locations(ast.Expression(body=_copy(stmt.value)))).body
        why = _observation_claim(ex, ast.Expr(expr), ctx, sess.literal_env(), out, sess,
                                 placeholder=(placeholder, one.call, one.line))
        if why is not None:
            return why
    displayed = isinstance(stmt.value, ast.Name) and ex.want and _literal_text("\n".join(ex.want)) is not None
    for r in results.values():
        r.used = True
        r.plain = r.plain or bool(displayed)
    return None


def _copy(node: ast.expr) -> ast.expr:
    return ast.parse(ast.unparse(node), mode="eval").body


def _name_expect(ex: _Example, ctx: _Ctx) -> tuple[Expect | None, str]:
    """``>>> r`` shows ``repr(r)`` (nothing when ``r`` is None), never printed text."""
    if not ex.want:
        if ex.end not in ("blank", "prompt") and not (ctx.stub and ex.end in ("docend", "eof")):
            return None, "no expected output and the next line is neither blank nor '>>>'"
        return Expect(kind=ExpectKind.eq, value=V("none")), ""
    text = "\n".join(ex.want)
    value = _literal_text(text)
    if value is None:
        return None, "output is not a literal (an object repr?)"
    if _has_float(value) and ctx.tolerance:
        return None, "float output, and the description mentions a tolerance"
    return Expect(kind=ExpectKind.eq, value=value), ""


def _observation_claim(ex: _Example, stmt: ast.stmt, ctx: _Ctx, env: dict[str, V], out: _Out,
                       sess: Session | None = None, placeholder: tuple | None = None) -> str | None:
    """``>>> sorted(f(x))`` / ``[1, 2]``: the line's value, whose repr is the output, is ``==`` to
    the output's literal (plain data), so the example states the observation
    ``sorted(f(x)) == [1, 2]`` of the one call (:mod:`specguard.python.terms`).  ``placeholder``:
    (name, call, evaluation) of a result name standing for one evaluated call.  Adds the claim and
    returns None, or returns why not."""
    if not isinstance(stmt, ast.Expr):
        return "not an expression"
    if not ex.want or _TRACEBACK.match(ex.want[0]):
        return "no printed value"
    if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "print":
        return "print(...) shows str() of the value"
    value = _literal_text("\n".join(ex.want))
    if value is None:
        return "output is not a literal"
    ph = placeholder[0] if placeholder else None
    is_call = lambda n: _is_target_call(n, ctx.target) or (ph is not None and isinstance(n, ast.Name) and n.id == ph)
    builtin = (lambda name: sess.builtin(name)) if sess is not None else \
        (lambda name: name not in env and name != ctx.target)
    calls: list[Call] = []
    try:
        node = ast.Compare(left=stmt.value, ops=[ast.Eq()], comparators=[observe.value_ast(value)])
        built = observe.build(node, is_call=is_call, literal=lambda n: eval_literal(n, env or None), builtin=builtin)
    except observe.NotObservation as e:
        return e.reason
    keys = set()
    for c in built.calls:
        if isinstance(c, ast.Name):
            call, why = placeholder[1], ""
        else:
            call, why = _session_call(c, ctx, sess, ex, out) if sess is not None else \
                _literal_call(c, ctx.target, env=env)
        if call is None:
            return why
        keys.add(call.key())
        calls.append(call)
    if len(keys) != 1:
        return f"different calls of {ctx.target} on one line"
    if ph is None and len(built.calls) > 1 and any(
            isinstance(n, ast.Name) and n.id in env and is_mutable(env[n.id]) for c in built.calls for n in ast.walk(c)):
        return f"the same call of {ctx.target} twice with a mutable argument (the first call may change it)"
    out.add(ClaimKind.example, ex.line, ex.src_lines + ex.want_lines, call=calls[0],
            expect=Expect(kind=ExpectKind.obs, expr=built.text), evaluation=placeholder[2] if placeholder else None)
    return None


# doctest's own directive syntax (``doctest._OPTION_DIRECTIVE_RE``)
_DIRECTIVE = re.compile(r"#\s*doctest:\s*([^\n'\"]*)$", re.M)
# options that change nothing this reader relies on: stricter comparisons or reporting only
_HARMLESS_OPTIONS = {"DONT_ACCEPT_TRUE_FOR_1", "DONT_ACCEPT_BLANKLINE", "REPORT_UDIFF", "REPORT_CDIFF",
                     "REPORT_NDIFF", "REPORT_ONLY_FIRST_FAILURE", "FAIL_FAST"}


def _session_statements(ex: _Example) -> tuple[list[ast.stmt] | None, str]:
    """The statements a ``>>>`` line runs, and why its output is not read (empty: it may be).
    None when it runs nothing: ``+SKIP`` (doctest does not run it) or source that does not parse
    (a SyntaxError, nothing runs).  Directives (issue 12, item 2): ``+IGNORE_EXCEPTION_DETAIL``
    (only the exception's name is read anyway), ``+ELLIPSIS`` when the output has no ``...`` (or
    only in a traceback's stack or message), ``+NORMALIZE_WHITESPACE`` when the output is a
    literal whose value does not change when whitespace is normalized and holds no string with
    whitespace (so every output matching it is the repr of an equal value); any other changes how
    the output is compared: not read."""
    try:
        tree = ast.parse(ex.source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError):
        return None, "the source does not parse as Python"
    options: list[tuple[str, str]] = []
    for m in _DIRECTIVE.finditer(ex.source):
        for opt in re.split(r"[\s,]+", m.group(1).strip()):
            if opt:
                options.append((opt[:1], opt[1:]))
    if "doctest:" in ex.source and not options:
        return tree.body, "a '# doctest:' text that is not a directive SpecGuard reads"
    if any(sign == "+" and name == "SKIP" for sign, name in options):
        return None, "a '# doctest: +SKIP' directive: doctest does not run this example"
    why = ""
    for sign, name in options:
        why = why or _directive_problem(ex, sign, name)
    return tree.body, why


def _directive_problem(ex: _Example, sign: str, name: str) -> str:
    if sign not in "+-" or not name:
        return f"a '# doctest:' directive SpecGuard does not read ({sign}{name})"
    if sign == "-" or name in _HARMLESS_OPTIONS:
        return ""          # turning an option off, or a stricter comparison: the literal reading still holds
    traceback = bool(ex.want) and bool(_TRACEBACK.match(ex.want[0]))
    if name == "IGNORE_EXCEPTION_DETAIL":
        return ""          # only the exception's name (its last dotted part) is read
    if name == "ELLIPSIS":
        if traceback:
            bad = [w for w in ex.want[1:] if "..." in w.split(":")[0] and w.strip() != "..."]
            return "a '+ELLIPSIS' directive with '...' in the exception's name" if bad else ""
        return "a '+ELLIPSIS' directive and the output has '...' (a wildcard)" if any("..." in w for w in ex.want) else ""
    if name == "NORMALIZE_WHITESPACE":
        if traceback or not ex.want:
            return ""
        text = "\n".join(ex.want)
        value, normal = _literal_text(text), _literal_text(" ".join(text.split()))
        if value is None or normal is None or value != normal or _has_spaced_string(value) \
                or re.search(r"\bprint\s*\(", ex.source):
            return ("a '+NORMALIZE_WHITESPACE' directive: the output is not a literal whose value survives whitespace "
                    "normalization (or it holds a string with whitespace, or is printed text)")
        return ""
    return f"a '# doctest: {sign}{name}' directive changes how the output is compared"


def _has_spaced_string(v: V) -> bool:
    if v.kind in ("str", "bytes"):
        return any(c in (v.val if v.kind == "str" else v.val.decode("latin-1")) for c in " \t\n\r\x0b\x0c")
    if v.kind == "dict":
        return any(_has_spaced_string(a) or _has_spaced_string(b) for a, b in v.val)
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return any(_has_spaced_string(x) for x in v.val)
    return v.kind not in ("int", "bool", "none", "float")


def _own_packages(path: str) -> frozenset[str]:
    """The folders of the description's path: importing the library's own modules in its
    docstring is importing what the function's module already belongs to."""
    parts = re.split(r"[\\/]", path)[:-1]
    return frozenset(p for p in parts if p.isidentifier())


def _example_statement(ex: _Example) -> tuple[ast.stmt | None, str]:
    if "doctest:" in ex.source:
        return None, "a '# doctest:' directive changes how the output is compared"
    try:
        tree = ast.parse(ex.source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError):
        return None, "the source does not parse as Python"
    if len(tree.body) != 1:
        return None, "not exactly one statement"
    return tree.body[0], ""


def _is_target_call(node: ast.expr, target: str | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == target


# observations of the result through a builtin that a doctest line may wrap it in, read only
# where the observation pins the result down exactly (see _wrapped_expect)
_WRAPPERS = ("list", "tuple", "print")


def _direct_call(stmt: ast.stmt, target: str | None) -> tuple[ast.Call | None, str | None]:
    """``f(...)``, the call in ``f(...) == <literal>`` (its output must then be ``True``), or the
    call in ``list(f(...))`` / ``tuple(f(...))`` / ``print(f(...))`` (with the wrapper's name)."""
    if target is None or not isinstance(stmt, ast.Expr):
        return None, None
    v = stmt.value
    if _is_target_call(v, target):
        return v, None
    if _eq_comparison(v, target) is not None:
        return v.left, None
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in _WRAPPERS \
            and len(v.args) == 1 and not v.keywords and _is_target_call(v.args[0], target):
        return v.args[0], v.func.id
    return None, None


def _wrapped_expect(ex: _Example, wrapper: str, ctx: _Ctx) -> tuple[Expect | None, str]:
    """``>>> list(f(x))`` / ``[1, 2]`` observes ``list(f(x)) == [1, 2]``.  The demand language has
    no such observation, so it is read as ``f(x) == [1, 2]`` only where the two are equivalent
    under the description's own return annotation: ``list``/``tuple`` of a result annotated as
    that very type, ``print`` of an ``int``/``bool``/``str`` result or of a container (whose
    printed form is its repr).  Otherwise (an iterator, no annotation) it is not read."""
    ret = ctx.sig.returns if ctx.sig else None
    kind = ret.name if ret is not None else None
    if not ex.want or _TRACEBACK.match(ex.want[0]):
        return None, f"{wrapper}(...) of the result without a printed value"
    text = "\n".join(ex.want)
    if wrapper in ("list", "tuple"):
        if kind != wrapper:
            return None, (f"the result is observed through {wrapper}(...), which equals the result only "
                          f"when it is a {wrapper} (return annotation: {ret.source() if ret else 'none'})")
        value = _literal_text(text)
        if value is None or value.kind != wrapper:
            return None, f"output of {wrapper}(...) is not a {wrapper} literal"
    else:
        if kind == "str":
            if len(ex.want) != 1 or "<BLANKLINE>" in text or text != text.strip():
                return None, "printed text of a str result that is not one plain line"
            value = V("str", text)
        elif kind in ("int", "bool", "list", "tuple", "dict", "set"):
            value = _literal_text(text)
            if value is None or value.kind != kind or py_repr(value) != text:
                return None, f"printed output is not exactly the printed form of a {kind}"
        else:
            return None, ("printed output: print(...) shows str(result), which pins the result down "
                          f"only for an annotated int/bool/str/container result (annotation: "
                          f"{ret.source() if ret else 'none'})")
    if _has_float(value):
        return None, "float output through a printed form"
    return Expect(kind=ExpectKind.eq, value=value), ""


def _eq_comparison(v: ast.expr, target: str | None) -> ast.expr | None:
    """The right-hand side of ``f(...) == rhs``, else None."""
    if isinstance(v, ast.Compare) and len(v.ops) == 1 and isinstance(v.ops[0], ast.Eq) \
            and _is_target_call(v.left, target):
        return v.comparators[0]
    return None


def _doctest_expect(ex: _Example, ctx: _Ctx) -> tuple[Expect | None, str]:
    if not ex.want:
        if ex.end not in ("blank", "prompt") and not (ctx.stub and ex.end in ("docend", "eof")):
            return None, "no expected output and the next line is neither blank nor '>>>'"
        ret = ctx.sig.returns if ctx.sig else None
        if not _admits(ret, "None"):
            return None, f"no expected output (the result would be None) but the return type is {ret.source()}"
        return Expect(kind=ExpectKind.eq, value=V("none")), ""
    if _TRACEBACK.match(ex.want[0]):
        return _traceback_expect(ex.want)
    ret = ctx.sig.returns if ctx.sig else None
    if ret == _NONE:
        return None, "the function is annotated '-> None', so this output is printed text"
    if ctx.prints and _admits(ret, "None"):
        return None, "the description mentions printing and the result may be None: the output may be printed text"
    text = "\n".join(ex.want)
    value = _literal_text(text)
    if value is None and text in ("inf", "-inf", "nan"):      # only a float's repr reads so
        if text == "nan":
            return Expect(kind=ExpectKind.float_class, types=("nan",)), ""
        value = V("float", float(text))
    if value is None:
        if "..." in text:
            return None, "output contains '...' (an ellipsis wildcard?)"
        return None, "output is not a literal (printed text or an object repr?)"
    if _has_float(value) and ctx.tolerance:
        return None, "float output, and the description mentions a tolerance"
    return Expect(kind=ExpectKind.eq, value=value), ""


def _comparison_expect(ex: _Example, rhs: ast.expr, ctx: _Ctx) -> tuple[Expect | None, str]:
    """``>>> f(x) == v`` printing ``True`` states ``f(x) == v`` (plain data), printing ``False``
    states ``f(x) != v``; the line with
    no output at all (``>>> count([]) == 0`` then a blank line: a boolean example whose ``True``
    was left out), provided nothing follows it on the next line."""
    if not ex.want:
        if ex.end not in ("blank", "prompt") and not (ctx.stub and ex.end in ("docend", "eof")):
            return None, "comparison with no output and the next line is neither blank nor '>>>'"
    elif ex.want not in (["True"], ["False"]):
        return None, "comparison whose output is neither True nor False"
    if not _is_display(rhs, output=True):
        return None, "compared with something that is not a plain literal"
    kind = ExpectKind.ne if ex.want == ["False"] else ExpectKind.eq
    try:
        return Expect(kind=kind, value=_eval_literal(rhs)), ""
    except _LITERAL_ERRORS:
        return None, "compared with something that is not a literal"


def _traceback_expect(want: list[str]) -> tuple[Expect | None, str]:
    for line in want[1:]:
        if line[:1].isspace() or line.startswith("..."):
            continue
        m = _EXC_LINE.match(line)
        if m:
            return Expect(kind=ExpectKind.raises, exc=(m.group("name"),)), ""
        break
    return None, "traceback without a recognisable exception line"


_PHRASE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\([^()]*\)`?\s*"
                          r"(?:==>?|->|=>|\u279e|returns\b|should\s+return\b|raises\b)")


def _infer_target(examples: list[_Example], doc: _Doc) -> str | None:
    """With no entry point and no signature: the one function the examples call directly."""
    names: set[str] = set()
    for ex in examples:
        node = _parse_expr(ex.source)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in _PURE_CALLS:
            names.add(node.func.id)
    if not examples:
        names = {m.group(1) for i, line in enumerate(doc.lines) if doc.prose[i]
                 for m in _PHRASE_CALL.finditer(line)} - _PURE_CALLS
    return names.pop() if len(names) == 1 else None


# -- prose: sections, sentences ----------------------------------------------------------------

_SECTION_NAMES = {
    "args": "args", "arguments": "args", "parameters": "args", "params": "args", "parameter": "args",
    "inputs": "args", "input format": "args", "returns": "returns", "return": "returns",
    "return value": "returns", "yields": "returns", "output format": "returns",
    "raises": "raises", "constraints": "constraints", "constraint": "constraints",
    "example": "examples", "examples": "examples", "explanation": "explanation", "note": "other",
    "notes": "other", "input": "input", "output": "output",
}
_HEADER = re.compile(r"^(?:#+\s*)?(?:\*\*)?(?P<name>" + "|".join(sorted(_SECTION_NAMES, key=len, reverse=True))
                     + r")\b(?:\s+\d+)?(?:\*\*)?\s*(?P<colon>:)?(?:\*\*)?\s*(?P<rest>.*)$", re.I)
_ITEM_START = re.compile(r"^(?:[-*\u2022]\s+|\d+[.)]\s+|[A-Za-z_][\w, ]*\s*(?:\([^)]*\))?\s*:\s)")
_TRIPLE_QUOTES = re.compile(r'^[rRuUbBfF]{0,2}(?:"""|\'\'\')|(?:"""|\'\'\')$')
_SUPERSCRIPT = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "0123456789")


@dataclass
class _Sentence:
    text: str
    lines: list[int]
    section: str
    unit_start: bool           # first sentence of its paragraph/item


def _section_header(line: str) -> tuple[str, str] | None:
    """(section, inline rest) when the line is a section header such as ``Returns:``."""
    m = _HEADER.match(line.strip())
    if not m or (not m.group("colon") and m.group("rest")):
        return None                       # "Return the count ..." is a sentence, not a header
    return _SECTION_NAMES[m.group("name").lower()], m.group("rest").strip().strip("*").strip()


def _normalize(s: str) -> str:
    s = re.sub(r"[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+", lambda m: "^" + m.group(0).translate(_SUPERSCRIPT), s)
    return s.replace("`", "")


def _paragraphs(doc: _Doc, skip: set[int]) -> list[tuple[str, list[tuple[int, str]]]]:
    """Prose paragraphs and list items as (section, [(line, text)])."""
    paras: list[tuple[str, list[tuple[int, str]]]] = []
    section, cur = "other", None
    for i, raw in enumerate(doc.lines):
        s = _TRIPLE_QUOTES.sub("", raw.strip()).strip() if doc.prose[i] else ""
        if i in skip or not s or set(s) <= set("-=~`"):
            if not s:
                section, cur = "other", None
            continue
        hdr = _section_header(s)
        if hdr is not None:
            section, rest = hdr
            cur = None
            if not rest:
                continue
            s = rest
        if cur is None or _ITEM_START.match(s):
            cur = (section, [])
            paras.append(cur)
        cur[1].append((i, _normalize(s)))
    return paras


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])")


def _sentences(paras: list[tuple[str, list[tuple[int, str]]]]) -> list[_Sentence]:
    result: list[_Sentence] = []
    for section, items in paras:
        text, owners = "", []
        for i, s in items:
            if text:
                text += " "
                owners.append(i)
            text += s
            owners.extend([i] * len(s))
        pos = 0
        pieces = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
        for k, end in enumerate(pieces):
            a, b = _strip_span(text, pos, end)
            if a < b:
                result.append(_Sentence(text[a:b], sorted(set(owners[a:b])), section, k == 0))
            pos = end
    return result


def _strip_span(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


_QUOTED_BOOL = re.compile(r"""(['"])(?:true|false)\1""", re.I)
_PRINTS = re.compile(r"\bprint(?:s|ed|ing)?\b|\bstdout\b|\bstandard\s+output\b", re.I)
_TOLERANCE = re.compile(r"\b(?:absolute|relative)\s+(?:or\s+relative\s+)?error|\btolerance\b|\bapproximate(?:ly)?\b"
                        r"|\bdecimal\s+places\b|\brounded\b|\bwithin\s+(?:10\s*\^\s*\{?-|1e-)", re.I)


# -- number expressions in prose: 10^9 + 7, 10**9+7, 1e9+7, 1_000_000_007 --------------------

_NUM_TOKEN = re.compile(r"\s*(?:(?P<num>\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?:_\d+)*(?:\.\d+)?(?:[eE]\+?\d+)?)"
                        r"|(?P<op>\*\*|\^|[+\-*\u00d7()]))")


class _NumParser:
    """Longest-prefix parser of an integer expression; ``parse`` returns (value, end) or None."""

    def __init__(self, s: str) -> None:
        self.s = s

    def tok(self, pos: int) -> tuple[str, str, int] | None:
        m = _NUM_TOKEN.match(self.s, pos)
        if not m:
            return None
        return ("num", m.group("num"), m.end()) if m.group("num") else ("op", m.group("op"), m.end())

    def parse(self, pos: int) -> tuple[int, int] | None:
        r = self.expr(pos)
        if r is None or r[0].denominator != 1:
            return None
        return int(r[0]), r[1]

    def expr(self, pos: int) -> tuple[Fraction, int] | None:
        return self.chain(pos, self.term, {"+": lambda x, y: x + y, "-": lambda x, y: x - y})

    def term(self, pos: int) -> tuple[Fraction, int] | None:
        mul = lambda x, y: x * y  # noqa: E731
        return self.chain(pos, self.power, {"*": mul, "\u00d7": mul})

    def chain(self, pos: int, sub, ops: dict) -> tuple[Fraction, int] | None:
        """A left-associative chain ``sub (op sub)*`` over the operators in ``ops``."""
        r = sub(pos)
        while r is not None:
            t = self.tok(r[1])
            if not t or t[0] != "op" or t[1] not in ops:
                break
            nxt = sub(t[2])
            if nxt is None:
                break
            r = (ops[t[1]](r[0], nxt[0]), nxt[1])
        return r

    def power(self, pos: int) -> tuple[Fraction, int] | None:
        r = self.atom(pos)
        if r is None:
            return None
        t = self.tok(r[1])
        if t and t[0] == "op" and t[1] in ("^", "**"):
            e = self.atom(t[2])
            if e is not None and e[0].denominator == 1 and 0 <= e[0] <= 400:
                return r[0] ** int(e[0]), e[1]
        return r

    def atom(self, pos: int) -> tuple[Fraction, int] | None:
        t = self.tok(pos)
        if t is None:
            return None
        if t[0] == "num":
            try:
                return Fraction(t[1].replace(",", "").replace("_", "")), t[2]
            except (ValueError, ZeroDivisionError):
                return None
        if t[1] == "(":
            r = self.expr(t[2])
            close = self.tok(r[1]) if r else None
            if r and close and close[1] == ")":
                return r[0], close[2]
        return None


def _number_at(s: str, pos: int) -> tuple[int, int] | None:
    """An integer expression starting at ``pos`` that ends a word (not followed by more math)."""
    r = _NumParser(s).parse(pos)
    if r is None:
        return None
    rest = s[r[1]:]
    if re.match(r"\s*[\^*/%\u00d7+\-]|\w|\.\d", rest):
        return None
    return r


# -- result modulus -------------------------------------------------------------------------

_MOD_WORD = re.compile(r"\b(?:modulo|mod)\b\s*", re.I)
_RETURN_VERB = re.compile(r"\b(?:return|returns|returned|returning|print|prints|printed|output|outputs|report)\b", re.I)
_RESULT_NOUN_BEFORE = re.compile(
    r"\b(?:answer|result|output)\b(?:\s+(?:should|must|will|is|has\s+to|needs\s+to|may|can))?(?:\s+be)?"
    r"(?:\s+(?:returned|printed|given|taken|computed|reported|output|calculated|expressed))?\s*,?\s*$", re.I)
_CLAUSE_MARKER = re.compile(r"\b(?:where|which|whose|whom|such\s+that|so\s+that|if|when|whenever|while|unless|"
                            r"until|after|before|whereas|except|otherwise|each|every|i\.e|e\.g)\b", re.I)
_CONDITIONAL = re.compile(r"\b(?:if|when|whenever|unless|otherwise|except)\b", re.I)
_DEFINITION = re.compile(r"\b(?:let|define[sd]?|denote[sd]?|call(?:ed)?|suppose|assume)\b", re.I)
_COLLECTION = re.compile(r"\b(?:lists?|arrays?|sequences?|tuples?|pairs?|dict(?:ionary)?|sets?|matrix|grid|strings?|"
                         r"each|every|counts|answers|values|results|sums|elements|entries)\b", re.I)
_CONGRUENCE = re.compile(r"\u2261|\bcongruen", re.I)
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;:!?()\]])")


def _operand_before(s: str, start: int) -> bool:
    """Is the word before ``mod`` a math operand (``x``, ``a_i``, ``(i+1)``) rather than prose?"""
    m = re.search(r"(\S+)\s*$", s[:start])
    if not m:
        return False
    w = m.group(1)
    if w.endswith((",", "(")):
        return False                       # "..., modulo M" / "(modulo M)" apply to the whole phrase
    return bool(re.fullmatch(r"[A-Za-z]", w) or re.search(r"[\d_()\[\]^*+/=<>|]", w))


def _result_talk(sent: _Sentence, start: int) -> bool:
    """Is the phrase at ``start`` about the returned value?

    Yes after "the answer/result (should be returned)", and after a return/print verb or at
    the start of a ``Returns:`` item when no relative or conditional clause intervenes.
    """
    before = sent.text[:start]
    if _RESULT_NOUN_BEFORE.search(before):
        return True
    if sent.section == "returns" and sent.unit_start:
        anchor = 0                         # the Returns: item's opening phrase names the result
    else:
        verbs = list(_RETURN_VERB.finditer(before))
        if not verbs:
            return False
        anchor = verbs[-1].start()
    return not _CLAUSE_MARKER.search(before[anchor:])


def _modulus_claims(sents: list[_Sentence], ctx: _Ctx, out: _Out) -> None:
    found: list[tuple[int, _Sentence]] = []
    for sent in sents:
        if sent.section in ("args", "constraints", "explanation", "input", "raises"):
            continue
        for m in _MOD_WORD.finditer(sent.text):
            mval = _modulus_of(sent, m, out)
            if mval is not None:
                found.append((mval, sent))
    if not found:
        return
    out.seen_statement()
    ret = ctx.sig.returns if ctx.sig else None
    moduli = sorted({m for m, _ in found})
    first = found[0][1]
    if ret is not None and ret.name not in ("int", "Any"):
        out.note(first.lines[0], f"the result is stated modulo {moduli[0]}, but the return type is "
                                 f"{ret.source()}; no range claim")
        return
    if ret is None or ret.name == "Any":
        plural = next((sent for _, sent in found if _COLLECTION.search(sent.text)), None)
        if plural is not None:
            out.note(plural.lines[0], "the result may be a collection (no int return annotation); "
                                      "no range claim")
            return
    if len(moduli) > 1:
        out.note(first.lines[0], f"different moduli stated for the result ({', '.join(map(str, moduli))}); "
                                 "no range claim")
        return
    out.add(ClaimKind.result_range, first.lines[0], first.lines, lo=0, hi=moduli[0] - 1)


def _modulus_of(sent: _Sentence, m: re.Match, out: _Out) -> int | None:
    """M when this ``modulo M`` phrase says the returned value is taken modulo a literal M."""
    s, line = sent.text, sent.lines[0]
    talk = _result_talk(sent, m.start())
    num = _number_at(s, m.end())
    if num is None:
        if talk:
            word = (re.match(r"[^\s.,;:)]+", s[m.end():]) or [""])[0]
            out.note(line, f"result modulo {word!r}: not a literal number; no range claim")
        return None
    value, end = num
    if not talk:
        out.note(line, f"modulus {value} not recognised as a statement about the returned value; "
                       "no claim from this line")
        return None
    problem = _modulus_problem(s, m.start(), end, value)
    if problem:
        out.note(line, f"modulus {value} not used: {problem}")
        return None
    return value


def _modulus_problem(s: str, start: int, end: int, value: int) -> str | None:
    if value < 1:
        return "not a positive modulus"
    if _CONGRUENCE.search(s):
        return "stated as a congruence"
    if _operand_before(s, start):
        return "applies to an operand, not to the result"
    if not _CLAUSE_END.match(s[end:]) or re.match(r"\s*\.\d", s[end:]):
        return "the phrase does not end the clause"
    if re.match(r"\s*[)\]]?\s*(?:is|==?|equals?|!=|\u2260)\b", s[end:]):
        return "compared with something"
    if _CONDITIONAL.search(s):
        return "the sentence is conditional"
    if _DEFINITION.search(s[:start]):
        return "the sentence defines a quantity"
    return None


# -- plainly stated result bounds ---------------------------------------------------------------

_NUM = r"-?\s*\d+(?:(?:_\d+)+|(?:,\d{3})+(?!\d))?(?:\s*(?:\^|\*\*)\s*\d+)?(?:\s*[+\-]\s*\d+)?"
_RESULT_LEAD = r"(?:\breturns?|\bthe\s+(?:answer|result|return(?:ed)?\s+value)\s+is(?:\s+always)?)\s+"
_ARTICLE = r"(?:an?\s+)?"
_SIGN = r"(?P<adj>non-?negative|positive)\s+"
_BETWEEN = (rf"(?:between|from)\s+(?P<a>{_NUM})\s+(?:and|to)\s+(?P<b>{_NUM})"
            r"(?P<tail>\s*,?\s*\(?\s*(?:inclusive|exclusive)\b)?")
_RANGE = rf"in\s+the\s+range\s+(?P<l>[\[(])\s*(?P<a>{_NUM})\s*,\s*(?P<b>{_NUM})\s*(?P<r>[\])])"
_ANY_NOUN = r"(?P<noun>integer|int|number|value)"
_INT_NOUN = r"(?P<noun>integer|int)"
_TYPE_PREFIX = r"^(?:(?:int|integer)\s*:\s*)?"
_BOUND_FORMS = [          # anywhere, after "returns" / "the answer is"
    ("sign", re.compile(_RESULT_LEAD + _ARTICLE + _SIGN + _ANY_NOUN + r"\b", re.I)),
    ("between", re.compile(_RESULT_LEAD + _ARTICLE + _ANY_NOUN + r"\s+" + _BETWEEN, re.I)),
    ("range", re.compile(_RESULT_LEAD + _ARTICLE + _ANY_NOUN + r"?\s*" + _RANGE, re.I)),
]
_RETURNS_SECTION_FORMS = [   # at the start of a Returns: item
    ("sign", re.compile(_TYPE_PREFIX + _ARTICLE + _SIGN + _INT_NOUN + r"\b", re.I)),
    ("between", re.compile(_TYPE_PREFIX + _ARTICLE + _INT_NOUN + r"\s+" + _BETWEEN, re.I)),
]
_BOUND_HINT = re.compile(_RESULT_LEAD + r"(?:an?\s+)?(?:non-?negative|positive|integer|int|number|value)\b.*?"
                         r"\b(?:between|from|range|at\s+least|at\s+most)\b", re.I)
_ALTERNATIVE = re.compile(r"\b(?:or|otherwise|unless|except|if)\b", re.I)


def _int_value(text: str) -> int | None:
    """The integer a bound's text denotes (``-5``, ``10^9``, ``1,000``), else None."""
    t = text.replace(" ", "")
    neg = t.startswith("-")
    t = t[1:] if neg else t
    r = _NumParser(t).parse(0)
    if r is None or r[1] != len(t):
        return None
    return -r[0] if neg else r[0]


def _bounds_of(kind: str, m: re.Match) -> tuple[int | None, int | None] | None:
    if kind == "sign":
        return (1 if m.group("adj").lower() == "positive" else 0), None
    a, b = _int_value(m.group("a")), _int_value(m.group("b"))
    if a is None or b is None:
        return None
    if kind == "range":
        return a + (m.group("l") == "("), b - (m.group("r") == ")")
    if m.group("tail") and "exclusive" in m.group("tail").lower():
        return a + 1, b - 1
    return a, b


def _bound_claims(sents: list[_Sentence], ctx: _Ctx, out: _Out) -> None:
    ret = ctx.sig.returns if ctx.sig else None
    for sent in sents:
        if sent.section in ("args", "constraints", "explanation", "input", "raises"):
            continue
        forms = _BOUND_FORMS + (_RETURNS_SECTION_FORMS if sent.section == "returns" and sent.unit_start else [])
        hit = next(((k, m) for k, rx in forms if (m := rx.search(sent.text))), None)
        if hit is not None or _BOUND_HINT.search(sent.text):
            out.seen_statement()
        if hit is None:
            if _BOUND_HINT.search(sent.text):
                out.note(sent.lines[0], "a bound on the result that is not plainly stated; no claim")
            continue
        _bound_claim(sent, *hit, ret=ret, out=out)


def _bound_claim(sent: _Sentence, kind: str, m: re.Match, *, ret: TypeExpr | None, out: _Out) -> None:
    line = sent.lines[0]
    bounds = _bounds_of(kind, m)
    noun = (m.group("noun") or "").lower()
    if bounds is None:
        out.note(line, "result bound with a non-literal end; no claim")
    elif _ALTERNATIVE.search(sent.text[m.end():]) or _CONDITIONAL.search(sent.text[:m.start()]):
        out.note(line, "result bound under a condition or with an alternative; no claim")
    elif ret is not None and ret.name not in ("int", "Any"):
        out.note(line, f"result bound stated but the return type is {ret.source()}; no claim")
    elif noun not in ("integer", "int") and not (ret is not None and ret.name == "int"):
        out.note(line, f"result bound on a {noun or 'value'} that need not be an int; no claim")
    elif bounds[1] is not None and bounds[0] > bounds[1]:
        out.note(line, "empty result range; no claim")
    else:
        out.add(ClaimKind.result_range, line, sent.lines, lo=bounds[0], hi=bounds[1])


def _check_ranges(sents: list[_Sentence], out: _Out) -> None:
    """Drop range claims that the description itself contradicts (an example or another result)."""
    ranges = [f for _, _, f in out.claims if f["kind"] is ClaimKind.result_range]
    if not ranges:
        return
    others = _other_results(sents)
    for r in ranges:
        bad = _range_violation(r, out, others)
        if bad:
            out.note(r["loc"].line - 1 - out.offset, f"range [{r['lo']}, {r['hi']}] dropped: {bad}")
            out.drop(lambda f, r=r: f is r)


def _other_results(sents: list[_Sentence]) -> list[tuple[int, str]]:
    """Results the prose names (return -1, return None, ...) as (line, value text)."""
    found = []
    rx = re.compile(r"\b(?:return|returns|print|prints|output|outputs)\s+(?P<v>-\s*\d+|\d+|None|null|nil|"
                    r"False|True|inf(?:inity)?|-\s*inf(?:inity)?)\b", re.I)
    for sent in sents:
        if sent.section in ("args", "constraints", "input"):
            continue
        found += [(sent.lines[0], m.group("v")) for m in rx.finditer(sent.text)]
        found += [(sent.lines[0], m.group(0)) for m in re.finditer(r"(?<![\w)\]])-1\b", sent.text)]
    return found


def _range_violation(r: dict, out: _Out, others: list[tuple[int, str]]) -> str | None:
    lo, hi = r["lo"], r["hi"]
    inside = lambda x: (lo is None or x >= lo) and (hi is None or x <= hi)
    for _, _, f in out.claims:
        e = f.get("expect")
        if f["kind"] is ClaimKind.example and e is not None and e.kind is ExpectKind.eq:
            if e.value.kind != "int" or not inside(e.value.val):
                return f"the example at line {f['loc'].line} gives a result outside it"
    for line, v in others:
        n = _int_value(v.replace(" ", "")) if re.fullmatch(r"-?\s*\d+", v) else None
        if n is None or not inside(n):
            return f"line {line + 1 + out.offset} names another possible result ({v})"
    return None


# -- worked examples in prose: Input/Output blocks and phrasings ----------------------------------

_IO_LINE = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?(?P<kind>(?:sample\s+)?(?:input|output))(?:\s*\d+)?"
                      r"(?:\*\*)?\s*:?(?:\*\*)?\s*(?P<rest>.*)$", re.I)
_BLOCK_STOP = re.compile(r"^\s*(?:\*\*)?(?:explanation|example|constraints?|note|input|output)\b", re.I)


def _io_blocks(doc: _Doc, skip: set[int], ctx: _Ctx, out: _Out) -> set[int]:
    """``Input: ...`` / ``Output: ...`` pairs; returns the lines consumed."""
    used: set[int] = set()
    n, i = len(doc.lines), 0
    while i < n:
        m = _IO_LINE.match(doc.lines[i]) if doc.prose[i] and i not in skip else None
        if not m or "input" not in m.group("kind").lower() or not _io_header_ok(doc.lines[i], m):
            i += 1
            continue
        in_text, in_lines, j = _block_text(doc, i, m.group("rest"), skip)
        out.seen_example()
        om = _IO_LINE.match(doc.lines[j]) if j < n else None
        if not om or "output" not in om.group("kind").lower():
            out.note(i, "'Input:' without a following 'Output:'; no claim")
            i = j
            continue
        out_text, out_lines, k = _block_text(doc, j, om.group("rest"), skip)
        if _io_claim(i, in_text, out_text, in_lines + out_lines, ctx, out):
            used.update(in_lines + out_lines)
        i = k
    return used


def _io_header_ok(line: str, m: re.Match) -> bool:
    rest = m.group("rest")
    return ":" in line[: m.start("rest")] or not rest.strip()


def _block_text(doc: _Doc, i: int, first: str, skip: set[int]) -> tuple[str, list[int], int]:
    parts, lines, j = [first.strip()] if first.strip() else [], [i], i + 1
    while j < len(doc.lines) and doc.prose[j] and j not in skip:
        s = doc.lines[j].strip()
        if not s or _BLOCK_STOP.match(s):
            break
        parts.append(s)
        lines.append(j)
        j += 1
    while j < len(doc.lines) and not doc.lines[j].strip() and j - i < 3:
        nxt = j + 1 < len(doc.lines) and _IO_LINE.match(doc.lines[j + 1])
        if not nxt:
            break
        j += 1
    return " ".join(parts).strip().strip("`").strip(), lines, j


def _io_claim(i: int, in_text: str, out_text: str, lines: list[int], ctx: _Ctx, out: _Out) -> bool:
    """Claim one Input/Output pair; False (with a note) when it is not formalized."""
    if ctx.target is None:
        out.note(i, "worked example, but no entry point or signature names the function; no claim")
        return False
    call, why = _named_inputs_call(in_text, ctx)
    value = _output_value(out_text, ctx) if call is not None else None
    if call is None:
        out.note(i, f"worked example skipped: {why}")
    elif value is None:
        out.note(i, f"worked example skipped: output {out_text[:60]!r} is not a literal")
    elif _has_float(value):
        out.note(i, "worked example skipped: float output (prose examples are usually rounded)")
    else:
        out.add(ClaimKind.example, i, lines, call=call, expect=Expect(kind=ExpectKind.eq, value=value))
        return True
    return False


def _named_inputs_call(text: str, ctx: _Ctx) -> tuple[Call | None, str]:
    node = _parse_expr(f"_f({text})") if text else None
    if not isinstance(node, ast.Call):
        return None, "input is not 'name = literal' assignments"
    params = ctx.sig.params if ctx.sig else None
    if params is None:
        return None, "no signature to order the named inputs"
    if any(p.startswith("*") for p in params):
        return None, "the signature has *args/**kwargs"
    if node.args and not node.keywords and len(node.args) == 1 == len(params):
        return _literal_call(ast.Call(func=node.func, args=node.args, keywords=[]), ctx.target, prose=True)
    if node.args:
        return None, "unnamed inputs"
    named = {kw.arg: kw.value for kw in node.keywords}
    if None in named or len(node.keywords) != len(params) or set(named) != set(params):
        return None, f"inputs {sorted(k for k in named if k)} do not name each parameter {list(params)} once"
    return _literal_call(ast.Call(func=node.func, args=[named[p] for p in params], keywords=[]), ctx.target,
                         prose=True)


_FOR_LINE = re.compile(r"^\s*for\s+[A-Za-z_]\w*\s*=.*\b(?:output|result|answer|return\s+value)\b", re.I)


def _for_sentences(doc: _Doc, skip: set[int], ctx: _Ctx, out: _Out) -> set[int]:
    """"For lst = [1, 2, 3] the output should be 14" (one line, grammar in
    :mod:`specguard.formalize.examples`): every parameter bound once, by name; returns the lines read."""
    used: set[int] = set()
    for i, raw in enumerate(doc.lines):
        if i in skip or not doc.prose[i] or not _FOR_LINE.match(raw):
            continue
        out.seen_example()
        if ctx.target is None:
            out.note(i, "worked example, but no entry point or signature names the function; no claim")
            continue
        ex = parse_for_example(raw.strip())
        if ex is None:
            out.note(i, "'For x = ...' sentence not in the form 'For x = v, the output should be r'; no claim")
            continue
        if _io_claim(i, ", ".join(f"{n}={v}" for n, v in ex.bindings), ex.result, [i], ctx, out):
            used.add(i)
    return used


def _output_value(text: str, ctx: _Ctx) -> V | None:
    """A result written in prose: a plain literal display; lowercase ``true``/``false`` (JSON-ish
    prose) when the result may be a bool and the description never quotes them as strings."""
    text = text.strip().strip("`").strip()
    if _redundant_parens(text):
        return None                    # ("Venus") is the string, but probably meant as a 1-tuple
    value = _literal_text(text)
    if value is None and text in ("true", "false") and not ctx.quoted_bools:
        ret = ctx.sig.returns if ctx.sig else None
        if ret is None or _admits(ret, "bool"):
            value = V("bool", text == "true")
    return value


def _redundant_parens(text: str) -> bool:
    """Does the display have more ``(`` (outside strings) than tuples?  In prose, ``("Venus")``
    is meant as a one-element tuple far more often than as the string Python makes of it."""
    node = _parse_expr(text)
    if node is None:
        return False
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return True
    opens = sum(1 for t in toks if t.type == tokenize.OP and t.string == "(")
    calls = sum(1 for n in ast.walk(node) if isinstance(n, ast.Call))
    tuples = sum(1 for n in ast.walk(node) if isinstance(n, ast.Tuple))
    return opens > tuples + calls


_CONNECTOR = re.compile(
    r"\s*(?:\#\s*)?(?:(?P<op>==>|==|->|=>|\u2192|\u21d2|\u279e|\u27f6)|(?P<assign>=(?![=>]))|(?P<raise>(?:should\s+|must\s+|will\s+|would\s+)?(?:raises?|throws?))"
    r"|(?P<ret>(?:should|must|will|would)\s+return|returns|gives|evaluates\s+to|is\s+expected\s+to\s+return))\s*", re.I)
_HYPOTHETICAL = re.compile(r"\b(?:if|suppose|supposing|assume|assuming|unless|whether|when|not|never|cannot|"
                           r"can't|wrong|incorrect|instead|rather|hypothetical(?:ly)?)\b", re.I)
_FOLLOW_OK = re.compile(r"\s*(?:$|[.;:!)\]]|,(?!\s*(?:or|otherwise|unless|but|not)\b)|\(|\u2014|\u2013|-\s|"
                        r"(?:because|since|as)\b)", re.I)
_FOLLOW_BAD = re.compile(r"\b(?:not|wrong|incorrect|isn't|or|unless|only|otherwise|but)\b", re.I)
_EXC_NAME = re.compile(r"(?:an?\s+)?`?(?P<name>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|"
                       r"Iteration|Warning))`?")


def _scan_call_end(s: str, open_idx: int, stop: int | None = None) -> int | None:
    """Index of the ``)`` closing the ``(`` at ``open_idx`` (strings and brackets respected), looking
    no further than ``stop``."""
    i, quote = open_idx, None
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    n = len(s) if stop is None else min(len(s), stop)
    while i < n:
        c = s[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if s.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
        elif c in "'\"":
            quote = s[i:i + 3] if s[i:i + 3] in ('"""', "'''") else c
            i += len(quote)
            continue
        elif c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return None
            if not stack:
                return i
        i += 1
    return None


def _value_end(s: str, pos: int) -> int:
    """End of a literal value starting at ``pos`` (stops at a top-level delimiter or a word)."""
    i, stack, quote = pos, [], None
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            stack.append(c)
        elif c in ")]}":
            if not stack:
                return i
            stack.pop()
        elif not stack:
            if c in ",;`" or (c == "." and (i + 1 == len(s) or s[i + 1].isspace())):
                return i
            if c.isspace() and i > pos and re.match(r"\s+[A-Za-z(\u2014\u2013]", s[i:]) \
                    and not re.match(r"\s+(?:if|else)\b", s[i:]):
                return i
        i += 1
    return i


def _phrasing_claims(doc: _Doc, skip: set[int], ctx: _Ctx, out: _Out) -> None:
    """``f(2) returns 4`` and the like, one line at a time (lines in ``skip`` are not read)."""
    if ctx.target is None:
        return
    call_rx = re.compile(r"(?<![\w.])" + re.escape(ctx.target) + r"\s*\(")
    ctx.formula = _defines_by_formula(doc, call_rx, ctx)
    budget = _PHRASE_CALLS
    for i, raw in enumerate(doc.lines):
        if i in skip or not doc.prose[i]:
            continue
        for m in call_rx.finditer(raw):
            if budget == 0:
                out.note(i, f"more than {_PHRASE_CALLS} calls of {ctx.target} in prose; the rest are not read")
                return
            budget -= 1
            _phrasing_at(raw, i, m, ctx, out)


# how far around a call in prose the phrase rules look (each call costs at most this much work, and at
# most _PHRASE_CALLS calls are read, so the work stays linear); a sentence that reaches past it is not read
_PHRASE_WINDOW = 2000
_CALL_WINDOW = 500       # a call in prose longer than this is not read
_PHRASE_CALLS = 2000     # calls in prose read per description


def _defines_by_formula(doc: _Doc, call_rx: re.Pattern, ctx: _Ctx) -> bool:
    """Does some prose line write ``f(...) = <something that is not a literal>`` or ``f(n) = ...``
    (non-literal arguments)?  Then ``=`` lines define a sequence in mathematical notation, which
    need not be what the function returns (``tri(4) = 3`` while ``tri`` returns a list)."""
    budget = _PHRASE_CALLS
    for i, raw in enumerate(doc.lines):
        if not doc.prose[i]:
            continue
        for m in call_rx.finditer(raw):
            if budget == 0:
                return False
            budget -= 1
            close = _scan_call_end(raw, m.end() - 1, m.end() + _CALL_WINDOW)
            if close is None:
                continue
            c = _CONNECTOR.match(raw, close + 1 + (raw[close + 1:close + 2] == "`"))
            if c is None or not c.group("assign"):
                continue
            node = _parse_expr(raw[m.start():close + 1])
            if not isinstance(node, ast.Call) or _literal_call(node, ctx.target, prose=True)[0] is None:
                return True
            end = _value_end(raw, c.end())
            if _literal_text(raw[c.end():end].strip().strip("`")) is None or re.match(r"\s*=", raw[end:]):
                return True
    return False


def _phrasing_at(s: str, i: int, m: re.Match, ctx: _Ctx, out: _Out) -> None:
    close = _scan_call_end(s, m.end() - 1, m.end() + _CALL_WINDOW)
    if close is None:
        return
    node = _parse_expr(s[m.start():close + 1])
    if not isinstance(node, ast.Call):
        return
    call, why = _literal_call(node, ctx.target, prose=True)
    if call is None:
        return                                         # a general formula such as f(n) = ...
    out.seen_example()
    after = close + 1 + (s[close + 1:close + 2] == "`")
    c = _CONNECTOR.match(s, after)
    before = re.split(r"[.;!?]\s", s[max(0, m.start() - _PHRASE_WINDOW):m.start()])
    sentence_before = before[-1]
    if c is not None and len(before) == 1 and m.start() > _PHRASE_WINDOW:
        out.note(i, f"call {call.source(60)} in a sentence over {_PHRASE_WINDOW} characters; no claim")
        return
    if c is None:
        out.note(i, f"call {call.source(60)} in prose without a recognised result phrase; no claim")
        return
    if c.group("assign") and _DEFINITION.search(sentence_before):
        out.note(i, f"`{call.source(60)} = ...` in a definition ('let', 'define'); no claim")
        return
    if c.group("assign") and ctx.formula:
        out.note(i, f"`{call.source(60)} = ...` not read: the description defines {ctx.target} by formulas "
                    "(`= ...` lines may be about a mathematical sequence, not the function's result)")
        return
    if _HYPOTHETICAL.search(sentence_before):
        out.note(i, f"call {call.source(60)} in a conditional or negated sentence; no claim")
        return
    expect, end, why = _phrase_expect(s, c, ctx)
    if expect is None:
        out.note(i, f"phrase about {call.source(60)} skipped: {why}")
        return
    rest = s[end:end + _PHRASE_WINDOW]
    head = re.split(r"[.;!?](?:\s|$)", rest)[0]
    if head == rest and len(s) - end > _PHRASE_WINDOW:
        out.note(i, f"phrase about {call.source(60)} is in a sentence over {_PHRASE_WINDOW} characters; no claim")
        return
    if not _FOLLOW_OK.match(rest) or _FOLLOW_BAD.search(head):
        out.note(i, f"phrase about {call.source(60)} is qualified by what follows; no claim")
        return
    out.add(ClaimKind.example, i, [i], call=call, expect=expect)


_WORKED_END = re.compile(r"\s*=\s*(?P<v>-?\d+)(?!\s*[\d*/^%+\-\u00d7(=]|\.\d|\d)")


def _worked_sum(s: str, pos: int) -> tuple[int, int] | None:
    """``-> 19 - 5 - 6 = 8``, ``== 1 + 9 + 0 + 0 = 10``: integer arithmetic worked out to a stated
    integer; the stated integer is the result only when the arithmetic gives exactly it (issue 12,
    item 6).  (value, end) or None."""
    m = re.match(r"\s*", s[pos:])
    start = pos + m.end()
    r = _NumParser(s).parse(start) if s[start:start + 1].isdigit() else None
    if r is None or not re.search(r"[+\-*\u00d7]", s[start:r[1]]):
        return None                       # a single number: the ordinary reading
    e = _WORKED_END.match(s, r[1])
    value = r[0]
    if e is None or int(e.group("v")) != value:
        return None
    return value, e.end()


def _phrase_expect(s: str, c: re.Match, ctx: _Ctx) -> tuple[Expect | None, int, str]:
    pos = c.end()
    if c.group("raise"):
        e = _EXC_NAME.match(s, pos)
        if not e:
            return None, pos, "no exception class name"
        return Expect(kind=ExpectKind.raises, exc=(e.group("name"),)), e.end(), ""
    pos += s[pos:pos + 1] == "`"
    worked = _worked_sum(s, pos)
    if worked is not None:
        return Expect(kind=ExpectKind.eq, value=V("int", worked[0])), worked[1], ""
    end = _value_end(s, pos)
    text = s[pos:end]
    value = _output_value(text, ctx)
    if value is None:
        return None, end, f"{text.strip()[:60]!r} is not a literal"
    if _has_float(value):
        return None, end, "float result (prose examples are usually rounded)"
    return Expect(kind=ExpectKind.eq, value=value), end + (s[end:end + 1] == "`"), ""


# -- the entry function --------------------------------------------------------------------------

def _dedupe_examples(out: _Out) -> None:
    """Keep the first of identical example claims.  Examples of one call that disagree show a
    function that keeps state between calls (``next_id()`` giving 1, then 2), or a typo: none of
    them is used (a note says so), never a conflict between them."""
    first: dict[str, dict] = {}
    per_eval: dict[str, dict[tuple, set]] = {}      # call key -> evaluation -> the expects it shows
    for _, _, f in out.claims:
        if f["kind"] is ClaimKind.example:
            key = f["call"].key()
            first.setdefault(key, f)
            per_eval.setdefault(key, {}).setdefault(out.evaluations.get(id(f), ("claim", id(f))), set()).add(
                f["expect"].model_dump_json())
    # one evaluation may show several observations; separate evaluations must show the same ones
    disagree = {key for key, evs in per_eval.items() if len({frozenset(e) for e in evs.values()}) > 1}
    out.examples_read = sum(1 for _, _, f in out.claims
                            if f["kind"] is ClaimKind.example and f["call"].key() not in disagree)
    keep, seen = [], set()
    for item in out.claims:
        f = item[2]
        if f["kind"] is not ClaimKind.example:
            keep.append(item)
            continue
        key = f["call"].key()
        if key in disagree:
            prev = first[key]
            if f is not prev:
                out.note(item[0], f"this example of {f['call'].source(60)} disagrees with line {prev['loc'].line} "
                                  "(state kept between calls, or a typo): neither is used")
            continue
        ident = (key, f["expect"].model_dump_json())
        if ident not in seen:
            seen.add(ident)
            keep.append(item)
    out.claims = keep


def _decode(text: str | bytes, out: _Out) -> str:
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError:
            out.note(None, "description is not valid UTF-8; undecodable bytes replaced")
            return text.decode("utf-8", errors="replace")
    return text


# -- bug reports: what they show is observed behaviour, not a requirement ---------------------

# a description that reads as a bug report (SWE-bench problem statements, issues): its examples
# typically show the behaviour to be fixed
_REPORT = re.compile(
    r"\b(bug|regression|workaround)\b|\bi (get|got|see|saw|am getting|observed?)\b|\bwe (get|got|see|saw)\b"
    r"|steps to reproduce|\bto reproduce\b|\bexpected behaviou?r\b|\bactual (behaviou?r|result|output)s?\b"
    r"|\bcurrently (returns?|gives?|produces?|raises?|outputs?|prints?|fails?)\b"
    r"|\bwrong (results?|values?|outputs?|answers?)\b|\b(returns?|gives?|produces?) (the |a )?wrong\b", re.I)
# text right after an example that says it is not what should happen ("... but the expected result is")
_AFTER_EXAMPLE = re.compile(r"\b(but|however|instead|should|expected|actual(ly)?|wrong|incorrect(ly)?|bug)\b", re.I)
# text right before an example that presents it as observed ("Currently, ...:", "but this gives:")
_BEFORE_EXAMPLE = re.compile(r"\b(but|however|instead|currently|actual(ly)?|wrong|incorrect(ly)?|bug|i get|i got|"
                             r"we get|we got)\b", re.I)
_NOT_PROSE = (">>>", "...", "```", '"""', "'''")
# a hedge on the example's own line: "f(2) returns 4 (roughly)", "... typically ..."
_HEDGE = re.compile(r"\b(roughly|approximately|approx|about|around|typically|usually|often|generally|might|may|could|"
                    r"probably|likely|nearly|almost|sometimes)\b", re.I)


def _observed(out: _Out, text: str, report: bool) -> None:
    """Drop what a bug report shows: every claim when the description reads as one (or the task
    says so: ``report``), else each example whose neighbouring prose presents it as observed
    rather than required."""
    m = _REPORT.search(text)
    if report or m:
        if out.claims:
            why = "it is a problem statement" if report else f"it says {m.group(0)!r}"
            out.note(None, f"the description reads as a bug report ({why}): what it shows is observed behaviour, "
                           f"not a requirement; {len(out.claims)} statement(s) not used")
        out.claims = []
        return
    keep = []
    for c in out.claims:
        if c[2]["kind"] is ClaimKind.example:
            before, after = _neighbours(out.lines, c[0])
            own = "" if out.lines[c[0]].strip().startswith(_NOT_PROSE) else out.lines[c[0]]
            hit = _contrast(_AFTER_EXAMPLE, after) or _contrast(_BEFORE_EXAMPLE, before) \
                or _contrast(_BEFORE_EXAMPLE, own) or _HEDGE.search(own)
            if hit:
                out.note(c[0], f"example not used: the prose next to it ({hit.group(0)!r}) presents it as "
                               f"observed, not required behaviour")
                continue
        keep.append(c)
    out.claims = keep


# what a contrast word ("but", "however") must come with to present an example as observed: words
# about what the code gives ("but this gives:", "however it returns"), not a "but" inside the
# statement of what the function does ("..., but sorted.", "..., but it's unbalanced.")
_SHOWN = re.compile(r"\b(?:gives?|gave|returns?|returned|outputs?|prints?|printed|shows?|showed|get|gets|got|"
                    r"produces?|produced|results?|yields?|yielded|evaluates?|raises?|raised)\b", re.I)


def _contrast(rx: re.Pattern, text: str) -> re.Match | None:
    """``rx``'s first hit in ``text`` that presents an example as observed (issue 12, item 6)."""
    for m in rx.finditer(text):
        if m.group(0).lower() not in ("but", "however") or _SHOWN.search(text):
            return m
    return None


def _neighbours(lines: list[str], i: int) -> tuple[str, str]:
    """The prose line before the example starting at line ``i`` and the one after it (blank
    lines skipped; doctest lines, code fences and docstring quotes are not prose)."""
    def prose(j: int) -> str:
        t = lines[j].strip()
        return "" if t.startswith(_NOT_PROSE) else t
    j = i - 1
    while j >= 0 and (not lines[j].strip() or lines[j].strip().startswith((">>>", "..."))):
        j -= 1
    before = prose(j) if j >= 0 else ""
    k = i + 1
    while k < len(lines) and lines[k].strip() and not lines[k].strip().startswith(">>>"):
        k += 1                                           # the example's own output lines
    while k < len(lines) and not lines[k].strip():
        k += 1
    after = prose(k) if k < len(lines) else ""
    return before, after


# a description that allows several answers: its examples show one of them, not the only one
_LATITUDE = re.compile(
    r"\b((return|output|print|find|give)s? any\b|any (one )?of (them|these|those)\b|any (valid|such|possible)\b"
    r"|any (shortest|longest|optimal|minimal|maximal|one)\b|one possible\b|a possible (answer|solution|output)"
    r"|(multiple|several|many|more than one) (valid |possible |correct |optimal )?(answers|solutions|outputs|results)"
    r"|if there are (multiple|several|many|more)\b|not (necessarily )?unique\b"
    r"|(other|another) (valid |possible |correct |acceptable )?(answers?|solutions?|outputs?)\b"
    r"|\b(also|equally) (valid|correct|accepted|acceptable)\b)", re.I)
_ORDER_FREE = re.compile(r"\b(in any order|in an arbitrary order|(any|arbitrary) order\b|no particular order"
                         r"|order\b[^.;]{0,40}\b(does not|doesn't|do not|don't|need not|needn't) matter"
                         r"|regardless of (the )?order|unordered|arbitrar(y|ily)|\b(of|is|be) any\b)", re.I)
_ABOUT_RESULT = re.compile(r"\b(return|returns|returned|output|outputs|print|answer|result|results)\b", re.I)


def _latitude(out: _Out, text: str) -> None:
    """When the description allows several answers ("in any order", "return any of them"), an
    example shows one of them: examples are not used (a note says why)."""
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n\s*\n", text):
        m = _LATITUDE.search(sentence)
        if m is None:
            m = _ORDER_FREE.search(sentence)
            if m is not None and not _ABOUT_RESULT.search(sentence):
                m = None
        if m is not None:
            n = sum(1 for c in out.claims if c[2]["kind"] is ClaimKind.example)
            if n:
                out.note(None, f"the description allows several answers ({m.group(0)!r}): its {n} example(s) show "
                               f"one of them, not a requirement")
            out.claims = [c for c in out.claims if c[2]["kind"] is not ClaimKind.example]
            return


def _without_sources(lines: list[str], examples: list[_Example]) -> str:
    """The description without its ``>>>`` source lines: a session's own ``print(...)`` calls say
    nothing of whether the function prints."""
    src = {j for ex in examples for j in ex.src_lines}
    return "\n".join(line for j, line in enumerate(lines) if j not in src)


def formalize_description(text: str | bytes, *, path: str = "<description>", entry_point: str | None = None,
                          line_offset: int = 0, report: bool = False) -> DescFormalization:
    """Formalize a description with deterministic rules (see the module docstring).

    ``text`` is the description (a ``str``; ``bytes`` are decoded as UTF-8 with
    replacement).  ``entry_point`` names the function under test; without it the
    description's ``def`` (or the one function its examples call) is used.  ``report``: the
    description is a problem statement (an issue): nothing it shows is taken as required.
    """
    out = _Out(path, line_offset, [])
    text = _decode(text, out)
    out.lines = _NEWLINE.split(text)
    tree = _parse_stub(text)
    d = _choose_def(_defs_from_tree(tree) if tree is not None else _defs_from_prose(out.lines), entry_point, out)
    sig = _signature(d, out)
    doc = _build_doc(out.lines, tree, d, out, entry_point)
    examples = _read_examples(doc)
    target = entry_point or (sig.name if sig else None) or _infer_target(examples, doc)
    ctx = _Ctx(target, sig, bool(_TOLERANCE.search(text)), stub=tree is not None,
               prints=bool(_PRINTS.search(_without_sources(out.lines, examples))),
               quoted_bools=bool(_QUOTED_BOOL.search(text)))
    _doctest_claims(examples, ctx, out, objects.doctest_sessions(examples, ctx, out))
    skip = {j for ex in examples for j in ex.src_lines + ex.want_lines} | set(d.lines if d else [])
    skip |= _io_blocks(doc, skip, ctx, out)
    skip |= _for_sentences(doc, skip, ctx, out)
    paras = _paragraphs(doc, skip)
    explanations = {i for section, items in paras if section == "explanation" for i, _ in items}
    _phrasing_claims(doc, skip | explanations, ctx, out)
    sents = _sentences(paras)
    _modulus_claims(sents, ctx, out)
    _bound_claims(sents, ctx, out)
    _check_ranges(sents, out)
    _observed(out, text, report)
    _latitude(out, text)
    _dedupe_examples(out)
    if not out.claims:
        out.note(None, "nothing to formalize: no typed signature, examples or result bounds found")
    return out.result(sig)
