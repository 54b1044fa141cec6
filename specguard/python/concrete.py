"""Concrete values where the code is concrete (issue 12, items 1 and 7): builtin calls, methods of
plain values and in-place mutations of local lists/dicts/sets, evaluated exactly on
:class:`~specguard.python.values.V`.

Nothing of the task runs: each operation below is CPython's own operation applied to *plain data*
rebuilt from exact values (:func:`~specguard.python.values.to_python`), and its result is turned
back into an exact value.  The whitelist is closed; anything else stays :class:`NotLiteral` with
its reason.

Builtin calls (only where the name surely denotes the builtin: the environment says so through
``builtin_ok(name)``; the test reader checks that no binding, star import or unknown write of the
test file can rebind it; an environment without ``builtin_ok`` gets none of these)

===========================  ======================================================================
call                         semantics kept exact
===========================  ======================================================================
``len(x)``                   str, bytes, list, tuple, dict, set, frozenset, range
``sorted(it, key=k,         CPython's stable sort (also with ``reverse=True``), only on a total
reverse=b)``                 order of the keys (numbers, or all str, or all bytes, or tuples/lists
                             of those); ``k``: None, ``len``, ``abs``, ``str.lower``/``str.upper``
                             (ASCII strs only)
``min(..)`` ``max(..)``      one iterable or several arguments, ``key=`` as for ``sorted``,
                             ``default=`` (one iterable only; returned when it is empty); the
                             first of equal extremes is returned, as CPython does
``sum(it[, start])``         ints and bools only (float sums differ between Python versions)
``any`` ``all``              truthiness of plain data
``abs`` ``round``            numbers (``round(x, n)`` with Python's correctly rounded result)
``divmod`` ``pow(a, b)``     numbers, with the limits of the literal evaluator
``str(x)`` ``repr(x)``       plain data whose text is fixed: no set/frozenset of 2+ elements
``bool(x)``                  truthiness
``chr`` ``ord`` ``hex``      ints / one-character strs
``oct`` ``bin``
===========================  ======================================================================

Methods (on a receiver that is itself an exact value; never a module or object):

* str (and bytes where Python has the same method): ``join`` (of strs), ``split``/``rsplit`` with
  an explicit separator, ``replace``, ``startswith``, ``endswith``, ``find``/``rfind``/``index``/
  ``rindex``/``count``, ``zfill``, ``center``/``ljust``/``rjust`` (explicit fill or space),
  ``partition``/``rpartition``, ``removeprefix``/``removesuffix``, ``strip``/``lstrip``/``rstrip``
  with explicit characters, ``format`` of scalars, ``encode``/``decode`` in utf-8/ascii/latin-1;
  methods that depend on the Unicode database (``upper``, ``lower``, ``title``, ``capitalize``,
  ``swapcase``, ``casefold``, ``isdigit``, ``isalpha``, ..., ``split()``/``strip()`` without
  arguments, ``splitlines``) only on ASCII text, since the database differs between Python versions;
* list/tuple: ``copy`` (list), ``index``, ``count``; dict: ``copy``, ``get``; set: ``copy``,
  ``union``, ``intersection``, ``difference``, ``symmetric_difference``, ``issubset``,
  ``issuperset``, ``isdisjoint``.

Iteration order: a set's iteration order in CPython is its hash table's, which is not the order
its exact value keeps (and for strs changes with ``PYTHONHASHSEED``), so iterating a set of two or
more elements where order matters (``list(s)``, a loop, a comprehension other than a set
comprehension, ``str(s)``) is refused; dicts iterate in insertion order, which the exact value keeps.

In-place mutations (:func:`mutated_value`): ``x.append(v)``, ``x.extend(it)``, ``x.insert(i, v)``,
``x.pop()``/``x.pop(i)``, ``x.remove(v)``, ``x.clear()``, ``x.reverse()``, ``x.sort()`` (as
``sorted``), ``d.update(..)``, ``d.pop(k)``, ``d.setdefault(k, v)``, ``s.add(v)``, ``s.discard(v)``,
``s.remove(v)``, ``s.update(..)``, ``x[i] = v``, ``d[k] = v``, ``del x[i]``, ``del d[k]``,
``x += it``, ``d |= d2``, ``s |= t``: the new exact value of the receiver, given values that may
not share objects with it (the caller checks aliasing).

Pure functions of the standard library (``itertools``, ``math``, ``string`` constants) are in
:mod:`specguard.python.stdlib` (re-exported here).
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable

from specguard.python import literals as L
from specguard.python.literals import NotLiteral
from specguard.python.values import V, canon, contains_obj, is_hashable, make_dict, make_set, sort_key, to_python

__all__ = ["builtin_call", "method_call", "mutated_value", "ordered_items", "BUILTIN_CALLS", "MUTATING_METHODS"]

_NUM = ("bool", "int", "float")
_SET_KINDS = ("set", "frozenset")


# =====================================================================================
# helpers on exact values
# =====================================================================================

def ordered_items(v: V, why: str = "the iteration") -> tuple[V, ...]:
    """The items ``for x in v`` sees, in order; a set of 2+ elements is refused (see the module)."""
    if v.kind in _SET_KINDS and len(v.val) > 1:
        raise NotLiteral(f"{why} depends on the iteration order of a set (CPython's hash order, not modelled)")
    return tuple(r.v for r in L._Evaluator.elements_of(L._R(v, 1)))


def _fixed_text(v: V) -> bool:
    """Whether ``str``/``repr`` of ``v`` is fixed by its exact value (no multi-element sets)."""
    if v.kind in _SET_KINDS:
        return len(v.val) <= 1 and all(_fixed_text(x) for x in v.val)
    if v.kind in ("list", "tuple"):
        return all(_fixed_text(x) for x in v.val)
    if v.kind == "dict":
        return all(_fixed_text(a) and _fixed_text(b) for a, b in v.val)
    return v.kind in ("none", "bool", "int", "float", "str", "bytes")


def _order_class(v: V) -> str | None:
    """The total order family of ``v`` (numbers, str, bytes, or sequences of one family), else None."""
    if v.kind in _NUM:
        return "num"
    if v.kind in ("str", "bytes"):
        return v.kind
    if v.kind in ("list", "tuple"):
        inner = {_order_class(x) for x in v.val}
        if None in inner or len(inner) > 1:
            return None
        return f"{v.kind}[{inner.pop() if inner else ''}]"
    return None


def _total_order(items: tuple[V, ...] | list[V], what: str) -> None:
    classes = {_order_class(x) for x in items}
    if None in classes or len(classes) > 1:
        raise NotLiteral(f"`{what}` of values without one total order (mixed kinds, sets, dicts or None)")
    # tuples of different shapes: a shorter prefix orders first, still total; empty sequences too


def _plain_list(items) -> list[Any]:
    return [to_python(x) for x in items]


def _out(x: Any) -> L._R:
    """A plain Python result back into an exact value (containers of plain data too)."""
    if isinstance(x, (list, tuple)):
        return L._container("list" if isinstance(x, list) else "tuple", [_out(e) for e in x])
    return L._from_plain(x)


def _int_arg(v: V, what: str) -> int:
    if v.kind not in ("int", "bool"):
        raise NotLiteral(f"{what} is not an int")
    return int(v.val)


# =====================================================================================
# builtin calls
# =====================================================================================

def _args(ev: "L._Evaluator", node: ast.Call, most: int, keywords: tuple[str, ...] = ()) -> tuple[list[V], dict[str, V]]:
    name = L.dotted_name(node.func) or "..."
    if len(node.args) > most or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None or k.arg not in keywords for k in node.keywords):
        raise NotLiteral(f"unsupported arguments to `{name}`")
    args = [ev.ev(a).v for a in node.args]
    kws = {k.arg: ev.ev(k.value).v for k in node.keywords}
    return args, kws


def _items(ev: "L._Evaluator", node: ast.expr, what: str, ordered: bool = True) -> list[V]:
    """The items of an iterable argument (``range``/``zip``/generator expressions consumed at once)."""
    return [r.v for r in ev.iterate(node, ordered=ordered)]


def _len(ev, node):
    (x,), _ = _exactly(ev, node, 1)
    if x.kind in ("str", "bytes", "list", "tuple", "dict", "set", "frozenset"):
        return L._scalar(V("int", len(x.val)))
    if x.kind == "obj" and x.val[0] == "range":
        return L._scalar(V("int", len(range(*(b.val for b in x.val[1].val)))))
    raise NotLiteral(f"len() of a {x.kind}")


def _exactly(ev, node, n: int, keywords: tuple[str, ...] = ()):
    args, kws = _args(ev, node, n, keywords)
    if len(args) != n:
        raise NotLiteral(f"`{L.dotted_name(node.func)}` takes {n} argument(s) here")
    return args, kws


def _key_values(ev, node: ast.Call, items: list[V], what: str) -> list[V]:
    """The values of ``key=`` (absent or None: the items themselves) for each item, in order:
    the builtins ``len`` and ``abs`` (where the environment vouches for the name) and
    ``str.lower``/``str.upper`` on ASCII strs, applied as CPython does (once per item)."""
    key = next((k.value for k in node.keywords if k.arg == "key"), None)
    if key is None or isinstance(key, ast.Constant) and key.value is None:
        return list(items)
    ok = getattr(ev.env, "builtin_ok", None)
    if isinstance(key, ast.Name) and key.id in ("len", "abs") and ok is not None and ok(key.id):
        fn = _len_value if key.id == "len" else _abs_value
        return [fn(x) for x in items]
    if isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name) and key.value.id == "str" \
            and key.attr in ("lower", "upper") and ok is not None and ok("str"):
        out = []
        for x in items:
            if x.kind != "str" or not x.val.isascii():
                raise NotLiteral(f"`{what}(key=str.{key.attr})` of a value that is not an ASCII str")
            out.append(V("str", x.val.lower() if key.attr == "lower" else x.val.upper()))
        return out
    raise NotLiteral(f"`{what}` with a `key=` other than len, abs, str.lower or str.upper is not evaluated")


def _has_key(node: ast.Call) -> bool:
    return any(k.arg == "key" and not (isinstance(k.value, ast.Constant) and k.value.value is None)
               for k in node.keywords)


def _len_value(x: V) -> V:
    if x.kind in ("str", "bytes", "list", "tuple", "dict", "set", "frozenset"):
        return V("int", len(x.val))
    if x.kind == "obj" and x.val[0] == "range":
        return V("int", len(range(*(b.val for b in x.val[1].val))))
    raise NotLiteral(f"len() of a {x.kind}")


def _abs_value(x: V) -> V:
    if x.kind not in _NUM:
        raise NotLiteral(f"abs() of a {x.kind}")
    return _out(abs(to_python(x))).v


def _sorted(ev, node):
    if len(node.args) != 1 or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg not in ("reverse", "key") for k in node.keywords) \
            or len({k.arg for k in node.keywords}) != len(node.keywords):
        raise NotLiteral("unsupported arguments to `sorted` (only `key=` and `reverse=`)")
    # with a key, items of equal keys keep the iteration order: a set's order then matters
    items = _items(ev, node.args[0], "sorted", ordered=_has_key(node))
    reverse = False
    for k in node.keywords:       # CPython: the iterable first, then keywords in order; all exact values here
        if k.arg != "reverse":
            continue
        r = ev.ev(k.value).v
        if r.kind not in ("bool", "int"):
            raise NotLiteral("`reverse=` is not a bool")
        reverse = bool(r.val)
    keys = _key_values(ev, node, items, "sorted")
    _total_order(keys, "sorted")
    plain = _plain_list(keys)
    # CPython's sort is stable also with reverse=True (equal keys keep their order); sorting the
    # indices by the plain keys with the same flag does exactly that
    order = sorted(range(len(items)), key=lambda i: plain[i], reverse=reverse)
    return L._container("list", [L._R(items[i], _size(items[i])) for i in order])


def _size(v: V) -> int:
    from specguard.python.values import value_size
    return value_size(v)


def _extreme(ev, node):
    name = node.func.id
    if any(isinstance(a, ast.Starred) for a in node.args) or not node.args \
            or any(k.arg not in ("key", "default") for k in node.keywords) \
            or len({k.arg for k in node.keywords}) != len(node.keywords):
        raise NotLiteral(f"unsupported arguments to `{name}` (only `key=` and `default=`)")
    default = next((k.value for k in node.keywords if k.arg == "default"), None)
    if len(node.args) == 1:
        items = _items(ev, node.args[0], name, ordered=_has_key(node))   # first of equal keys
    else:
        if default is not None:
            raise NotLiteral(f"`{name}()` with several arguments and `default=` raises TypeError")
        items = [ev.ev(a).v for a in node.args]
    if not items:
        if default is not None:
            r = ev.ev(default)
            _key_values(ev, node, [], name)      # an unsupported key= stays unsupported
            return r
        raise NotLiteral(f"`{name}()` of an empty sequence raises")
    if default is not None:
        ev.ev(default)                           # evaluated (CPython evaluates every argument)
    keys = _key_values(ev, node, items, name)
    _total_order(keys, name)
    plain = _plain_list(keys)
    pick = (min if name == "min" else max)(range(len(items)), key=lambda i: plain[i])
    # CPython returns the first of equal extremes; min/max over indices with the plain key do the same
    return L._R(items[pick], _size(items[pick]))


def _sum(ev, node):
    if node.keywords or not 1 <= len(node.args) <= 2 or any(isinstance(a, ast.Starred) for a in node.args):
        raise NotLiteral("unsupported arguments to `sum`")
    items = _items(ev, node.args[0], "sum", ordered=False)
    start = ev.ev(node.args[1]).v if len(node.args) == 2 else V("int", 0)
    if any(x.kind not in ("int", "bool") for x in [*items, start]):
        raise NotLiteral("`sum` of values other than ints (float sums differ between Python versions)")
    return L._from_plain(sum((x.val for x in items), int(start.val) if start.kind == "bool" else start.val))


def _any_all(ev, node):
    if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
        raise NotLiteral(f"unsupported arguments to `{node.func.id}`")
    items = _items(ev, node.args[0], node.func.id, ordered=False)
    truths = [L._truthy(x) for x in items]
    return L._scalar(V("bool", any(truths) if node.func.id == "any" else all(truths)))


def _abs(ev, node):
    (x,), _ = _exactly(ev, node, 1)
    if x.kind not in _NUM:
        raise NotLiteral(f"abs() of a {x.kind}")
    return L._from_plain(abs(x.val))


def _round(ev, node):
    args, kws = _args(ev, node, 2, ("ndigits",))
    if "ndigits" in kws:
        args.append(kws["ndigits"])
    if not 1 <= len(args) <= 2 or args[0].kind not in _NUM:
        raise NotLiteral("round() of a non-number")
    if len(args) == 2 and args[1].kind == "none":
        args = args[:1]
    if len(args) == 2:
        n = _int_arg(args[1], "round() digits")
        if abs(n) > 400:
            raise NotLiteral("round() digits out of range")
        try:
            return L._from_plain(round(args[0].val, n))
        except OverflowError:
            raise NotLiteral("numeric overflow") from None
    try:
        return L._from_plain(round(args[0].val))
    except (OverflowError, ValueError) as e:
        raise NotLiteral(f"round() fails: {e}") from None


def _divmod(ev, node):
    (a, b), _ = _exactly(ev, node, 2)
    if a.kind not in _NUM or b.kind not in _NUM:
        raise NotLiteral("divmod() of non-numbers")
    q = L._numeric_binop(ast.FloorDiv(), a, b)
    r = L._numeric_binop(ast.Mod(), a, b)
    return L._container("tuple", [q, r])


def _pow(ev, node):
    (a, b), _ = _exactly(ev, node, 2)
    if a.kind not in _NUM or b.kind not in _NUM:
        raise NotLiteral("pow() of non-numbers")
    return L._numeric_binop(ast.Pow(), a, b)


def _text(ev, node):
    name = node.func.id
    if name == "str" and not node.args and not node.keywords:
        return L._scalar(V("str", ""))
    (x,), _ = _exactly(ev, node, 1)
    if not _fixed_text(x):
        raise NotLiteral(f"`{name}()` of a value whose text is not fixed by its value (a set's order)")
    text = (str if name == "str" else repr)(to_python(x))
    L._check_len(len(text), "str")
    return L._scalar(V("str", text))


def _bool(ev, node):
    if not node.args and not node.keywords:
        return L._scalar(V("bool", False))
    (x,), _ = _exactly(ev, node, 1)
    if x.kind == "obj":
        raise NotLiteral("bool() of an iterator")
    return L._scalar(V("bool", L._truthy(x)))


def _chr_ord(ev, node):
    name = node.func.id
    (x,), _ = _exactly(ev, node, 1)
    try:
        if name == "ord":
            if x.kind not in ("str", "bytes"):
                raise NotLiteral("ord() of a non-str")
            return L._from_plain(ord(x.val))
        n = _int_arg(x, f"{name}() argument")
        return L._from_plain({"chr": chr, "hex": hex, "oct": oct, "bin": bin}[name](n))
    except (TypeError, ValueError, OverflowError) as e:
        raise NotLiteral(f"{name}() fails: {e}") from None


BUILTIN_CALLS: dict[str, Callable[[Any, ast.Call], L._R]] = {
    "len": _len, "sorted": _sorted, "min": _extreme, "max": _extreme, "sum": _sum, "any": _any_all,
    "all": _any_all, "abs": _abs, "round": _round, "divmod": _divmod, "pow": _pow, "str": _text, "repr": _text,
    "bool": _bool, "chr": _chr_ord, "ord": _chr_ord, "hex": _chr_ord, "oct": _chr_ord, "bin": _chr_ord,
}
# `zip`/`enumerate`/`reversed` are read where they are consumed (`list(zip(..))`, a loop); as an
# argument value they are not modelled: a function can tell a zip object from a list iterator


def builtin_call(ev: "L._Evaluator", name: str, node: ast.Call) -> L._R | None:
    """A call of the builtin ``name`` (already known not to be shadowed in the environment), or
    None when it is not one of :data:`BUILTIN_CALLS` or the environment cannot vouch for the name."""
    fn = BUILTIN_CALLS.get(name)
    if fn is None:
        return None
    ok = getattr(ev.env, "builtin_ok", None)
    if ok is None or not ok(name):
        raise NotLiteral(f"call of `{name}` is not a literal (the name may not denote the builtin here)")
    return fn(ev, node)


# =====================================================================================
# methods of exact values
# =====================================================================================

_STR_PURE = frozenset({"join", "replace", "startswith", "endswith", "find", "rfind", "index", "rindex", "count",
                       "zfill", "center", "ljust", "rjust", "partition", "rpartition", "removeprefix",
                       "removesuffix", "split", "rsplit", "strip", "lstrip", "rstrip", "format", "encode",
                       "decode", "expandtabs"})
_STR_UNICODE = frozenset({"upper", "lower", "title", "capitalize", "swapcase", "casefold", "isdigit", "isalpha",
                          "isalnum", "isspace", "isupper", "islower", "istitle", "isnumeric", "isdecimal",
                          "isidentifier", "isascii", "splitlines", "isprintable"})
# arguments that, when absent, make a method use Unicode whitespace (so ASCII text only)
_WHITESPACE_DEFAULT = frozenset({"split", "rsplit", "strip", "lstrip", "rstrip"})
_CODECS = frozenset({"utf-8", "utf8", "ascii", "latin-1", "latin1", "iso-8859-1"})
_SEQ_METHODS = {"list": frozenset({"copy", "index", "count"}), "tuple": frozenset({"index", "count"}),
                "dict": frozenset({"copy", "get"}),
                "set": frozenset({"copy", "union", "intersection", "difference", "symmetric_difference",
                                  "issubset", "issuperset", "isdisjoint"}),
                "frozenset": frozenset({"copy", "union", "intersection", "difference", "symmetric_difference",
                                        "issubset", "issuperset", "isdisjoint"})}


def _is_ascii(v: V) -> bool:
    return v.kind == "bytes" or v.kind == "str" and v.val.isascii()


def method_call(ev: "L._Evaluator", node: ast.Call) -> L._R | None:
    """``x.m(...)`` with ``x`` an exact value and ``m`` a whitelisted method; None when the
    receiver is a name without a value of its own (a module, say: the caller reports it)."""
    assert isinstance(node.func, ast.Attribute)
    attr = node.func.attr
    recv = ev.ev(node.func.value).v
    if recv.kind in ("str", "bytes"):
        return _str_method(ev, node, recv, attr)
    allowed = _SEQ_METHODS.get(recv.kind, frozenset())
    if attr not in allowed:
        raise NotLiteral(f"method `.{attr}()` of a {recv.kind} is not evaluated")
    if any(isinstance(a, ast.Starred) for a in node.args) or node.keywords:
        raise NotLiteral(f"unsupported arguments to `.{attr}()`")
    args = [ev.ev(a).v for a in node.args]
    if attr not in ("copy", "get") and any(contains_obj(x) for x in [recv, *args]):
        raise NotLiteral(f"`.{attr}()` of a value holding a NaN, range or iterator object (compared by identity "
                         "or not at all: not modelled)")
    if attr == "copy":
        if args:
            raise NotLiteral("`.copy()` takes no arguments")
        if any(L.is_mutable(x) for x in (recv.val if recv.kind != "dict" else [b for _, b in recv.val])):
            raise NotLiteral("`.copy()` of a container of mutable values shares them (a shallow copy)")
        return ev.resized(recv)
    if recv.kind == "dict":               # get
        if not 1 <= len(args) <= 2:
            raise NotLiteral("`.get()` takes a key and an optional default")
        if not is_hashable(args[0]):
            raise NotLiteral("unhashable dict key")
        want = sort_key(canon(args[0]))
        for k, v in recv.val:
            if sort_key(canon(k)) == want:
                return ev.resized(v)
        return ev.resized(args[1] if len(args) == 2 else V("none"))
    if recv.kind in ("list", "tuple"):
        if not args or len(args) > 3:
            raise NotLiteral(f"`.{attr}()` takes 1 to 3 arguments")
        plain = to_python(recv)
        try:
            return L._from_plain(getattr(plain, attr)(*(_plain_arg(a) for a in args)))
        except ValueError as e:
            raise NotLiteral(f"`.{attr}()` fails: {e}") from None
        except TypeError as e:
            raise NotLiteral(f"`.{attr}()` fails: {e}") from None
    # sets: the results are sets (order not modelled) or bools
    others = []
    for a in args:
        others.append(_items_of_value(a))
    if attr in ("issubset", "issuperset", "isdisjoint"):
        if len(args) != 1:
            raise NotLiteral(f"`.{attr}()` takes one argument")
        result = getattr(to_python(recv), attr)([to_python(x) for x in others[0]])
        return L._scalar(V("bool", bool(result)))
    elems = list(recv.val)
    keys = lambda xs: {sort_key(canon(x)) for x in xs}     # noqa: E731
    for o in others:
        ko = keys(o)
        if attr == "union":
            elems = elems + list(o)
        elif attr == "intersection":
            elems = [x for x in elems if sort_key(canon(x)) in ko]
        elif attr == "difference":
            elems = [x for x in elems if sort_key(canon(x)) not in ko]
        else:
            ke = keys(elems)
            elems = [x for x in elems if sort_key(canon(x)) not in ko] + [x for x in o if sort_key(canon(x)) not in ke]
    try:
        return ev.resized(make_set(elems, recv.kind))
    except TypeError as e:
        raise NotLiteral(str(e)) from None


def _items_of_value(v: V) -> tuple[V, ...]:
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return v.val
    if v.kind == "dict":
        return tuple(a for a, _ in v.val)
    if v.kind == "str":
        return tuple(V("str", c) for c in v.val)
    raise NotLiteral(f"a {v.kind} is not iterable here")


def _plain_arg(v: V) -> Any:
    if v.kind == "obj":
        raise NotLiteral("an iterator argument")
    return to_python(v)


def _str_method(ev, node: ast.Call, recv: V, attr: str) -> L._R:
    kind = recv.kind
    if attr not in _STR_PURE and attr not in _STR_UNICODE:
        raise NotLiteral(f"method `.{attr}()` of a {kind} is not evaluated")
    if attr in ("encode", "decode") and (attr == "encode") != (kind == "str"):
        raise NotLiteral(f"`.{attr}()` of a {kind}")
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise NotLiteral(f"unsupported arguments to `.{attr}()`")
    if attr == "join":
        if len(node.args) != 1 or node.keywords:
            raise NotLiteral("`.join()` takes one iterable")
        items = [r.v for r in ev.iterate(node.args[0])]
        if any(x.kind != kind for x in items):
            raise NotLiteral(f"`.join()` of items that are not all {kind}")
        total = len(recv.val) * max(len(items) - 1, 0) + sum(len(x.val) for x in items)
        L._check_len(total, kind)
        return L._from_plain(recv.val.join(x.val for x in items))
    args = [ev.ev(a).v for a in node.args]
    kws = {k.arg: ev.ev(k.value).v for k in node.keywords}
    if attr == "format":
        if any(not _scalar_kind(a) for a in [*args, *kws.values()]):
            raise NotLiteral("`.format()` of values other than numbers, strs and None")
        if any(len(d) > 6 for d in re.findall(r"\d+", recv.val)):
            raise NotLiteral("`.format()` width or precision is too large")
        if "{" in recv.val and ("." in recv.val or "[" in recv.val):
            raise NotLiteral("`.format()` with attribute or index fields")
    elif any(not _scalar_kind(a) and not (a.kind == "tuple" and all(x.kind == kind for x in a.val))
             for a in [*args, *kws.values()]):
        raise NotLiteral(f"`.{attr}()` with arguments other than plain scalars")
    unicode = attr in _STR_UNICODE or (attr in _WHITESPACE_DEFAULT and (not args or args[0].kind == "none")
                                       and "sep" not in kws and "chars" not in kws)
    if attr == "expandtabs":
        unicode = False
    if unicode and not _is_ascii(recv):
        raise NotLiteral(f"`.{attr}()` of non-ASCII text depends on the Unicode database of the Python version")
    if attr in ("encode", "decode"):
        enc = (args[0] if args else kws.get("encoding", V("str", "utf-8")))
        if enc.kind != "str" or enc.val.lower() not in _CODECS or len(args) > 1 or set(kws) - {"encoding"}:
            raise NotLiteral(f"`.{attr}()` other than strict utf-8/ascii/latin-1")
    for a in [*args, *kws.values()]:
        if a.kind in ("int",) and abs(a.val) > L.MAX_SEQ_LEN:
            raise NotLiteral(f"`.{attr}()` width is too large")
    if attr == "replace":
        L._check_len(_replaced_len(recv.val, args, kws), kind)   # before the text is built
    try:
        result = getattr(recv.val, attr)(*(_plain_arg(a) for a in args), **{k: _plain_arg(v) for k, v in kws.items()})
    except (ValueError, TypeError, UnicodeError, OverflowError, IndexError, KeyError) as e:
        raise NotLiteral(f"`.{attr}()` fails: {type(e).__name__}") from None
    return _out(result)


def _replaced_len(text, args: list[V], kws: dict[str, V]) -> int:
    """The length ``text.replace(old, new[, count])`` would have (0 when the call will fail)."""
    vals = [a.val for a in args] + [kws[k].val for k in ("old", "new", "count") if k in kws]
    if len(vals) < 2 or not all(isinstance(x, type(text)) for x in vals[:2]):
        return 0
    old, new = vals[0], vals[1]
    hits = text.count(old) if old else len(text) + 1
    count = vals[2] if len(vals) > 2 and isinstance(vals[2], int) else -1
    if count >= 0:
        hits = min(hits, count)
    return len(text) + hits * (len(new) - len(old))


def _scalar_kind(v: V) -> bool:
    return v.kind in ("none", "bool", "int", "float", "str", "bytes")


# =====================================================================================
# in-place mutations of a local value
# =====================================================================================

MUTATING_METHODS = {
    "list": frozenset({"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort"}),
    "dict": frozenset({"update", "pop", "setdefault", "clear"}),
    "set": frozenset({"add", "discard", "remove", "update", "clear"}),
}


def mutated_value(old: V, attr: str, args: list[V], kws: dict[str, V] | None = None) -> V:
    """The value of a list/dict/set after ``old.attr(*args)`` (CPython's semantics on the exact
    value); NotLiteral when the call would raise or is not modelled.  The caller has checked that
    no argument shares an object with ``old`` or with any other name."""
    kws = kws or {}
    kind = old.kind
    if attr not in MUTATING_METHODS.get(kind, frozenset()):
        raise NotLiteral(f"method `.{attr}()` of a {kind} is not modelled")
    if any(a.kind == "obj" for a in [*args, *kws.values()]):
        raise NotLiteral(f"`.{attr}()` of an iterator")
    if kws and not (kind == "list" and attr == "sort" and set(kws) <= {"reverse"}) \
            and not (kind == "dict" and attr == "update" and not args):
        raise NotLiteral(f"keyword arguments to `.{attr}()`")
    items = list(old.val)
    n = len(args)
    if kind == "list":
        if attr == "append" and n == 1:
            items.append(args[0])
        elif attr == "extend" and n == 1:
            items.extend(ordered_items(args[0], "`.extend()`"))
        elif attr == "insert" and n == 2:
            i = _int_arg(args[0], "`.insert()` index")
            items.insert(i, args[1])
        elif attr == "pop" and n <= 1:
            if not items:
                raise NotLiteral("`.pop()` of an empty list raises")
            i = _int_arg(args[0], "`.pop()` index") if args else -1
            if not -len(items) <= i < len(items):
                raise NotLiteral("`.pop()` index out of range")
            items.pop(i)
        elif attr == "remove" and n == 1:
            want = sort_key(canon(args[0])) if _comparable(args[0]) else None
            if want is None or any(not _comparable(x) for x in items):
                raise NotLiteral("`.remove()` compares values the model cannot compare")
            at = next((i for i, x in enumerate(items) if sort_key(canon(x)) == want), None)
            if at is None:
                raise NotLiteral("`.remove()` of a missing value raises")
            items.pop(at)
        elif attr == "clear" and n == 0:
            items = []
        elif attr == "reverse" and n == 0:
            items.reverse()
        elif attr == "sort" and n == 0:
            _total_order(items, "sort")
            reverse = False
            if "reverse" in kws:
                if kws["reverse"].kind not in ("bool", "int"):
                    raise NotLiteral("`reverse=` is not a bool")
                reverse = bool(kws["reverse"].val)
            plain = _plain_list(items)
            items = [items[i] for i in sorted(range(len(items)), key=lambda i: plain[i], reverse=reverse)]
        else:
            raise NotLiteral(f"unsupported arguments to `.{attr}()`")
        L._check_len(len(items), "list")
        return V("list", tuple(items))
    if kind == "dict":
        pairs = list(old.val)
        if attr == "update" and n <= 1:
            new = _update_pairs(args[0]) if args else []
            new += [(V("str", k), v) for k, v in kws.items()]
            return _dict(pairs + new)
        if attr == "pop" and 1 <= n <= 2:
            at = _dict_index(pairs, args[0])
            if at is None:
                if n == 1:
                    raise NotLiteral("`.pop()` of a missing key raises")
                return old
            pairs.pop(at)
            return V("dict", tuple(pairs))
        if attr == "setdefault" and 1 <= n <= 2:
            if _dict_index(pairs, args[0]) is not None:
                return old
            return _dict(pairs + [(args[0], args[1] if n == 2 else V("none"))])
        if attr == "clear" and n == 0:
            return V("dict", ())
        raise NotLiteral(f"unsupported arguments to `.{attr}()`")
    # set
    elems = list(old.val)
    if attr in ("add", "discard", "remove") and n == 1:
        if not is_hashable(args[0]):
            raise NotLiteral("unhashable set element")
        key = sort_key(canon(args[0]))
        present = [x for x in elems if sort_key(canon(x)) == key]
        if attr == "add":
            return old if present else _set(elems + [args[0]])
        if not present and attr == "remove":
            raise NotLiteral("`.remove()` of a missing element raises")
        if present:      # the freed slot stays in CPython's table: a later add, and iteration (`pop`,
            # `list(s)`), follows a layout no display of these elements gives
            raise NotLiteral(f"`.{attr}()` of an element leaves the set in a layout (iteration order) no "
                             "display gives")
        return old
    if attr == "update":
        for a in args:
            elems += list(_items_of_value(a))
        return _set(elems)
    if attr == "clear" and n == 0:
        return V("set", ())
    raise NotLiteral(f"unsupported arguments to `.{attr}()`")


def _comparable(v: V) -> bool:
    """``==`` on ``v`` is the model's (plain data, no NaN, no iterator)."""
    from specguard.python.values import contains_nan, contains_obj
    return not contains_obj(v) and not contains_nan(v)


def _dict_index(pairs: list[tuple[V, V]], key: V) -> int | None:
    if not is_hashable(key):
        raise NotLiteral("unhashable dict key")
    want = sort_key(canon(key))
    return next((i for i, (k, _) in enumerate(pairs) if sort_key(canon(k)) == want), None)


def _update_pairs(v: V) -> list[tuple[V, V]]:
    if v.kind == "dict":
        return list(v.val)
    out = []
    for item in ordered_items(v, "`.update()`"):
        if item.kind not in ("list", "tuple") or len(item.val) != 2:
            raise NotLiteral("`.update()` element is not a pair")
        out.append((item.val[0], item.val[1]))
    return out


def _dict(pairs) -> V:
    try:
        return make_dict(pairs)
    except TypeError as e:
        raise NotLiteral(str(e)) from None


def _set(elems) -> V:
    try:
        return make_set(elems, "set")
    except TypeError as e:
        raise NotLiteral(str(e)) from None


def store_item(old: V, key: V, value: V) -> V:
    """``old[key] = value`` on a list (int index in range) or a dict."""
    if old.kind == "dict":
        return _dict(list(old.val) + [(key, value)])
    if old.kind == "list":
        i = _int_arg(key, "index")
        if not -len(old.val) <= i < len(old.val):
            raise NotLiteral("index out of range")
        items = list(old.val)
        items[i] = value
        return V("list", tuple(items))
    raise NotLiteral(f"item assignment on a {old.kind}")


def delete_item(old: V, key: V) -> V:
    """``del old[key]`` on a list (int index in range) or a dict (present key)."""
    if old.kind == "dict":
        at = _dict_index(list(old.val), key)
        if at is None:
            raise NotLiteral("`del` of a missing key raises")
        return V("dict", old.val[:at] + old.val[at + 1:])
    if old.kind == "list":
        i = _int_arg(key, "index")
        if not -len(old.val) <= i < len(old.val):
            raise NotLiteral("index out of range")
        items = list(old.val)
        del items[i]
        return V("list", tuple(items))
    raise NotLiteral(f"`del` of an item of a {old.kind}")


def augmented(old: V, op: ast.operator, other: V) -> V:
    """``old op= other`` in place: list ``+=`` (extend), dict ``|=`` (update), set ``|= &= -= ^=``."""
    if old.kind == "list" and isinstance(op, ast.Add):
        return mutated_value(old, "extend", [other])
    if old.kind == "dict" and isinstance(op, ast.BitOr):
        if other.kind != "dict":
            raise NotLiteral("`|=` of a dict with a non-dict")
        return mutated_value(old, "update", [other])
    if old.kind == "set" and isinstance(op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)):
        if other.kind not in _SET_KINDS:
            raise NotLiteral("a set operator with a non-set")
        ko = {sort_key(canon(x)) for x in other.val}
        elems = list(old.val)
        if isinstance(op, ast.BitOr):
            return _set(elems + list(other.val))
        if isinstance(op, ast.BitAnd):
            return V("set", tuple(x for x in elems if sort_key(canon(x)) in ko))
        if isinstance(op, ast.Sub):
            return V("set", tuple(x for x in elems if sort_key(canon(x)) not in ko))
        ke = {sort_key(canon(x)) for x in elems}
        return _set([x for x in elems if sort_key(canon(x)) not in ko] + [x for x in other.val if sort_key(canon(x)) not in ke])
    raise NotLiteral(f"augmented assignment on a {old.kind} is not modelled")


# =====================================================================================
# which builtin names surely denote the builtins in a file
# =====================================================================================

def unshadowed_builtins(trees: list[ast.AST], symbols: list[Any]) -> frozenset[str]:
    """The names of :data:`BUILTIN_CALLS` (and the builtins the literal evaluator knows) that no
    statement of these files (a test file and the conftest files pytest loads for it) can
    rebind: never bound anywhere (assignment, ``def``, ``class``, import, parameter,
    loop/``with``/``except``/``match`` target, ``global``), no ``import *``, no dynamic write that
    may bind it (``globals()[..]``, ``exec``, ``setattr`` on the module, ...: the file's
    :class:`~specguard.python.bindings.Symbols`), and no use of the ``builtins`` module (a name, an
    import, ``__builtins__``, or a string naming it, as a patch target does)."""
    bound: set[str] = set()
    for sym in symbols:
        if sym is None or sym.stars:
            return frozenset()
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.Name):
                if n.id in ("builtins", "__builtins__"):
                    return frozenset()
                if not isinstance(n.ctx, ast.Load):
                    bound.add(n.id)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str) and "builtins" in n.value:
                return frozenset()
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(n.name)
            elif isinstance(n, ast.arg):
                bound.add(n.arg)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "builtins":
                    return frozenset()
                for a in n.names:
                    if a.name == "*" or a.name.split(".")[0] == "builtins":
                        return frozenset()
                    bound.add((a.asname or a.name).split(".")[0])
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                bound.update(n.names)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                bound.add(n.name)
            elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                bound.add(n.name)
            elif isinstance(n, ast.MatchMapping) and n.rest:
                bound.add(n.rest)
            elif isinstance(n, ast.Attribute) and n.attr == "__builtins__":
                return frozenset()
    names = (frozenset(BUILTIN_CALLS) | _LITERAL_BUILTINS) - bound
    return frozenset(n for n in names if all(sym.unknown_writes(n) is None for sym in symbols))


# the builtins the literal evaluator itself knows (``list(..)``, ``range(..)``, ...)
_LITERAL_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "dict", "range", "iter", "float", "int", "enumerate",
                               "map", "filter"})


def free_builtins_of(ctx: Any) -> frozenset[str]:
    """:func:`unshadowed_builtins` of a test file's reader context (its file and its conftest
    files), computed once per file."""
    got = getattr(ctx, "_free_builtins", None)
    if got is None:
        files = [ctx.file] + [c.file for c in getattr(ctx, "conftests", ())]
        got = unshadowed_builtins([f.tree for f in files], [f.symbols for f in files])
        ctx._free_builtins = got
    return got


# builtins whose result is a new object holding no reference to a lazy view of their arguments
_FRESH_CALLS = frozenset({"range", "sorted", "list", "tuple", "set", "frozenset", "dict"})


def fresh_iterable(node: ast.expr, env: Any) -> bool:
    """``for x in node``: the loop iterates a new object built once, before the first iteration
    (``range(len(xs))``, ``sorted(xs)``, ``list(xs)``, ``xs[:]``, a display or a comprehension),
    so nothing its body does changes the items it sees, when they are immutable (the caller checks
    that; a loop over a name, ``zip``,
    ``enumerate``, ``reversed``, ``d.items()`` or a generator expression iterates live objects)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.Constant)):
        return not any(isinstance(e, ast.Starred) for e in getattr(node, "elts", ()))
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return True      # a slice of a list/tuple/str is a copy (the evaluator slices sequences only)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FRESH_CALLS:
        ok = getattr(env, "builtin_ok", None)
        return ok is not None and ok(node.func.id) and node.func.id not in env
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "enumerate" \
            and node.args and not isinstance(node.args[0], ast.Starred):
        ok = getattr(env, "builtin_ok", None)     # `enumerate(<fresh>)`: over a new object
        return ok is not None and ok("enumerate") and "enumerate" not in env and fresh_iterable(node.args[0], env)
    if isinstance(node, ast.Call) and stdlib_name(env, node.func) in _COPYING_STDLIB:
        return True
    return False


# stdlib iterators that copy their inputs into pools when built (CPython: `pool = tuple(iterable)`)
_COPYING_STDLIB = frozenset({"itertools.product", "itertools.combinations", "itertools.permutations",
                             "itertools.combinations_with_replacement"})


# =====================================================================================
# statements that change a local value in place
# =====================================================================================

def mutation(stmt: ast.AST, scope: Any, mode: str, tracking: bool) -> tuple[str, V] | None:
    """``(name, new value)`` when ``stmt`` is a known in-place change of a test's local
    list/dict/set with an exact value, with exact operands that share no object with any name
    (``l.append(x)`` with ``x`` a list would alias it); None otherwise (the caller then treats the
    statement as one that may mutate anything it touches).  The local must not share its object
    with a module-level value (shared by all tests)."""
    if mode != "test" or not tracking:
        return None
    form = _mutation_form(stmt)
    if form is None:
        return None
    name, apply, operands = form
    b = scope.locals.get(name)
    if b is None or b.value is None or b.result is not None or b.value.kind not in ("list", "dict", "set") \
            or b.origin not in ("assign", "loop"):
        return None
    if any(mb.mutable and mb.groups & b.groups for mb in scope.module.values()):
        return None
    try:
        values = L.eval_literals(operands, scope)
    except NotLiteral:
        return None
    for node, v in zip(operands, values):
        if L.is_mutable(v) and any(isinstance(n, ast.Name) for n in ast.walk(node)):
            return None         # the operand may be (or hold) an object a name holds too
    try:
        new = apply(b.value, values)
        L._check_size(_size(new))
    except NotLiteral:
        return None
    return name, new


def returned_value(stmt: ast.AST, old: V, scope: Any) -> V | None:
    """What ``x = l.pop(..)`` / ``x = d.pop(k[, default])`` / ``x = d.setdefault(k, v)`` binds to
    ``x`` (``old``: the receiver's exact value before the call), when it holds no list/dict/set (a
    mutable item would be shared with the receiver or its aliases); else None."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)):
        return None
    attr = stmt.value.func.attr
    try:
        vals = L.eval_literals(stmt.value.args, scope)
        result: V | None = None
        if old.kind == "list" and attr == "pop":
            result = old.val[_int_arg(vals[0], "index") if vals else -1]
        elif old.kind == "dict" and vals:
            at = _dict_index(list(old.val), vals[0])
            if at is not None:
                result = old.val[at][1]
            elif len(vals) == 2 or attr == "setdefault":
                result = vals[1] if len(vals) == 2 else V("none")
    except (NotLiteral, IndexError):
        return None
    if result is None or L.is_mutable(result):
        return None
    return result


def _mutation_form(stmt: ast.AST):
    """(receiver name, function of (old value, operand values) -> new value, operand nodes)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        f = call.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)):
            return None
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        keys = [k.arg for k in call.keywords]
        n = len(call.args)
        attr = f.attr
        return f.value.id, (lambda old, vs: mutated_value(old, attr, vs[:n], dict(zip(keys, vs[n:])))), \
            [*call.args, *(k.value for k in call.keywords)]
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
            and stmt.value.func.attr in ("pop", "setdefault") and not stmt.value.keywords:
        return _mutation_form(ast.Expr(value=stmt.value))   # `x = d.setdefault(k, v)`: see returned_value
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and not isinstance(t.slice, ast.Slice):
            return t.value.id, (lambda old, vs: store_item(old, vs[0], vs[1])), [t.slice, stmt.value]
        return None
    if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and not isinstance(t.slice, ast.Slice):
            return t.value.id, (lambda old, vs: delete_item(old, vs[0])), [t.slice]
        return None
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        op = stmt.op
        return stmt.target.id, (lambda old, vs: augmented(old, op, vs[0])), [stmt.value]
    return None


def immutable_item(node: ast.AST, env: Any) -> bool:
    """``node`` (an argument: ``xs[i]``, ``len(xs)``, ``xs[1:]`` of ints) mentions a name holding
    an exact list/dict/set but its own exact value holds none: passing it to a call hands over
    no object a name holds (the literal evaluator has no effects and copies items out)."""
    if not isinstance(node, ast.expr) or isinstance(node, (ast.Name, ast.Constant, ast.Starred)):
        return False
    if not any(isinstance(n, ast.Name) and (b := getattr(env, "binding")(n.id)) is not None and b.mutable
               and b.value is not None for n in ast.walk(node)):
        return False
    if any(isinstance(n, (ast.NamedExpr, ast.Lambda)) for n in ast.walk(node)):
        return False
    try:
        v = L.eval_literal(node, env)
    except NotLiteral:
        return False
    return not L.is_mutable(v)


# pure functions of the standard library: specguard/python/stdlib.py (names re-exported here)
from specguard.python.stdlib import (LAZY, STDLIB_CALLS, STDLIB_VALUES, stdlib_call, stdlib_name,  # noqa: E402,F401
                                     stdlib_names_of, stdlib_value)
