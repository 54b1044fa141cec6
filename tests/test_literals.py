"""Behaviour of the safe literal evaluator (specguard.python.literals): exact values, Python semantics,
refusals (NaN, bombs, aliasing) -- checked against CPython where it is safe to do so."""

import ast
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specguard.python.literals import (MAX_EXPONENT, NotLiteral, eval_iterable, eval_literal,
                                       eval_literal_text, eval_literals, is_mutable)
from specguard.python.values import V, from_python, py_repr


def ev(src, env=None):
    return eval_literal(ast.parse(src, mode="eval").body, env)


def refused(src, env=None) -> str:
    with pytest.raises(NotLiteral) as e:
        ev(src, env)
    assert isinstance(e.value, ValueError)
    return e.value.reason


# -- constants and exactness ------------------------------------------------------------

@pytest.mark.parametrize("src", ["1", "-0.0", "1.5", "'a'", "b'\\x00'", "True", "None", "1e400", "-1e400"])
def test_constants_match_python(src):
    assert ev(src) == from_python(eval(src))


def test_exact_kinds_are_kept():
    assert ev("1") == V("int", 1)
    assert ev("1.0") == V("float", 1.0)
    assert ev("True") == V("bool", True)
    assert len({ev("1"), ev("1.0"), ev("True")}) == 3
    assert ev("[1, 1.0, True]").val == (V("int", 1), V("float", 1.0), V("bool", True))
    assert ev("-0.0") != ev("0.0")


def test_containers_keep_source_order():
    assert ev("{3, 1, 2}").val == (V("int", 3), V("int", 1), V("int", 2))
    assert ev("{'b': 1, 'a': 2}").val == ((V("str", "b"), V("int", 1)), (V("str", "a"), V("int", 2)))
    assert ev("(1,)").kind == "tuple" and ev("[1]").kind == "list"


def test_duplicate_keys_follow_cpython():
    # first key object kept, last value wins
    assert py_repr(ev("{1: 'a', True: 'b', 1.0: 'c'}")) == "{1: 'c'}"
    assert py_repr(ev("{True, 1, 1.0}")) == "{True}"
    assert ev("frozenset([2, 2, 1])") == V("frozenset", (V("int", 2), V("int", 1)))


def test_unhashable_keys_refused():
    assert "unhashable" in refused("{[1]: 2}")
    assert "unhashable" in refused("{[1]}")


# -- operators with Python semantics --------------------------------------------------------

ARITH = ["7 // 2", "-7 // 2", "-7 % 3", "7 % -3", "2 ** 10", "2 ** -1", "1 / 3", "True + True", "-True",
         "~5", "~True", "+False", "1 << 70", "-5 >> 1", "6 & 3", "6 | 3", "6 ^ 3", "True & False",
         "1 + 2.5", "0.1 + 0.2", "10 ** 20 * 1.0", "2 ** 0.5", "(-8) // 3", "5.5 % 2", "1e308 * 10",
         "-(2 ** 63)", "not []", "not 0.0", "not 'x'"]


@pytest.mark.parametrize("src", ARITH)
def test_arithmetic_matches_cpython(src):
    expected = eval(src)
    got = ev(src)
    assert got == from_python(expected)


@pytest.mark.parametrize("src", ["'ab' * 3", "3 * 'ab'", "[1, 2] * 2", "(1,) * 0", "b'x' * 2", "'a' * -1",
                                 "[0] * True", "'a' + 'b'", "b'a' + b'b'", "[1] + [2.0]", "(1,) + (2,)",
                                 "[1, 2, 3][1]", "[1, 2, 3][-1]", "'abc'[1:]", "(1, 2, 3)[::-1]",
                                 "b'ab'[0]", "{'a': 1}['a']", "{1: 'x'}[True]", "{1: 'x'}[1.0]",
                                 "list('ab')", "tuple(range(3))", "frozenset()", "set()",
                                 "dict()", "dict(a=1)", "dict([(1, 2)])", "dict({1: 2}, b=3)",
                                 "list(range(2, 10, 3))", "list(enumerate('ab'))", "list(zip([1, 2], 'ab'))",
                                 "[*range(3), *'ab']", "{**{1: 2}, 3: 4}", "int('12')", "int(2.9)",
                                 "float('1.5')", "float(3)", "float('inf')", "float('-inf')", "-float('inf')",
                                 "f'{1+1:03d}-{\"x\"!r}'", "list({'a': 1}.items())", "list(reversed([1, 2]))"])
def test_sequences_and_builtins_match_cpython(src):
    assert ev(src) == from_python(eval(src))


def test_float_inf_is_supported():
    assert ev("float('inf')").val == math.inf
    assert ev("float('-inf')").val == -math.inf


def test_set_elements_keep_source_order_not_hash_order():
    v = ev("set([3, 1, 2])")
    assert v == V("set", (V("int", 3), V("int", 1), V("int", 2)))


# -- refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("src", ["float('inf') - float('inf')", "float('inf') * 0", "[1, float('inf') * 0]"])
def test_nan_from_arithmetic_is_refused(src):
    """NaN made by arithmetic (its sign bit is the platform's) is refused; ``float('nan')`` is a
    NaN object (tests/adversarial/test_exact_values.py)."""
    assert refused(src) == "NaN is not supported"


def test_float_nan_is_a_fresh_nan_object():
    from specguard.python.values import is_nan_object
    assert is_nan_object(ev("float('NaN')")) and ev("float('nan')").val[1] == V("int", 0x7ff8000000000000)
    assert ev("[1, float('-nan')]").val[1].val[1] == V("int", 0xfff8000000000000)


@pytest.mark.parametrize("src,reason", [
    ("1 / 0", "division by zero"), ("1 // 0", "division by zero"), ("1 % 0", "division by zero"),
    ("0 ** -1", "division by zero"), ("1j", "not plain data"), ("...", "not plain data"),
    ("(-8) ** 0.5", "complex"), ("2.0 ** 5000", "overflow"), ("x", "name `x`"), ("f(1)", "call of `f`"),
    ("a.b", "attribute `a.b`"), ("1 < 2", "comparison"), ("[x for x in y]", "name `y`"), ("[x async for x in y]", "async"),
    ("lambda: 1", "lambda"), ("1 if x else 2", "conditional"), ("'%d' % 1", "operator %"),
    ("[1][5]", "out of range"), ("{1: 2}[3]", "not in dict"), ("iter({1: 2})", "iter() of a dict"),
    ("1 << -1", "negative shift"), ("int('x')", "int() fails"), ("1.5 & 1", "on a float"),
])
def test_unsupported_forms_are_refused_with_a_reason(src, reason):
    assert reason in refused(src)


def test_exponent_limit():
    assert ev(f"2 ** {MAX_EXPONENT}").val == 2 ** MAX_EXPONENT
    assert "exponent" in refused(f"2 ** {MAX_EXPONENT + 1}")
    assert "exponent" in refused(f"2.0 ** -{MAX_EXPONENT + 1}")


def test_huge_results_are_refused_before_being_computed():
    assert "digits" in refused("(10 ** 1000) ** 9999")
    assert "digits" in refused("10 ** 5000")      # past Python's int-to-str limit: could not be printed
    assert "digits" in refused("1 << 100000")
    assert "digits" in refused("(10 ** 3000) * (10 ** 3000)")


def test_repetition_bombs_are_refused():
    assert "10,000,000" in refused("'a' * (10 ** 7 + 1)")
    assert "10,000,000" in refused("[0] * 10 ** 4 * 10 ** 4")
    assert "10,000,000" in refused("[(0,) * 10 ** 4] * 10 ** 4")   # nodes, not length
    assert len(ev("'ab' * (5 * 10 ** 6)").val) == 10 ** 7
    assert "10,000,000" in refused("'a' * 10 ** 7 + 'a'")
    assert ev("[] * 10 ** 20") == V("list", ()) and ev("10 ** 20 * ''") == V("str", "")
    assert "too large" in refused("f'{1:>1000000000}'")


def test_long_range_is_refused():
    assert "limit" in refused("list(range(10 ** 7))")


def test_deep_nesting_is_refused_not_crashing():
    src = "[" * 150 + "]" * 150
    assert ev(src).kind == "list"
    node = ast.parse("1", mode="eval").body
    for _ in range(5000):
        node = ast.BinOp(left=node, op=ast.Add(), right=ast.Constant(1))
    with pytest.raises(NotLiteral):
        eval_literal(node)


# -- names and aliasing -----------------------------------------------------------------------

def test_names_come_from_env():
    env = {"x": V("int", 2), "s": V("str", "ab")}
    assert ev("x * 3", env) == V("int", 6)
    assert ev("s[x - 1]", env) == V("str", "b")
    assert "name `y`" in refused("y", env)


def test_env_may_explain_why_a_name_is_not_a_literal():
    class Env(dict):
        def __getitem__(self, k):
            raise NotLiteral(f"`{k}` is not a literal (bound at line 4 by a call)")

        def __contains__(self, k):
            return True

    assert refused("[x]", Env()) == "`x` is not a literal (bound at line 4 by a call)"
    # a bound name shadows the builtins
    assert "call of `list`" in refused("list('ab')", Env())


def test_repeating_mutable_elements_is_refused():
    assert "share" in refused("[[]] * 2")
    assert "share" in refused("[{}] * 3")
    assert ev("[[]] * 1") == V("list", (V("list", ()),))
    assert ev("[()] * 2") == V("list", (V("tuple", ()), V("tuple", ())))


def test_a_mutable_name_used_twice_is_refused():
    env = {"xs": V("list", (V("int", 1),)), "t": V("tuple", ())}
    assert "twice" in refused("[xs, xs]", env)
    assert ev("[t, t]", env).kind == "list"          # immutable: identity is not observable
    with pytest.raises(NotLiteral, match="twice"):
        eval_literals([ast.parse("xs", mode="eval").body, ast.parse("xs", mode="eval").body], env)


def test_is_mutable():
    assert is_mutable(ev("[1]")) and is_mutable(ev("({},)")) and is_mutable(ev("{1}"))
    assert not is_mutable(ev("(1, 'a', frozenset([2]))"))


# -- entry points ----------------------------------------------------------------------------------

def test_eval_literal_text():
    assert eval_literal_text(" [1, (2, 'x')] ") == from_python([1, (2, "x")])
    with pytest.raises(NotLiteral, match="not a Python expression"):
        eval_literal_text("1 +")


def test_eval_iterable():
    def it(src, env=None):
        return eval_iterable(ast.parse(src, mode="eval").body, env)

    assert it("range(3)") == [V("int", 0), V("int", 1), V("int", 2)]
    assert it("{'a': 1, 'b': 2}") == [V("str", "a"), V("str", "b")]
    assert it("'ab'") == [V("str", "a"), V("str", "b")]
    assert it("b'A'") == [V("int", 65)]
    assert it("enumerate([5], 1)") == [from_python((1, 5))]
    assert it("d.items()", {"d": from_python({"k": 1})}) == [from_python(("k", 1))]
    with pytest.raises(NotLiteral):
        it("5")


# -- differential: random arithmetic against CPython -------------------------------------------------

def _src(x):
    return f"float({str(x)!r})" if isinstance(x, float) and math.isinf(x) else repr(x)


_num = st.one_of(st.integers(-10**6, 10**6), st.booleans(),
                 st.floats(allow_nan=False, allow_infinity=True, width=64))
_ops = st.sampled_from(["+", "-", "*", "/", "//", "%", "**"])


@settings(max_examples=400, deadline=None)
@given(_num, _ops, _num)
def test_binary_arithmetic_agrees_with_cpython(a, op, b):
    if op == "**" and abs(b) > 50:
        b = b % 50 if math.isfinite(b) else b
    src = f"({_src(a)}) {op} ({_src(b)})"
    try:
        expected = eval(src)
    except (ZeroDivisionError, OverflowError):
        with pytest.raises(NotLiteral):
            ev(src)
        return
    if isinstance(expected, complex) or (isinstance(expected, float) and math.isnan(expected)):
        with pytest.raises(NotLiteral):
            ev(src)
        return
    assert ev(src) == from_python(expected)


# -- #12: comprehensions and generator expressions over exact values ------------------------------

@pytest.mark.parametrize("src,want", [
    ("[i * i for i in range(4)]", [0, 1, 4, 9]),
    ("list(range(5))", [0, 1, 2, 3, 4]),
    ('"ab" * 3', "ababab"),
    ("[i for i in range(10) if i % 2 == 0]", [0, 2, 4, 6, 8]),
    ("[(i, j) for i in range(3) for j in range(i)]", [(1, 0), (2, 0), (2, 1)]),
    ("{k: v for k, v in [(1, 2), (3, 4)]}", {1: 2, 3: 4}),
    ("{i % 3 for i in range(10)}", {0, 1, 2}),
    ("tuple(c for c in 'abcde' if c in 'aeiou')", ("a", "e")),
    ("[[0] * 2 for _ in range(2)]", [[0, 0], [0, 0]]),
    ("-(2 ** 3)", -8),
])
def test_computed_but_exact_values(src, want):
    """#12 item 2: computed arguments are evaluated with Python's semantics, as Python would."""
    assert ev(src).val == ev(repr(want)).val


def test_comprehension_variables_do_not_leak():
    """#12: a comprehension's targets live in its own scope (Python 3)."""
    assert "name `i`" in refused("[i for i in range(3)] + [i]")


def test_comprehension_cannot_share_a_mutable_value():
    """#11 (identity): `[xs for _ in range(2)]` holds one object twice: not a literal."""
    from specguard.python.literals import eval_literal, eval_literal_text
    import ast
    env = {"xs": eval_literal_text("[1]")}
    with pytest.raises(NotLiteral, match="twice"):
        eval_literal(ast.parse("[xs for _ in range(2)]", mode="eval").body, env)


def test_comprehension_step_limit():
    """#12: a comprehension of more steps than the limit is refused, not evaluated."""
    assert "steps" in refused("[0 for i in range(1000) for j in range(1001)]")


def test_range_and_iter_are_argument_values():
    """#12.3: `range(...)` and `iter(<list/tuple/str/range>)` are exact values of their own kind
    (arguments only): a range is not the list of its items; an iterator counts as mutable."""
    from specguard.python.literals import eval_literal_text, is_mutable
    r = eval_literal_text("range(1, 4)")
    assert r.kind == "obj" and r != eval_literal_text("[1, 2, 3]") and r == eval_literal_text("range(True, 4, 1)")
    it = eval_literal_text("iter([1, 2])")
    assert it.kind == "obj" and it != eval_literal_text("iter((1, 2))") and is_mutable(it) and not is_mutable(r)
    assert eval_literal_text("list(range(3))") == eval_literal_text("[0, 1, 2]")
