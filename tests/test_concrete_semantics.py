"""Differential tests of the concrete evaluator (:mod:`specguard.python.concrete`, #12.1) against
CPython on generated values: every expression it evaluates gives exactly CPython's value (the
test itself runs CPython as the oracle; SpecGuard never does)."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from specguard.python import concrete
from specguard.python.literals import NotLiteral, eval_literal
from specguard.python.values import V, from_python, py_repr


class _Env(dict):
    """An environment that vouches for every builtin name it does not bind."""

    def builtin_ok(self, name: str) -> bool:
        return name not in self


def _same(src: str, env: dict | None = None) -> None:
    values = {k: from_python(v) for k, v in (env or {}).items()}
    try:
        got = eval_literal(ast.parse(src, mode="eval").body, _Env(values))
    except NotLiteral:
        return                                   # refusing is always allowed
    want = eval(src, {}, dict(env or {}))        # noqa: S307 - the oracle, on generated plain data
    if isinstance(want, (zip, enumerate, reversed)) or type(want).__name__.endswith("iterator"):
        assert got.kind == "obj" and got.val[0] == "iter"
        assert got.val[1] == from_python(list(want)), src
        return
    assert got == from_python(want), f"{src}: {py_repr(got)} != {want!r}"


scalars = st.one_of(st.integers(-50, 50), st.booleans(),
                    st.floats(allow_nan=False, allow_infinity=True, width=64).filter(lambda x: abs(x) < 1e6 or x != x + 1))
ints = st.lists(st.integers(-20, 20), max_size=8)
texts = st.text(alphabet=st.sampled_from("abcXYZ ,.-_\t\nÄéǅ1"), max_size=10)
strs = st.lists(texts, max_size=5)


@settings(max_examples=150, deadline=None)
@given(ints, st.booleans())
def test_sequence_builtins_on_ints(xs, rev):
    for src in ("sorted(xs)", f"sorted(xs, reverse={rev})", "len(xs)", "min(xs)", "max(xs)", "sum(xs)",
                "sum(xs, 3)", "any(xs)", "all(xs)", "list(reversed(xs))", "str(xs)", "repr(tuple(xs))",
                "list(zip(xs, xs[1:]))", "list(enumerate(xs, 1))", "[abs(x) for x in xs]",
                "dict(zip(xs, range(len(xs))))", "sorted(set(xs))", "xs.count(1)", "xs.copy()",
                "[divmod(x, 3) for x in xs]", "[pow(x, 2) for x in xs]", "[hex(x) for x in xs]",
                "[bin(x) for x in xs]", "[bool(x) for x in xs]", "min(len(xs), 3, 2.0)", "zip(xs, 'abc')"):
        _same(src, {"xs": xs})


@settings(max_examples=150, deadline=None)
@given(st.lists(scalars, max_size=6))
def test_mixed_numbers_order_and_text(xs):
    for src in ("sorted(xs)", "min(xs)", "max(xs)", "str(xs)", "repr(xs)", "[round(x) for x in xs]",
                "[round(x, 2) for x in xs]", "[str(x) for x in xs]", "sorted(xs, reverse=True)"):
        _same(src, {"xs": xs})


@settings(max_examples=150, deadline=None)
@given(strs, texts, texts)
def test_str_methods(xs, s, sep):
    sep = sep or ","
    env = {"xs": xs, "s": s, "sep": sep}
    for src in ("sep.join(xs)", "s.split(sep)", "s.rsplit(sep, 1)", "s.split()", "s.strip()", "s.strip(sep)",
                "s.upper()", "s.lower()", "s.title()", "s.capitalize()", "s.replace(sep, 'q')", "s.startswith(sep)",
                "s.endswith(sep)", "s.find(sep)", "s.count(sep)", "s.zfill(6)", "s.center(9, '*')",
                "s.partition(sep)", "s.removeprefix(sep)", "s.isdigit()", "s.isalpha()", "s.splitlines()",
                "s.encode('utf-8')", "s.encode('ascii')", "'{}|{}'.format(s, len(xs))", "sorted(xs)", "max(xs)",
                "[c for c in s]", "list(s)", "s * 2", "str(s)", "repr(s)", "ord(s[0])", "s.ljust(7)"):
        _same(src, env)


@settings(max_examples=200, deadline=None)
@given(ints, st.lists(st.tuples(st.sampled_from(["append", "extend", "insert", "pop", "remove", "clear",
                                                 "reverse", "sort", "setitem", "delitem", "iadd"]),
                                st.integers(-6, 6)), max_size=6))
def test_list_mutations(xs, ops):
    """Each in-place change of a list, applied by :func:`concrete.mutated_value` and friends and by
    CPython, gives the same list (or the model refuses where CPython raises)."""
    v, py = from_python(list(xs)), list(xs)
    for op, n in ops:
        try:
            if op == "setitem":
                v2 = concrete.store_item(v, V("int", n), V("int", 7))
            elif op == "delitem":
                v2 = concrete.delete_item(v, V("int", n))
            elif op == "iadd":
                v2 = concrete.augmented(v, ast.Add(), from_python([n, n]))
            else:
                args = {"append": [n], "extend": [[n, -n]], "insert": [n, 5], "pop": [n], "remove": [n]}.get(op, [])
                v2 = concrete.mutated_value(v, op, [from_python(a) for a in args])
        except NotLiteral:
            v2 = None
        try:
            if op == "setitem":
                py[n] = 7
            elif op == "delitem":
                del py[n]
            elif op == "iadd":
                py += [n, n]
            elif op in ("clear", "reverse", "sort"):
                getattr(py, op)()
            else:
                arg = {"append": [n], "extend": [[n, -n]], "insert": [n, 5], "pop": [n], "remove": [n]}[op]
                getattr(py, op)(*arg)
        except (IndexError, ValueError):
            assert v2 is None, (op, n)
            return
        assert v2 is not None and v2 == from_python(py), (op, n, py_repr(v2) if v2 else None, py)
        v = v2


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from([0, 1, 1.0, True, "a", "b"]), st.integers(0, 9), max_size=4),
       st.lists(st.tuples(st.sampled_from([0, 1, 1.0, True, False, "a", "c"]), st.integers(0, 9)), max_size=5))
def test_dict_mutations_keep_insertion_order(d, ops):
    """``d[k] = v`` and ``update`` on dicts with keys equal under ``==`` (``1``, ``1.0``, ``True``):
    the first key object and its place are kept, the last value wins, as in CPython."""
    v, py = from_python(dict(d)), dict(d)
    for k, x in ops:
        v = concrete.store_item(v, from_python(k), V("int", x))
        py[k] = x
        assert v == from_python(py)
    v = concrete.mutated_value(v, "update", [from_python({True: 5, "z": 1})])
    py.update({True: 5, "z": 1})
    assert v == from_python(py)
    assert [a for a, _ in v.val] == [from_python(k) for k in py]


def test_sets_are_not_iterated_in_a_guessed_order():
    """The exact value of ``{3, 1, 2}`` keeps source order, CPython iterates it in hash order."""
    for src in ("list({3, 1, 2})", "tuple({'a', 'b'})", "[x for x in {1, 2}]", "str({1, 2})", "','.join({'a', 'b'})"):
        try:
            eval_literal(ast.parse(src, mode="eval").body, _Env())
        except NotLiteral as e:
            assert "set" in e.reason
        else:
            raise AssertionError(src)
    _same("sorted({3, 1, 2})")
    _same("len({1, 1.0, True})")
    _same("list({5})")


def test_truthiness_of_ranges_and_iterators():
    """``any([range(0)])`` is False in CPython (an empty range is false), an iterator is true."""
    for src in ("any([range(0)])", "all([range(2), iter([])])", "not range(0)", "bool(range(3))",
                "len([x for x in [range(0), range(1)] if x])"):
        _same(src)


def _value(src: str, env: dict | None = None):
    values = {k: from_python(v) for k, v in (env or {}).items()}
    return eval_literal(ast.parse(src, mode="eval").body, _Env(values))


_KEYED = ("sorted(xs, key=len)", "sorted(xs, key=len, reverse=True)", "sorted(xs, reverse=True, key=len)",
          "min(xs, key=len)", "max(xs, key=len)", "min(xs, key=len, default='-')", "max(xs, default=None)",
          "sorted(xs, key=str.lower)", "max(xs, key=str.upper)", "min(xs, key=None)", "sorted(xs, key=None)")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("abAB"), max_size=3), max_size=6))
def test_keyed_extremes_and_sort_agree_with_cpython(xs):
    for src in _KEYED:
        _same(src, {"xs": xs})
        if xs or "default" in src or src.startswith("sorted"):
            _value(src, {"xs": xs})       # evaluated, not refused


@settings(max_examples=150, deadline=None)
@given(st.lists(scalars, max_size=6))
def test_abs_key_on_mixed_numbers(xs):
    for src in ("sorted(xs, key=abs)", "sorted(xs, key=abs, reverse=True)", "min(xs, key=abs)",
                "max(xs, key=abs)", "max(xs, key=abs, default=0)", "min(xs, default=-1.5)"):
        _same(src, {"xs": xs})


def test_keyed_results_are_cpythons_on_ties():
    # stability: equal keys keep their order, also reversed; the FIRST of equal extremes
    assert _value("sorted(['ab', 'cd', 'e'], key=len, reverse=True)") == from_python(['ab', 'cd', 'e'])
    assert _value("max(['ab', 'cd', 'e'], key=len)") == from_python('ab')
    assert _value("min([1, True, 1.0], key=abs)") == from_python(1)
    assert _value("min([], default=3)") == from_python(3)
    assert _value("max((), key=len, default=None)") == from_python(None)
