"""Functions returning iterators (#12.3): observed through what consumes them.

When every assertion and description example about the function under test reads its result
through ``list(...)`` / ``tuple(...)`` / ``'SEP'.join(...)`` of a fresh call, or through consumers that
see only its items (``sorted``, ``set``, ``frozenset``, ``sum``, ``min``, ``max``, ``any``, ``all``), the task
is modelled with the derived function ``g = list ∘ f`` instead of ``f``: ``list(f(x)) == v``
becomes the exact ``g(x) == v``, ``tuple(f(x)) == t`` becomes ``g(x) == list(t)``, and the other
observations keep their text (each of those consumers gives the same on ``f(x)`` and on
``list(f(x))``, a plain list).  Every clause about ``g`` is implied by the assertion about ``f``,
so a conflict about ``g`` is one about ``f``.

Not done (and why):

* any direct use of the result (``f(x) == [...]``, ``len(f(x))``, ``f(x)[0]``, ``next(f(x))``)
  keeps ``f`` for the whole task, the ``list(...)`` readings then stay observations of ``f``
  (never combined with clauses about ``g``);
* ``x in f(x)``: on a str result it is a substring test, not membership in ``list(f(x))``;
* a result read through a name bound earlier (``r = f(x)``): an iterator is consumed by its
  first reader, so a second ``list(r)`` sees fewer items than ``list(f(x))``.

The description's return annotation ``Iterator[T]`` / ``Generator[T, ...]`` / ``Iterable[T]`` /
``list[T]`` becomes ``list[T]`` for ``g``; other universal claims about ``f`` are dropped with a
note.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from specguard.python import multiterm
from specguard.python.literals import NotLiteral, eval_literal
from specguard.models import Claim, ClaimKind, Demand, Expect, ExpectKind, TypeExpr
from specguard.formalize.speclang import OBS_VAR
from specguard.python.values import V

# consumers that see only the items of their (first) argument, in the order a for loop gives
_ITEM_CONSUMERS = frozenset({"list", "tuple", "sorted", "set", "frozenset", "sum", "min", "max", "any", "all"})
_ITERATOR_TYPES = frozenset({"iterator", "generator", "iterable", "list", "sequence"})

NOTE = ("observed through list(...): every reading of the result consumes it as an iterable, so the function is "
        "modelled as list(f(...)) (each clause about it is implied by the assertion about f)")
ASSUMPTION = ("The function is observed through list(...): the model is list(f(...)), the list of the items "
              "its result gives when iterated; what the certificate shows about it holds for f's results as "
              "the tests and description consume them.")


@dataclass
class ListView:
    demands: tuple[Demand, ...]
    claims: list[Claim]
    notes: tuple[str, ...]


def _uses_only_items(text: str) -> tuple[bool, bool]:
    """(every use of the result is the first argument of an item consumer, some use is list/tuple)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return False, False
    ok_nodes = set()
    wrapped = False
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _ITEM_CONSUMERS \
                and n.args and isinstance(n.args[0], ast.Name) and multiterm.is_var(n.args[0].id):
            ok_nodes.add(id(n.args[0]))
            wrapped |= n.func.id in ("list", "tuple")
        elif _str_join(n) and isinstance(n.args[0], ast.Name) and multiterm.is_var(n.args[0].id):
            # 'SEP'.join(r) makes a list of r's items first, then joins: the same on list(r), and
            # like list(r) it consumes the whole result
            ok_nodes.add(id(n.args[0]))
            wrapped = True
        if isinstance(n, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
            ok_nodes.update(_one_pass_items(n.generators[0].iter))
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and multiterm.is_var(n.id)]   # every call's
    return bool(uses) and all(id(n) in ok_nodes for n in uses), wrapped


def _str_join(n: ast.AST) -> bool:
    """``'SEP'.join(x)``: one positional argument, a str literal separator."""
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "join" \
        and isinstance(n.func.value, ast.Constant) and type(n.func.value.value) is str \
        and len(n.args) == 1 and not n.keywords


def _one_pass_items(it: ast.expr) -> set[int]:
    """The result names that the first iterable ``it`` of a comprehension iterates once, in order,
    item by item (``for p in result``, ``enumerate(result)``, ``zip(result, [1, 2])``): Python
    evaluates that iterable once (later generators' iterables are evaluated again per item), and
    each of these sees the same items from an iterator as from ``list`` of it.  A loop over a
    result read as ``all(... for p in result)`` (specguard/python/loops.py) is of this kind."""
    if isinstance(it, ast.Name) and multiterm.is_var(it.id):
        return {id(it)}
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and not it.keywords \
            and not any(isinstance(a, ast.Starred) for a in it.args):
        names = [a for a in it.args if isinstance(a, ast.Name) and multiterm.is_var(a.id)]
        if it.func.id == "enumerate" and 1 <= len(it.args) <= 2 and it.args[0] in names[:1]:
            return {id(it.args[0])}
        if it.func.id == "zip" and names and len({a.id for a in names}) == len(names):
            # (one result twice, `zip(r, r)`, pairs an iterator's items differently from a list's)
            return {id(a) for a in names}
    return set()


def _as_list_eq(text: str) -> Expect | None:
    """``list(result) == v`` / ``tuple(result) == t`` (either side; ``!=`` too) as an exact
    ``eq``/``ne`` of ``g``'s result; None when the expression is not of that form."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = node.left, node.comparators[0]

    def wrapper(n):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("list", "tuple") \
                and len(n.args) == 1 and not n.keywords and isinstance(n.args[0], ast.Name) and n.args[0].id == OBS_VAR:
            return n.func.id
        return None
    w = wrapper(left)
    other = right
    if w is None:
        w, other = wrapper(right), left
    if w is None:
        return None
    try:
        v = eval_literal(other)
    except NotLiteral:
        return None
    if v.kind != w:
        return None                 # list(...) == (1,) is False whatever f gives: kept as an observation
    kind = ExpectKind.eq if isinstance(node.ops[0], ast.Eq) else ExpectKind.ne
    return Expect(kind=kind, value=V("list", v.val))


def _list_type(t: TypeExpr | None) -> TypeExpr | None:
    if t is None or t.name.lower() not in _ITERATOR_TYPES:
        return None
    item = t.args[0] if t.args else TypeExpr(name="Any")
    return TypeExpr(name="list", args=(item,))


def _mine(call, target: str) -> bool:
    """A call of ``target`` observed by its outcome (not the state it left in an argument,
    ``specguard.formalize.argstate``, which is read as it is)."""
    return call.target == target and call.after is None


def through_list(demands: tuple[Demand, ...], claims: list[Claim], target: str | None) -> ListView | None:
    """The task in the ``g = list ∘ f`` model, or None when it does not apply (see the module)."""
    if target is None:
        return None
    mine = [d for d in demands if _mine(d.call, target)]
    examples = [c for c in claims if c.kind is ClaimKind.example and c.call is not None and _mine(c.call, target)]
    wrapped = False
    for e in [d.expect for d in mine] + [c.expect for c in examples]:
        if e.kind is ExpectKind.raises:
            continue                 # f(x) raising makes list(f(x)) raise
        if e.kind is not ExpectKind.obs or e.bound_result:
            return None
        only, w = _uses_only_items(e.expr or "")
        if not only:
            return None
        wrapped |= w
    if not wrapped:
        return None
    notes = [NOTE]

    def convert(e: Expect) -> Expect:
        if e.kind is ExpectKind.obs:
            e = _as_list_eq(e.expr or "") or e
        return e.model_copy(update={"through_list": True})
    new_d = tuple(d.model_copy(update={"expect": convert(d.expect)}) if _mine(d.call, target) else d
                  for d in demands)
    new_c: list[Claim] = []
    ex_ids = {id(c) for c in examples}
    for c in claims:
        if c.kind is ClaimKind.example:
            new_c.append(c.model_copy(update={"expect": convert(c.expect)}) if id(c) in ex_ids else c)
        elif c.kind is ClaimKind.return_type and _list_type(c.type) is not None:
            new_c.append(c.model_copy(update={"type": _list_type(c.type)}))
        else:
            notes.append(f"{c.loc}: {c.text or c.kind.value} dropped: it is about f's result, not list(f(...))")
    return ListView(new_d, new_c, tuple(notes))


def _has_float(v: V) -> bool:
    if v.kind == "float":
        return True
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return any(_has_float(x) for x in v.val)
    if v.kind == "dict":
        return any(_has_float(a) or _has_float(b) for a, b in v.val)
    return False


def float_list_eq(text: str) -> bool:
    """``list(result) == v`` / ``tuple(result) == t`` with floats in the exact value: an observation
    the spec language cannot compile (it has no floats), kept by the test reader only because the
    ``list(f(...))`` model reads it as the exact ``g(x) == v`` (:func:`_as_list_eq`, floats compared
    as Python compares them, by their exact values); :func:`drop_float_observations` removes it
    wherever that model does not apply."""
    e = _as_list_eq(text)
    return e is not None and e.value is not None and _has_float(e.value)


FLOAT_UNREAD = ("a float in an observation (the spec language has no floats; `list(f(x)) == [...]` is read only "
                "where the function is observed through list(...))")


def drop_float_observations(tf):
    """The test formalization without the observations :func:`float_list_eq` kept that no model
    converted (each reported unsupported; a statement left with no demand is no longer read)."""
    from specguard.models import Unsupported
    bad = [d for d in tf.demands if d.expect.kind is ExpectKind.obs and float_list_eq(d.expect.expr or "")]
    if not bad:
        return tf
    ids = {id(d) for d in bad}
    kept = [d for d in tf.demands if id(d) not in ids]
    still = {(d.loc.file, d.loc.line) for d in kept}
    gone = {(d.loc.file, d.loc.line) for d in bad} - still
    unsup = {(d.loc.file, d.loc.line): Unsupported(loc=d.loc, reason=FLOAT_UNREAD, text=d.text) for d in bad}
    return tf.model_copy(update={"demands": tuple(kept), "unsupported": tf.unsupported + tuple(unsup.values()),
                                 "assertions_read": max(tf.assertions_read - len(gone), 0)})
