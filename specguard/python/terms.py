"""Observations: an assertion (or a doctest line) that applies Python operations to the result
of ONE call of the function under test, ``sorted(f(x)) == [1, 2]``, ``f(x)[0] == 5``,
``3 in f(x)``, ``len(f(x)) > 2``, becomes one ``obs`` expectation of that call.

Both front ends (:mod:`specguard.formalize.tests`, :mod:`specguard.formalize.description`) use
:func:`build`: the call (every occurrence of it: the same call may appear several times) is
replaced by the name :data:`specguard.formalize.speclang.OBS_VAR`, every sub-expression that does not use
it by its exact literal value (computed by :mod:`specguard.python.literals`), and the result is
SpecGuard's own rendering of the expression (``ast.unparse``).  What that expression means, and
which operations on the result are sound on its ``==``-class, is decided in one place:
:func:`specguard.formalize.speclang.compile_observation` (checked here already, so an expression outside
it is reported at its line with the reason).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Callable

from specguard.formalize import speclang
from specguard.python import multiterm
from specguard.python.literals import NotLiteral
from specguard.python.values import V

OBS_VAR = speclang.OBS_VAR
MAX_TEXT = 4000
FLOAT_REASON = "a float in an observation (the spec language has no floats)"

# builtins an observation may call (the spec language decides what each does to the result)
BUILTINS = frozenset({"len", "sorted", "set", "frozenset", "sum", "min", "max", "any", "all", "list", "tuple",
                      "dict", "abs", "bool", "int", "reversed", "enumerate", "zip", "range", "ord", "chr",
                      "str", "repr", "divmod", "pow"})


# builtins an observation may pass as ``key=`` of sorted/min/max (one argument each)
KEY_BUILTINS = frozenset({"len", "abs", "bool", "int", "str", "repr", "ord", "chr", "list", "tuple"})


class NotObservation(Exception):
    """The expression is not an observation; ``reason`` says why; ``unsound``: it applies an
    operation to the result that is not sound on its ``==``-class (a more useful reason than a
    reading that does not know observations)."""

    def __init__(self, reason: str, unsound: bool = False) -> None:
        self.reason, self.unsound = reason, unsound
        super().__init__(reason)


@dataclass
class Built:
    text: str                                   # the expression over OBS_VAR
    calls: list = field(default_factory=list)   # the nodes replaced by OBS_VAR (calls or result names)
    literals: list = field(default_factory=list)  # the sub-expressions replaced by their values


def value_ast(v: V, floats: bool = False) -> ast.expr:
    """An expression node denoting the exact value ``v`` (plain data only); ``floats``: a finite
    float is its constant (whose repr reads back exactly), for the one form that needs no float
    semantics (:func:`specguard.python.iterate.float_list_eq`)."""
    k = v.kind
    if k in ("none", "bool", "int", "str"):
        return ast.Constant(v.val)
    if k == "float":
        if floats and math.isfinite(v.val):
            return ast.Constant(v.val)
        raise NotObservation(FLOAT_REASON)
    sub = (lambda x: value_ast(x, floats))
    if k == "list":
        return ast.List([sub(x) for x in v.val], ast.Load())
    if k == "tuple":
        return ast.Tuple([sub(x) for x in v.val], ast.Load())
    if k in ("set", "frozenset"):
        if not v.val:
            return ast.Call(ast.Name("set", ast.Load()), [], [])
        return ast.Set([sub(x) for x in v.val])
    if k == "dict":
        return ast.Dict([sub(a) for a, _ in v.val], [sub(b) for _, b in v.val])
    if k == "obj" and v.val[0] == "range":
        return ast.Call(ast.Name("range", ast.Load()), [sub(x) for x in v.val[1].val], [])
    raise NotObservation(f"a {k} value in an observation")


def _lambda_params(lam: ast.Lambda) -> set[str]:
    a = lam.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None}


def _bound_names(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.comprehension):
            out |= {x.id for x in ast.walk(n.target) if isinstance(x, ast.Name)}
        elif isinstance(n, ast.Lambda):
            out |= _lambda_params(n)
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
    return out


def _free_names(node: ast.AST) -> set[str]:
    """Names ``node`` reads that no lambda or comprehension inside ``node`` binds (a call
    ``f('x', lambda c: c == 'x')`` does not depend on ``c``; ``f(c)`` in ``lambda c: f(c)`` does).
    Over-approximated: a comprehension's own targets are taken as bound in all of it."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Lambda):
        a = node.args
        defaults = [d for d in a.defaults + a.kw_defaults if d is not None]
        return set().union(*(_free_names(d) for d in defaults)) | (_free_names(node.body) - _lambda_params(node))
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        targets = {x.id for g in node.generators for x in ast.walk(g.target) if isinstance(x, ast.Name)}
        first = _free_names(node.generators[0].iter)
        rest = set().union(*(_free_names(c) for c in ast.iter_child_nodes(node)
                             if c is not node.generators[0]))
        rest |= set().union(*(_free_names(x) for g in node.generators for x in [*g.ifs]
                              + ([g.iter] if g is not node.generators[0] else [])))
        return first | (rest - targets)
    out: set[str] = set()
    for c in ast.iter_child_nodes(node):
        if isinstance(c, ast.comprehension):
            continue
        out |= _free_names(c)
    return out


def build(expr: ast.expr, *, is_call: Callable[[ast.AST], bool], literal: Callable[[ast.expr], V],
          builtin: Callable[[str], bool], term_of: Callable[[ast.AST], ast.expr | None] | None = None,
          check: bool = True, var_of: Callable[[ast.AST], str] | None = None, floats: bool = False) -> Built:
    """The observation text of ``expr``; ``is_call(node)``: the node denotes the result (a call
    of the function under test, or a name bound to its result); ``literal(node)``: the exact value
    of a sub-expression (raises NotLiteral); ``builtin(name)``: ``name`` is Python's builtin there;
    ``term_of(node)``: for a name bound to a term over the result (``actual = list(f(x))``,
    :mod:`specguard.python.named`), that term's expression over OBS_VAR (put in its place);
    ``check``: the text must be an observation the spec language compiles; ``var_of(node)``: the
    name that stands for that result (several calls in one assertion, :mod:`specguard.python.multiterm`;
    default OBS_VAR); ``floats``: finite float literals are kept as constants (see :func:`value_ast`).
    Raises NotObservation."""
    out = Built("")
    local = _bound_names(expr)

    def uses(node: ast.AST) -> bool:
        return any(is_call(n) or (isinstance(n, ast.Name) and n.id in local) for n in ast.walk(node))

    def go(node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr) and is_call(node):
            if _free_names(node) & local:
                raise NotObservation("a call of the function under test inside a comprehension or lambda (one "
                                     "call per item: an observation reads one call)")
            out.calls.append(node)
            term = term_of(node) if term_of is not None else None
            name = var_of(node) if var_of is not None else OBS_VAR
            if term is not None and name != OBS_VAR:
                term = _renamed(term, name)
            return term if term is not None else ast.Name(name, ast.Load())
        if isinstance(node, ast.Name):
            if node.id in local:
                return node
            if node.id == OBS_VAR or (var_of is not None and multiterm.is_var(node.id)):
                raise NotObservation(f"a test name `{OBS_VAR}` in an observation")
        if isinstance(node, ast.expr) and not isinstance(node, (ast.Lambda, ast.Starred)) and not uses(node):
            try:
                v = literal(node)
            except NotLiteral as e:
                if not isinstance(node, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Subscript,
                                         ast.IfExp, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Slice)):
                    raise NotObservation(f"`{snippet(node)}` is not a literal: {e.reason}") from None
            else:
                out.literals.append(node)
                return value_ast(v, floats)
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                if f.id not in BUILTINS or f.id in local or not builtin(f.id):
                    raise NotObservation(f"`{f.id}(...)` applied to the result is not a builtin the spec "
                                         f"language models")
                func = ast.Name(f.id, ast.Load())
            elif isinstance(f, ast.Attribute):
                func = ast.Attribute(go(f.value), f.attr, ast.Load())
            else:
                raise NotObservation(f"call of `{snippet(f)}` in an observation")
            return ast.Call(func, [go(a) for a in node.args],
                            [ast.keyword(k.arg, key_function(k.value) if k.arg == "key" else go(k.value))
                             for k in node.keywords])
        if isinstance(node, ast.Lambda):
            return ast.Lambda(node.args, go(node.body))
        if isinstance(node, (ast.expr, ast.comprehension, ast.keyword)):
            new = type(node)()
            for name, val in ast.iter_fields(node):
                if name == "ctx":
                    setattr(new, name, val)
                elif isinstance(val, list):
                    setattr(new, name, [go(x) if isinstance(x, ast.AST) and not _is_op(x) else x for x in val])
                elif isinstance(val, ast.AST) and not _is_op(val):
                    if name == "target" and isinstance(node, ast.comprehension):
                        setattr(new, name, val)
                    else:
                        setattr(new, name, go(val))
                else:
                    setattr(new, name, val)
            return new
        raise NotObservation(f"`{type(node).__name__}` in an observation")

    def key_function(node: ast.expr) -> ast.expr:
        # `key=len`: a builtin passed as a function (not a value); the spec language decides
        # which builtins it models as keys (`len`, `abs`, `str`, `int`, ..., `str.lower`/`str.upper`)
        if isinstance(node, ast.Name) and node.id in KEY_BUILTINS and node.id not in local and builtin(node.id):
            return ast.Name(node.id, ast.Load())
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "str" \
                and node.attr in ("lower", "upper") and "str" not in local and builtin("str"):
            return ast.Attribute(ast.Name("str", ast.Load()), node.attr, ast.Load())
        return go(node)

    try:
        new = go(expr)
        text = ast.unparse(ast.fix_missing_locations(new))
    except RecursionError:
        raise NotObservation("expression nested too deeply") from None
    if not out.calls:
        raise NotObservation("the expression does not use the result")
    if len(text) > MAX_TEXT:
        raise NotObservation(f"observation longer than {MAX_TEXT} characters")
    out.text = text
    if check:
        compiles(text)
    return out


def _renamed(term: ast.expr, name: str) -> ast.expr:
    """A copy of ``term`` (an expression over OBS_VAR) with OBS_VAR renamed ``name``."""
    import copy
    new = copy.deepcopy(term)
    for n in ast.walk(new):
        if isinstance(n, ast.Name) and n.id == OBS_VAR:
            n.id = name
    return new


def compiles(text: str) -> None:
    """Raises NotObservation unless ``text`` is an observation the spec language compiles."""
    if len(text) > MAX_TEXT:
        raise NotObservation(f"observation longer than {MAX_TEXT} characters")
    try:
        speclang.observation(text)
    except speclang.ObservationError as e:
        raise NotObservation(str(e), e.unsound) from None


def _is_op(x: ast.AST) -> bool:
    return isinstance(x, (ast.operator, ast.cmpop, ast.unaryop, ast.boolop, ast.expr_context))


def snippet(node: ast.AST, limit: int = 40) -> str:
    """The source of ``node`` for a message, cut to ``limit`` characters."""
    try:
        s = ast.unparse(node)
    except Exception:       # noqa: BLE001 - only for a message
        s = type(node).__name__
    return s if len(s) <= limit else s[: limit - 3] + "..."


def type_test(left: ast.expr, op: ast.cmpop, right: ast.expr) -> tuple[ast.Call, ast.expr] | None:
    """``type(x) is T`` / ``type(x) == T`` (either side) / ``type(x) in (T1, T2)``: the
    ``type(x)`` call and the type expression, read as ``isinstance(x, T)``, which each implies
    (``type(True) is int`` is false, ``isinstance(True, int)`` true: a weakening, never more);
    None for any other comparison (``is not``/``!=`` are not isinstance).  The caller checks
    that ``type`` is the builtin and ``T`` builtin type names."""
    def is_type_call(n: ast.expr) -> bool:
        return (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "type"
                and len(n.args) == 1 and not n.keywords and not isinstance(n.args[0], ast.Starred))
    def of_literal(n: ast.expr) -> bool:      # `type([])`: a type named by an exact value's
        return is_type_call(n) and isinstance(n.args[0], (ast.Constant, ast.List, ast.Tuple, ast.Dict))
    if isinstance(op, (ast.Is, ast.Eq)):
        if is_type_call(left) and not of_literal(left) and (not is_type_call(right) or of_literal(right)):
            return left, right
        if is_type_call(right) and not of_literal(right) and (not is_type_call(left) or of_literal(left)):
            return right, left
    if isinstance(op, ast.In) and is_type_call(left) and isinstance(right, ast.Tuple) and right.elts:
        return left, right
    return None


def count_equal(first: ast.expr, second: ast.expr, want: V) -> ast.expr:
    """``assertCountEqual(first, second)`` with ``second`` the exact value ``want``, as one
    observation over ``first``:

        [[L.count(e1), ..., L.count(em), len(L)] for L, _ in [(list(first), second)]] == [[k1, ..., km, n]]

    where ``e1..em`` are the ``==``-classes of ``list(second)`` (their canonical representatives, in
    order of first appearance), ``ki`` how often each occurs and ``n`` its length.  unittest passes when
    ``Counter(list(first)) == Counter(list(second))`` (or, for unhashable items, the same counts
    by ``==``): on plain data ``==`` is an equivalence whose classes hash alike, so that is "each
    class occurs as often, and nothing else occurs", which the counts and the length say
    (``list.count`` counts by ``==``; an item equal to no ``ei`` makes the length differ).  Both
    arguments are evaluated once, ``first`` before ``second``, as in the call (``second`` stays in
    the expression, so a literal sharing an object with the call's arguments is refused as
    anywhere else).  Refused: NaN in ``second`` (``==`` is not reflexive there), a ``second``
    that is not a list, tuple, set, frozenset, str or dict (its keys)."""
    from specguard.python.values import canon, contains_nan, contains_obj, sort_key
    if want.kind in ("list", "tuple", "set", "frozenset"):
        items = list(want.val)
    elif want.kind == "str":
        items = [V("str", c) for c in want.val]
    elif want.kind == "dict":
        items = [k for k, _ in want.val]
    else:
        raise NotObservation(f"the expected value is a {want.kind}, not a collection")
    if contains_nan(want) or contains_obj(want):
        raise NotObservation("the expected value holds a NaN or an object (`==` is not an equivalence there)")
    classes: dict[str, list] = {}
    for x in items:
        classes.setdefault(sort_key(canon(x)), [x, 0])[1] += 1
    name = "_items"
    used = {n.id for n in ast.walk(first) if isinstance(n, ast.Name)} | {n.id for n in ast.walk(second)
                                                                          if isinstance(n, ast.Name)}
    while name in used or name + "_" in used:
        name += "_"
    seq = ast.Name(name, ast.Load())
    counts = [ast.Call(ast.Attribute(seq, "count", ast.Load()), [value_ast(canon(x))], [])   # 1.0 counted as 1
              for x, _ in classes.values()]
    row = ast.List([*counts, ast.Call(ast.Name("len", ast.Load()), [seq], [])], ast.Load())
    target = ast.Tuple([ast.Name(name, ast.Store()), ast.Name(name + "_", ast.Store())], ast.Store())
    pair = ast.Tuple([ast.Call(ast.Name("list", ast.Load()), [first], []), second], ast.Load())
    comp = ast.ListComp(row, [ast.comprehension(target, ast.List([pair], ast.Load()), [], 0)])
    expected = ast.List([ast.List([*(ast.Constant(k) for _, k in classes.values()), ast.Constant(len(items))],
                                  ast.Load())], ast.Load())
    return ast.fix_missing_locations(ast.Compare(comp, [ast.Eq()], [expected]))
