"""Pure functions and constants of the standard library, evaluated exactly (issue 12, item 1):
``itertools`` combinatorics, ``chain``, ``islice``, ``repeat`` (iterators consumed where they are
built), the exact integer functions of ``math`` and ``math.prod`` of ints, ``string`` constants.

Only where the name surely denotes the stdlib object: the environment resolves it through
``stdlib_name(dotted)`` (the test reader resolves imports bound once, :func:`stdlib_names_of`);
each function is CPython's own applied to plain data rebuilt from exact values, with the size
limits of :mod:`specguard.python.literals`.  Split from :mod:`specguard.python.concrete`, which
re-exports these names.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from specguard.python import literals as L
from specguard.python.concrete import _args, _int_arg, _size, free_builtins_of
from specguard.python.literals import NotLiteral
from specguard.python.values import V, nan_object

__all__ = ["LAZY", "STDLIB_CALLS", "STDLIB_VALUES", "stdlib_call", "stdlib_name", "stdlib_names_of", "stdlib_value"]



def _fresh_items(ev, node: ast.expr, what: str) -> list[V]:
    return [r.v for r in ev.iterate(node)]


def _ordered(v: V) -> tuple[V, ...]:
    """The items iterating the exact value ``v`` gives (a set of 2+ items refused: hash order)."""
    from specguard.python.concrete import ordered_items
    if v.kind not in ("list", "tuple", "str", "bytes", "dict", "set", "frozenset") and \
            not (v.kind == "obj" and v.val[0] == "range"):
        raise NotLiteral(f"`product` of a {v.kind}")
    return ordered_items(v, "`product`")


def _no_shared(items: list[V], what: str) -> None:
    if any(L.is_mutable(x) for x in items):
        raise NotLiteral(f"`{what}` of mutable items would share them between its tuples")


def _iterator(items: list[V]) -> L._R:
    if len(items) > L.MAX_RANGE:
        raise NotLiteral(f"an iterator of {len(items):,} items is longer than the {L.MAX_RANGE:,} limit")
    v = V("obj", (LAZY, V("list", tuple(items))))
    return L._R(v, _size(v))


LAZY = "lazy"
"""The kind of an iterator a stdlib call builds (``combinations(..)``): consumed where it is built
(``list(..)``, a loop, ``enumerate(..)``); never a value of its own (its type is not a list
iterator's, which a function could observe): :func:`specguard.python.literals.eval_literal` refuses it."""


def _combinatoric(ev, node: ast.Call, qname: str) -> L._R:
    import itertools
    import math
    name = qname.rsplit(".", 1)[-1]
    if any(isinstance(a, ast.Starred) for a in node.args) and name != "product":
        raise NotLiteral(f"unsupported arguments to `{name}`")
    kws = {k.arg: k.value for k in node.keywords}
    if name == "product":
        if set(kws) - {"repeat"} or None in kws:
            raise NotLiteral("unsupported arguments to `product`")
        pools = []
        for a in node.args:
            if isinstance(a, ast.Starred):      # `product(*pools)`: each item of an exact list/tuple a pool
                v = ev.ev(a.value).v
                if v.kind not in ("list", "tuple"):
                    raise NotLiteral("`*` argument of `product` is not an exact list or tuple")
                pools.extend(list(_ordered(x)) for x in v.val)
            else:
                pools.append(_fresh_items(ev, a, name))
        repeat = _int_arg(ev.ev(kws["repeat"]).v, "`repeat=`") if "repeat" in kws else 1
        if repeat < 0:
            raise NotLiteral("`repeat=` is negative")
        for p in pools:
            _no_shared(p, name)
        count = math.prod(len(p) for p in pools) ** repeat
        if count > L.MAX_RANGE:
            raise NotLiteral(f"`product` of {count:,} tuples is longer than the {L.MAX_RANGE:,} limit")
        idx = itertools.product(*[range(len(p)) for p in pools], repeat=repeat)
        allp = pools * repeat
        return _iterator([V("tuple", tuple(allp[j][i] for j, i in enumerate(t))) for t in idx])
    args = list(node.args)
    if "r" in kws:
        args.append(kws.pop("r"))
    if kws or not 1 <= len(args) <= 2:
        raise NotLiteral(f"unsupported arguments to `{name}`")
    pool = _fresh_items(ev, args[0], name)
    _no_shared(pool, name)
    n = len(pool)
    if len(args) == 2:
        rv = ev.ev(args[1]).v
        r = n if rv.kind == "none" and name == "permutations" else _int_arg(rv, "`r`")
    elif name == "permutations":
        r = n
    else:
        raise NotLiteral(f"`{name}` needs `r`")
    if r < 0:
        raise NotLiteral("`r` is negative (ValueError)")
    count = {"combinations": lambda: math.comb(n, r), "permutations": lambda: math.perm(n, r),
             "combinations_with_replacement": lambda: math.comb(n + r - 1, r) if n else int(r == 0)}[name]()
    if count > L.MAX_RANGE:
        raise NotLiteral(f"`{name}` of {count:,} tuples is longer than the {L.MAX_RANGE:,} limit")
    fn = getattr(itertools, name)
    return _iterator([V("tuple", tuple(pool[i] for i in t)) for t in fn(range(n), r)])


def _chain(ev, node: ast.Call, qname: str) -> L._R:
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        raise NotLiteral("unsupported arguments to `chain`")
    items: list[V] = []
    for a in node.args:
        items.extend(_fresh_items(ev, a, "chain"))
        if len(items) > L.MAX_RANGE:
            raise NotLiteral("`chain` is too long")
    return _iterator(items)


def _islice(ev, node: ast.Call, qname: str) -> L._R:
    if node.keywords or not 2 <= len(node.args) <= 4 or any(isinstance(a, ast.Starred) for a in node.args):
        raise NotLiteral("unsupported arguments to `islice`")
    items = _fresh_items(ev, node.args[0], "islice")
    bounds = []
    for a in node.args[1:]:
        v = ev.ev(a).v
        if v.kind == "none":
            bounds.append(None)
        else:
            b = _int_arg(v, "`islice` bound")
            if b < 0:
                raise NotLiteral("`islice` bound is negative (ValueError)")
            bounds.append(b)
    if len(bounds) >= 3 and bounds[2] == 0:
        raise NotLiteral("`islice` step 0 (ValueError)")
    import itertools
    return _iterator(list(itertools.islice(items, *bounds)))


def _repeat(ev, node: ast.Call, qname: str) -> L._R:
    args, kws = _args(ev, node, 2, ("times",))
    if "times" in kws:
        args.append(kws["times"])
    if len(args) != 2:
        raise NotLiteral("`repeat` without a count is infinite")
    n = max(_int_arg(args[1], "`repeat` count"), 0)
    if n > 1 and L.is_mutable(args[0]):
        raise NotLiteral("`repeat` of a mutable value shares it")
    if n > L.MAX_RANGE:
        raise NotLiteral("`repeat` is too long")
    return _iterator([args[0]] * n)


def _math_int(ev, node: ast.Call, qname: str) -> L._R:
    import math
    name = qname.rsplit(".", 1)[-1]
    args, _ = _args(ev, node, 3)
    if any(a.kind not in ("int", "bool") for a in args):
        if name in ("floor", "ceil", "trunc") and len(args) == 1 and args[0].kind == "float":
            try:
                return L._from_plain(getattr(math, name)(args[0].val))
            except (OverflowError, ValueError) as e:
                raise NotLiteral(f"math.{name}() fails: {e}") from None
        raise NotLiteral(f"math.{name}() of non-ints (only the exact integer functions are evaluated)")
    ints = [int(a.val) for a in args]
    if name == "factorial" and ints and ints[0] > 5000:
        raise NotLiteral("factorial is too large")
    if name in ("comb", "perm") and any(i > 5000 for i in ints):
        raise NotLiteral(f"math.{name}() arguments are too large")
    try:
        return L._from_plain(getattr(math, name)(*ints))
    except (ValueError, TypeError) as e:
        raise NotLiteral(f"math.{name}() fails: {e}") from None


def _prod(ev, node: ast.Call, qname: str) -> L._R:
    """``math.prod(it[, start=])`` of ints (and bools): exact integer products."""
    import math
    if len(node.args) != 1 or isinstance(node.args[0], ast.Starred) or any(k.arg != "start" for k in node.keywords):
        raise NotLiteral("unsupported arguments to `prod`")
    items = _fresh_items(ev, node.args[0], "prod")
    start = ev.ev(node.keywords[0].value).v if node.keywords else V("int", 1)
    if any(x.kind not in ("int", "bool") for x in [*items, start]):
        raise NotLiteral("`prod` of values other than ints (float products are rounded)")
    bits = sum(abs(int(x.val)).bit_length() for x in [*items, start])
    if bits > L._max_int_bits():
        raise NotLiteral("`prod` is too large")
    return L._from_plain(math.prod((int(x.val) for x in items), start=int(start.val)))


POSIX_ASSUMPTION = ("`os.path` is `posixpath` (the tests run on a POSIX platform): `os.path.join(...)` and the "
                    "other pure path functions are computed as posixpath computes them")
_PATH_PURE = ("join", "normpath", "splitext", "basename", "dirname", "split", "isabs", "commonprefix", "normcase")
_PATH_IMPURE = ("expanduser", "expandvars", "abspath", "realpath", "relpath", "exists", "isfile", "isdir", "islink",
                "lexists", "getsize", "getmtime", "getatime", "getctime", "samefile", "ismount")


def _path(ev, node: ast.Call, qname: str) -> L._R:
    """The pure string functions of ``posixpath`` (``os.path`` on a POSIX platform: a stated
    assumption) on exact strs or bytes; never one that reads the environment or the file system."""
    import posixpath
    module, _, name = qname.rpartition(".")
    if name in _PATH_IMPURE:
        raise NotLiteral(f"`{qname}` reads the environment or the file system (never evaluated)")
    if name not in _PATH_PURE:
        raise NotLiteral(f"`{qname}` is not evaluated")
    if module == "os.path":
        assume = getattr(ev.env, "assume", None)
        if assume is None:
            raise NotLiteral(f"`{qname}` depends on the platform (no place to state the POSIX assumption here)")
    args, _ = _args(ev, node, 8)
    if name == "commonprefix":
        if len(args) != 1 or args[0].kind not in ("list", "tuple"):
            raise NotLiteral("`commonprefix` takes one list or tuple")
        parts = list(args[0].val)
    else:
        parts = args
    if not parts and name != "commonprefix" or any(a.kind not in ("str", "bytes") for a in parts) \
            or len({a.kind for a in parts}) > 1:
        raise NotLiteral(f"`{qname}` of values other than all strs or all bytes")
    if name != "join" and name != "commonprefix" and len(parts) != 1:
        raise NotLiteral(f"`{qname}` takes one path")
    try:
        result = getattr(posixpath, name)(*([a.val for a in parts],) if name == "commonprefix" else
                                          [a.val for a in parts])
    except (TypeError, ValueError) as e:
        raise NotLiteral(f"`{qname}` fails: {e}") from None
    if module == "os.path":
        assume(POSIX_ASSUMPTION)
    from specguard.python.concrete import _out
    return _out(result)


STDLIB_CALLS: dict[str, Callable[[Any, ast.Call, str], L._R]] = {
    **{f"{m}.{n}": _path for m in ("os.path", "posixpath") for n in _PATH_PURE + _PATH_IMPURE},
    "math.prod": _prod,
    "itertools.combinations": _combinatoric, "itertools.permutations": _combinatoric,
    "itertools.combinations_with_replacement": _combinatoric, "itertools.product": _combinatoric,
    "itertools.chain": _chain, "itertools.islice": _islice, "itertools.repeat": _repeat,
    **{f"math.{n}": _math_int for n in ("factorial", "comb", "perm", "gcd", "lcm", "isqrt", "floor", "ceil", "trunc")},
}
STDLIB_VALUES: dict[str, V] = {f"string.{n}": V("str", getattr(__import__("string"), n)) for n in (
    "ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "octdigits", "punctuation")}
# the float constants of `math` (the same IEEE doubles in every CPython); `math.nan` is the module's
# one NaN object, identity kept (values.nan_object)
STDLIB_VALUES.update({f"math.{n}": V("float", getattr(__import__("math"), n)) for n in ("inf", "pi", "e", "tau")})
STDLIB_VALUES["math.nan"] = nan_object()


def stdlib_name(env: Any, node: ast.expr) -> str | None:
    """The qualified stdlib name (``itertools.product``) a call's function or a name denotes, as the
    environment resolves it (``stdlib_name(dotted)``; the test reader resolves imports bound once)."""
    d = L.dotted_name(node)
    resolve = getattr(env, "stdlib_name", None)
    if d is None or resolve is None:
        return None
    return resolve(d)


def stdlib_call(ev: "L._Evaluator", node: ast.Call) -> L._R | None:
    q = stdlib_name(ev.env, node.func)
    fn = STDLIB_CALLS.get(q) if q is not None else None
    return fn(ev, node, q) if fn is not None else None


def stdlib_names_of(ctx: Any) -> dict[str, str]:
    """Names of a test file bound once, by an import, to a module or function of
    :data:`STDLIB_CALLS`/:data:`STDLIB_VALUES` (``from itertools import product``, ``import
    itertools``): name -> qualified name.  A name bound twice, by a star import's file, or written
    dynamically is left out."""
    got = getattr(ctx, "_stdlib_names", None)
    if got is not None:
        return got
    got = {}
    sym = ctx.symbols
    known = set(STDLIB_CALLS) | set(STDLIB_VALUES)
    modules = {q.rsplit(".", i)[0] for q in known for i in range(1, q.count(".") + 1)}   # `os`, `os.path`
    patched = set().union(*(_patched_modules(f.tree, f.imports)
                            for f in [ctx.file, *(c.file for c in getattr(ctx, "conftests", ()))]))
    if sym is not None and not sym.stars and not free_builtins_of(ctx) == frozenset():
        for name, q in ctx.file.imports.items():
            if (q in known or q in modules) and len(sym.of(name)) == 1 and sym.unknown_writes(name) is None \
                    and (ctx.file.shadowed is None or name not in ctx.file.shadowed) \
                    and not any(q == m or q.startswith(m + ".") for m in patched):
                got[name] = q
    for n in ast.walk(ctx.file.tree):           # `itertools.product = ...`: the module is patched
        if isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
            root = n
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name):
                got.pop(root.id, None)
    ctx._stdlib_names = got
    return got


def _patched_modules(tree: ast.AST, imports: dict[str, str]) -> set[str]:
    """The path modules a file may patch without assigning to them (tests often patch the file
    system and the environment): named in a string (``monkeypatch.setattr("os.path.join", ...)``,
    ``mock.patch("os.path.expanduser")``) or passed as an argument (``monkeypatch.setattr(os.path,
    "join", ...)``, ``patch.object(os, "path", ...)``): then none of their names is evaluated."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out |= {m for m in _PATCHABLE if n.value == m or n.value.startswith(m + ".")}
        elif isinstance(n, ast.Call):
            for a in [*n.args, *(k.value for k in n.keywords)]:
                d = L.dotted_name(a)
                if d is not None:
                    root, _, rest = d.partition(".")
                    q = imports.get(root, root) + ("." + rest if rest else "")
                    out |= {m for m in _PATCHABLE if q == m or q == m + ".path"}
    return {m for m in _PATCHABLE if any(p.split(".")[0] == m.split(".")[0] for p in out)}


_PATCHABLE = ("os", "os.path", "posixpath")


def stdlib_value(env: Any, node: ast.expr) -> V | None:
    """``ascii_lowercase`` / ``string.digits`` as the environment resolves it (see :func:`stdlib_name`)."""
    q = stdlib_name(env, node)
    return STDLIB_VALUES.get(q) if q is not None else None
