"""Differential test: the Lean value model (lean/SpecGuard/Value.lean), evaluated by the real
kernel, agrees with its Python mirror (specguard/kernel/emit.py) and so with CPython's ==."""

import random

import pytest

from specguard.kernel import emit, runner as lean_runner
from specguard.kernel.emit import Outcome, Pred
from specguard.python.values import V, canon, from_python

pytestmark = pytest.mark.lean

SAMPLES = [None, True, False, 0, 1, 2, -1, 10**30, -(10**30), 0.5, -0.25, 2.0, 1e300, float("inf"), float("-inf"),
           "", "a", "ab", "héllo", "a\nb", 'q"\\', b"", b"\x00\xff", [], [1], [1, 2.5], [[1], ["a"]], (), (1,),
           (1, "a"), {}, {1: "a"}, {"a": [1, 2], "b": None}, set(), {1, 2}, frozenset({"x"}), list(range(40))]


def _cases(rng):
    classes = [canon(from_python(x)) for x in SAMPLES]
    preds = [("eq", c) for c in classes[:20]] + [("ne", classes[3]), ("truthy",), ("falsy",),
                                                  ("cmp", "<", canon(from_python(1))), ("cmp", ">=", canon(from_python(0.5))),
                                                  ("cmp", "<=", canon(from_python(float("inf")))),
                                                  ("mem", tuple(classes[:6])), ("notmem", tuple(classes[5:9])),
                                                  ("len", 0), ("len", 2), ("len", 40),
                                                  ("type", ("int",)), ("type", ("float",)), ("type", ("bool",)),
                                                  ("type", ("str",)), ("type", ("list", ("int",))),
                                                  ("type", ("dict", ("str",), ("any",))), ("type", ("set", ("int",))),
                                                  ("type", ("union", ("none",), ("tupleOf", ("any",)))),
                                                  ("intIn", 0, 10), ("intIn", None, -1)]
    out = []
    for c in classes:
        for vp in rng.sample(preds, 12):
            for mode in ("returns", "ifReturns"):
                p = Pred(mode, vp)
                out.append((p, Outcome(cls=c)))
    out += [(Pred("raises"), Outcome(exc="ValueError")), (Pred("raises"), Outcome(cls=classes[0])),
            (Pred("returns", ("any",)), Outcome(exc="E")), (Pred("ifReturns", ("eq", classes[1])), Outcome(exc="E"))]
    return out


def test_predicates_agree_with_python_mirror(core):
    rng = random.Random(1234)
    cases = _cases(rng)
    lines = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "open SpecGuard"]
    for i, (p, o) in enumerate(cases):
        b = "Bool.true" if emit.eval_pred(p, o) else "Bool.false"
        lines.append(f"theorem c{i} : Eq ({p.lean()} {o.lean()}) {b} := Eq.refl {b}")
    res = lean_runner.check_text("\n".join(lines) + "\n", timeout=300)
    bad = [(cases[m.line - 5], m.text[:200]) for m in res.errors[:5]] if res.errors else []
    assert res.ok, bad
    assert len(cases) > 400


def test_beq_agrees_with_class_equality(core):
    classes = [canon(from_python(x)) for x in SAMPLES]
    lines = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "open SpecGuard"]
    n = 0
    for a in classes:
        for b in classes:
            r = "Bool.true" if a == b else "Bool.false"
            lines.append(f"theorem e{n} : Eq (Val.beq {emit.lean_val(a)} {emit.lean_val(b)}) {r} := Eq.refl {r}")
            n += 1
    res = lean_runner.check_text("\n".join(lines) + "\n", timeout=300)
    assert res.ok, [m.text[:200] for m in res.errors[:3]]


def test_val_order_agrees_with_python_mirror(core):
    """``Val.order`` (the search order of indexed witness tables) against ``emit.val_order``,
    on exact values and on call inputs (pairs of tuples and names), every pair both ways."""
    from specguard.models import Call
    vals = [from_python(x) for x in SAMPLES] + [from_python(x) for x in (-0.0, 0.0, 3, -3, "b", "ab\x00", [1, 3])]
    terms = [emit.lean_val(v) for v in vals]
    terms += [emit.lean_input(Call(target=t, args=tuple(from_python(a) for a in args)))
              for t, args in (("f", (1,)), ("f", (2,)), ("g", (1,)), ("f", (1, 2)), ("f", ("a",)), ("f", ()))]
    lines = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "open SpecGuard"]
    n = 0
    seen = set()
    for a in terms:
        for b in terms:
            r = emit.val_order(emit.parse_term(a), emit.parse_term(b))
            assert (r == 0) == (a == b)
            want = {-1: 0, 0: 1, 1: 2}[r]
            lines.append(f"theorem o{n} : Eq (Val.order {a} {b}) {want} := Eq.refl {want}")
            n += 1
            seen.add(r)
    assert seen == {-1, 0, 1}
    res = lean_runner.check_text("\n".join(lines) + "\n", timeout=300)
    assert res.ok, [m.text[:200] for m in res.errors[:3]]


def test_parse_term_reads_what_emit_writes():
    for x in SAMPLES:
        v = from_python(x)
        t = emit.parse_term(emit.lean_val(v))
        assert t[0].startswith("Val.")
    assert emit.parse_term('(Val.str "a\\"b\\\\\\n\\x01")') == ("Val.str", (("", 'a"b\\\n\x01'),))
    for bad in ("(Val.int", "Val.int)", "(Val.int @)", ""):
        with pytest.raises(ValueError):
            emit.parse_term(bad)


def _random_value(rng, depth=0):
    k = rng.randrange(9 if depth < 2 else 6)
    if k == 0:
        return None
    if k == 1:
        return rng.random() < 0.5
    if k == 2:
        return rng.randint(-3, 3) * (10 ** rng.randint(0, 25))
    if k == 3:
        return rng.choice([0.5, -0.25, 2.0, -0.0, float("inf")])
    if k == 4:
        return "".join(rng.choice("ab\x00é") for _ in range(rng.randrange(4)))
    if k == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(3)))
    items = [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if k == 6:
        return items
    if k == 7:
        return tuple(items)
    return {i: v for i, v in enumerate(items)}


def test_val_order_agrees_on_random_values(core):
    """Randomized: the kernel's ``Val.order`` and ``emit.val_order`` agree on nested values whose
    first difference lies anywhere (the indexed witness tables rely on it)."""
    rng = random.Random(20261129)
    terms = sorted({emit.lean_val(from_python(_random_value(rng))) for _ in range(80)})
    lines = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "open SpecGuard"]
    for n in range(300):
        a, b = rng.choice(terms), rng.choice(terms)
        want = {-1: 0, 0: 1, 1: 2}[emit.val_order(emit.parse_term(a), emit.parse_term(b))]
        lines.append(f"theorem r{n} : Eq (Val.order {a} {b}) {want} := Eq.refl {want}")
    res = lean_runner.check_text("\n".join(lines) + "\n", timeout=300)
    assert res.ok, [m.text[:200] for m in res.errors[:3]]
