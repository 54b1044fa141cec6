"""Differential test: the Lean value model (lean/SpecGuard/Value.lean), evaluated by the real
kernel, agrees with its Python mirror (specguard/emit.py) and so with CPython's ==."""

import random

import pytest

from specguard import emit, lean_runner
from specguard.emit import Outcome, Pred
from specguard.values import V, canon, from_python

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
