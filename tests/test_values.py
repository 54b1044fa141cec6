"""The value model against CPython: canon(x) == canon(y) exactly when x == y (plain data, no NaN)."""

import math

from hypothesis import given, settings, strategies as st

from specguard.python import values
from specguard.python.values import V, canon, from_json, from_python, make_dict, make_set, to_json, to_python

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(-2**70, 2**70),
    st.floats(allow_nan=False, width=64), st.sampled_from([0.5, -0.0, 0.0, 1.0, 2.0, float("inf"), float("-inf")]),
    st.text(max_size=3), st.binary(max_size=3),
)
hashable = st.recursive(scalars, lambda ch: st.one_of(st.tuples(ch, ch), st.frozensets(ch, max_size=3)), max_leaves=6)
plain = st.recursive(
    scalars,
    lambda ch: st.one_of(st.lists(ch, max_size=3), st.tuples(ch, ch), st.dictionaries(hashable, ch, max_size=3),
                         st.sets(hashable, max_size=3), st.frozensets(hashable, max_size=3)),
    max_leaves=8)


@settings(max_examples=600, deadline=None)
@given(plain, plain)
def test_canon_agrees_with_python_eq(x, y):
    assert (x == y) == (canon(from_python(x)) == canon(from_python(y)))


@settings(max_examples=300, deadline=None)
@given(plain)
def test_equal_values_same_class_after_mixing_numeric_types(x):
    vx = from_python(x)
    assert canon(vx) == canon(from_python(to_python(vx)))


@settings(max_examples=300, deadline=None)
@given(plain)
def test_json_roundtrip_is_exact(x):
    v = from_python(x)
    assert from_json(to_json(v)) == v


def test_equality_table():
    c = lambda o: canon(from_python(o))  # noqa: E731
    assert c(True) == c(1) == c(1.0)
    assert c(2**53 + 1) != c(float(2**53 + 1))
    assert c(-0.0) == c(0.0)
    assert c([1]) != c((1,))
    assert c({1: "a", 2: "b"}) == c({2: "b", 1: "a"})
    assert c({1}) == c(frozenset({1}))
    assert c("a") != c(b"a")
    assert c(None) != c(0)
    assert canon(from_python(float("nan"))).kind == "nan"
    assert values.contains_nan(from_python([1, float("nan")]))


def test_exact_values_keep_distinctions():
    assert from_python(1) != from_python(True) != from_python(1.0)
    assert from_python(-0.0) != from_python(0.0)
    assert from_python({1: 2, 3: 4}) != from_python({3: 4, 1: 2})


def test_literal_construction_matches_cpython():
    d = make_dict([(V("int", 1), V("str", "a")), (V("bool", True), V("str", "b"))])
    assert to_python(d) == {1: "a", True: "b"} and d.val[0][0] == V("int", 1) and d.val[0][1] == V("str", "b")
    s = make_set([V("int", 1), V("float", 1.0), V("int", 2)])
    assert [x for x in s.val] == [V("int", 1), V("int", 2)]
