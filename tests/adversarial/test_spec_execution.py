"""Trust layer: spec execution (issue 11, items 2, 17, 18 and the spec part of 21).

SpecGuard never executes a spec's source text (a ``--spec`` file or a model-written spec): every
node of the module is checked against the subset, and only SpecGuard's own evaluator of the IR
it built runs, bounded in steps, wall time and memory.  Its results keep Python's exact types.
CPython runs here only spec sources this file wrote (``tests/spec_oracle.py``), as the oracle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import spec_oracle  # noqa: E402  (tests/spec_oracle.py: CPython on the tests' own sources)

from specguard import cli
from specguard.kernel import runner as lean_runner, certcheck
from specguard.model import spec_agent
from specguard.formalize import speclang
from specguard.python import values as vals  # noqa: E402
from specguard.formalize.speclang import SpecError, SpecProgram  # noqa: E402
from specguard.python.values import V  # noqa: E402

TESTS = "from m import f\n\n\ndef test_a():\n    assert f(3) == 5\n\n\ndef test_b():\n    assert f(4) == 4\n"


def _cli(*args, cwd: Path, timeout: float = 120):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                       cwd=cwd, env=env, timeout=timeout)
    return p, time.monotonic() - t


# =====================================================================================
# #11.2: every node is checked; nothing in a spec runs
# =====================================================================================

def _pwn(marker: Path) -> str:
    """Python that would create ``marker`` if anything ever executed it."""
    return f"__import__('os').system('touch {marker}')"


OK_FN = "def reference(n: int) -> int:\n    return n + 1\n"

# (name, spec text with {X} standing for the attack expression, line the error must name)
ATTACKS = [
    ("unused_constant", "X = {X}\n\n" + OK_FN, 1),
    ("unused_constant_after_functions", OK_FN + "\nUNUSED = [1, 2, {X}]\n", 4),
    ("module_annotation", "Y: {X} = 1\n\n" + OK_FN, 1),
    ("module_annotation_of_a_constant_only", OK_FN + "\nZ: int = {X}\n", 4),
    ("parameter_annotation", "def reference(n: {X}) -> int:\n    return n\n", 1),
    ("return_annotation", "def reference(n: int) -> {X}:\n    return n\n", 1),
    ("optional_globals_annotation",
     "from typing import Optional\n\ndef reference(n: Optional.__class__.__init__.__globals__['sys']) -> int:\n"
     "    return n\n", 3),
    ("quoted_annotation", "def reference(n: \"{X}\") -> int:\n    return n\n", 1),
    ("subscript_annotation", "def reference(n: list[{X}]) -> int:\n    return 1\n", 1),
    ("default", "def reference(n: int = {X}) -> int:\n    return n\n", 1),
    ("decorator", "@{X}\ndef reference(n: int) -> int:\n    return n\n", 1),
    ("decorator_on_helper", OK_FN + "\n@staticmethod\ndef helper(n: int) -> int:\n    return n\n", 4),
    ("local_annotation", "def reference(n: int) -> int:\n    x: {X} = 1\n    return n\n", 2),
    ("bare_local_annotation", "def reference(n: int) -> int:\n    x: {X}\n    return n\n", 2),
    ("import_second_alias", "import typing, os\n\n" + OK_FN, 1),
    ("from_os", "from os import system\n\n" + OK_FN, 1),
    ("relative_import", "from . import spec\n\n" + OK_FN, 1),
    ("module_if", "if True:\n    X = {X}\n\n" + OK_FN, 1),
    ("module_expression", "{X}\n\n" + OK_FN, 1),
    ("class", "class A:\n    x = {X}\n\n" + OK_FN, 1),
    ("dunder_constant", "__builtins__ = 1\n\n" + OK_FN, 1),
    ("dunder_function", OK_FN + "\ndef __getattr__(name: str) -> int:\n    return 1\n", 4),
    ("dunder_attribute", "def reference(n: int) -> int:\n    return n.__class__\n", 2),
    ("dunder_method", "def reference(s: str) -> int:\n    return s.__len__()\n", 2),
    ("dunder_name", "def reference(n: int) -> int:\n    return __import__\n", 2),
    ("raise_dunder", "def reference(n: int) -> int:\n    raise __import__('os')\n", 2),
    ("raise_attribute", "def reference(n: int) -> int:\n    raise {X}\n", 2),
    ("lambda_default", "def reference(xs: list[int]) -> list[int]:\n    return sorted(xs, key=lambda x, y={X}: x)\n", 2),
    ("format_spec", "def reference(n: int) -> str:\n    return f\"{n:{X}}\"\n", 2),
    ("walrus", "def reference(n: int) -> int:\n    return (y := {X})\n", 2),
    ("fuel_expression", "FUEL = {X}\n\n" + OK_FN, 1),
    ("entry_expression", "ENTRY = {X}\n\n" + OK_FN, 1),
    ("examples_call", OK_FN + "\nEXAMPLES = [((1,), {X})]\n", 4),
    ("global_statement", "def reference(n: int) -> int:\n    global os\n    return n\n", 2),
    ("async_def", "async def reference(n: int) -> int:\n    return n\n", 1),
]


@pytest.mark.parametrize("name,template,line", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_attack_rejected_before_anything_runs(name, template, line, tmp_path, monkeypatch, capsys):
    """#11.2: a spec hiding code outside the subset (unused constant, annotation, default,
    decorator, dunder access, import...) is a SpecError at file:line with a fix (exit 3, no
    traceback), and nothing ran: the file the attack would create does not exist."""
    marker = tmp_path / "PWNED"
    spec = tmp_path / "spec.py"
    spec.write_text(template.replace("{X}", _pwn(marker)))
    (tmp_path / "test_f.py").write_text(TESTS)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as e:
        SpecProgram(spec.read_text(), str(spec))
    assert e.value.line == line, str(e.value)
    code = cli.main(["check", "--spec", str(spec), "--tests", str(tmp_path / "test_f.py"), "--entry-point", "f",
                     "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert code == 3, err
    assert f"{spec}:{line}:" in err and "Traceback" not in err
    assert not marker.exists()
    assert not (tmp_path / "b").exists()


def test_attack_through_the_real_cli_runs_nothing(tmp_path):
    """#11.2: the same in a subprocess (the real CLI), for the two attacks of the issue: an
    unused constant and ``Optional.__class__.__init__.__globals__`` in an annotation."""
    marker = tmp_path / "PWNED"
    (tmp_path / "test_f.py").write_text(TESTS)
    for i, text in enumerate([f"X = {_pwn(marker)}\n\n" + OK_FN,
                              "from typing import Optional\n\ndef reference(n: Optional.__class__.__init__"
                              f".__globals__['__builtins__']['__import__']('os').system('touch {marker}')) -> int:\n"
                              "    return n\n"]):
        spec = tmp_path / f"spec{i}.py"
        spec.write_text(text)
        p, _ = _cli("check", "--spec", spec, "--tests", tmp_path / "test_f.py", "--entry-point", "f",
                    "--out", tmp_path / f"b{i}", cwd=tmp_path)
        assert p.returncode == 3, p.stdout + p.stderr
        assert f"{spec}:" in p.stderr and "fix:" in p.stderr and "Traceback" not in p.stderr
    assert not marker.exists()


def test_model_written_attack_is_fed_back_not_run(tmp_path):
    """#11.2: a model-written spec with the attack is rejected by the spec agent's check (the
    error goes back to the model); nothing ran."""
    marker = tmp_path / "PWNED"
    reply = f"```python\nX = {_pwn(marker)}\n\n{OK_FN}```\n"
    program, code, err = spec_agent._check_reply(reply, 0, "Add one to n.", "f")
    assert program is None and "outside the spec language" in err and "model-spec-1.py:1" in err
    assert not marker.exists()


def test_the_cpython_tier_is_gone():
    """#11.2: SpecGuard has no code path that runs a spec with CPython: no run_cpython, no
    subprocess in the spec language, no exec/eval/compile of spec text in the package."""
    assert not hasattr(speclang, "run_cpython") and not hasattr(speclang, "cpython_outcomes")
    src = (ROOT / "specguard" / "formalize" / "speclang.py").read_text()
    assert "import subprocess" not in src and "exec(" not in src and "compile(" not in src
    for f in (ROOT / "specguard").rglob("*.py"):
        text = f.read_text()
        assert "run_cpython" not in text, f
        assert "exec(compile" not in text and "\nexec(" not in text, f


def test_typing_imports_and_annotations_still_accepted():
    """#11.2: what the language allows stays allowed (typing imports, quoted and Optional/Union
    annotations, annotated constants, local annotations)."""
    p = SpecProgram('"""doc"""\nfrom typing import Optional, List\nimport typing\n\nLIMIT: int = 10\n'
                    'UNUSED = [1, 2, 3]\n\n'
                    'def reference(xs: "List[int]", k: Optional[int] = None) -> "int | None":\n'
                    '    total: int = 0\n    seen: list[int]\n    for x in xs:\n        total += x\n'
                    '    if k is None:\n        return min(total, LIMIT)\n    raise ValueError("k")\n', "ok.py")
    out = p.outcome([vals.from_python([1, 2])])
    assert out.kind == "eq" and out.exact == V("int", 3)


@pytest.mark.lean
def test_execution_evidence_is_specguards_own_evaluator(tmp_path, core):
    """#11.2: beyond the kernel budget, the evidence is SpecGuard's own evaluator of the checked
    IR (said so in the reason), not CPython; the test it contradicts is reported."""
    spec = tmp_path / "spec.py"
    spec.write_text("def reference(n: int) -> int:\n    total = 0\n    for i in range(n):\n"
                    "        total += i\n    return total\n")
    (tmp_path / "test_f.py").write_text("from m import f\n\ndef test_big():\n    assert f(3000) == 7\n")
    p, _ = _cli("check", "--spec", spec, "--tests", tmp_path / "test_f.py", "--entry-point", "f",
                "--out", tmp_path / "b", "--json", "--spec-budget", "100", cwd=tmp_path)
    r = json.loads(p.stdout)
    assert p.returncode == 1 and r["verdict"] == "conflict" and r["evidence"] == "execution", p.stdout + p.stderr
    assert "SpecGuard's own evaluator" in r["reason"] and "not kernel-checked" in r["reason"]
    assert "CPython" not in r["reason"] and "4498500" in json.dumps(r["conflict"])


# =====================================================================================
# #11.17: exact types (bool is not int; -0.0, bytes stay outside, never confused)
# =====================================================================================

EXPRS = [
    "a % 2 == 0", "a != b", "a < b <= 5", "p", "not a", "not p", "bool(a)", "p and a", "a and p", "p or a",
    "a or p", "p & q", "p | q", "p ^ q", "a & p", "~p", "-p", "+p", "abs(p)", "p + q", "p * 3", "p - q",
    "p // 1", "p % 2", "p ** 2", "p << 1", "p >> 0", "int(p)", "divmod(p, 1)", "max(p, q)", "min(p, 0)",
    "max([p, q, 0])", "min([0, p])", "sorted([p, 0, q])", "sum([p, q])", "sum([p], 0)", "[p] * 2",
    "(p, q)", "[p, a]", "{p: 1, 1: 2}", "{1: 'a', p: 'b'}", "len({p, 1, 0})", "sorted({p, 1, 0})",
    "p in [1, 2]", "a in [1, 2]", "s in 'abc'", "s.startswith('a')", "s.isdigit()", "s.isalpha()",
    "any([p, q])", "all([])", "any([])", "all([a, p])", "a if p else q", "p if a else q",
    "[x for x in [p, q] if x]", "max([p, q], default=0)", "str(p)", "f'{p}'", "str([p, q])", "repr(p)",
    "len(s) > 0", "s == 'a'", "s * a", "s + str(a)", "a is None", "p is True", "[p, q].count(True)",
    "[p, q].index(q)", "(a, p) < (a, q)", "abs(a)", "-a", "a // 3", "{p: a}.get(1)", "{1: a}.get(p, q)",
    "list(reversed([p, q]))", "list(zip([p], [q]))", "list(enumerate([p]))", "tuple([p])",
]


def _expr_module(params: str) -> str:
    fns = [f"def e{i}({params}) -> bool:\n    return {x}\n" for i, x in enumerate(EXPRS)]
    return f"def reference({params}) -> int:\n    return 0\n\n" + "\n".join(fns)


@settings(max_examples=1, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.booleans(), st.booleans(),
                          st.sampled_from(["", "a", "ab", "1", "b2"])), min_size=6, max_size=6))
def test_evaluator_returns_pythons_exact_types(rows):
    """#11.17: SpecGuard's evaluator returns CPython's exact value and type for each expression
    (``n % 2 == 0`` is ``True``, not ``1``; ``True & True`` is a bool, ``True + 0`` an int):
    compared by exact value (kind-sensitive) and by repr, not by ``==``."""
    src = _expr_module("a: int, b: int, p: bool, q: bool, s: str")
    prog = SpecProgram(src, "exprs.py")
    rows = [(1, 2, True, False, "ab"), (0, 0, False, False, ""), (2, -1, True, True, "1")] + list(rows)
    calls = [(f"e{i}", tuple(vals.from_python(x) for x in row)) for row in rows for i in range(len(EXPRS))]
    cp = spec_oracle.run_cpython(src, calls, timeout=60)
    assert len(cp) == len(calls)
    checked = 0
    for (name, args), r in zip(calls, cp):
        kind, got = prog.run(name, args)
        if r.kind == "ret":
            assert kind == "ret", (name, EXPRS[int(name[1:])], args, kind, got)
            assert got == r.value and type(got.val) is type(r.value.val), (EXPRS[int(name[1:])], args, got, r.value)
            assert vals.py_repr(got) == vals.py_repr(r.value)
            checked += 1
        else:
            assert kind != "ret", (EXPRS[int(name[1:])], args, got, r)
    assert checked > len(calls) * 0.9


@pytest.mark.lean
def test_kernel_returns_pythons_exact_scalar_types(core):
    """#11.17: the kernel's evaluation of the compiled spec (``P i args``, before Py.canon) gives
    CPython's exact scalar (``Val.bool`` for a bool, ``Val.int`` for an int, str, None), for every
    expression above at a few inputs: kernel vs CPython, one Lean file."""
    from specguard.kernel import emit
    src = _expr_module("a: int, b: int, p: bool, q: bool, s: str")
    prog = SpecProgram(src, "exprs.py")
    rows = [(1, 2, True, False, "ab"), (0, -1, False, True, ""), (-2, 3, True, True, "1")]
    calls = [(f"e{i}", tuple(vals.from_python(x) for x in row)) for row in rows for i in range(len(EXPRS))]
    cp = spec_oracle.run_cpython(src, calls, timeout=60)
    thms = []
    for k, ((name, args), r) in enumerate(zip(calls, cp)):
        if r.kind == "ret" and r.value.kind in ("bool", "int", "str", "none"):
            argl = speclang._lean_list([emit.lean_val(x) for x in args])
            thms.append(f"theorem x{k} : Eq (P {prog.index[name]} {argl}) "
                        f"(Option.some (Py.Res.ret {emit.lean_val(r.value)})) := Eq.refl _")
    assert len(thms) > 100 and any("Val.bool" in t for t in thms)
    head = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "import SpecGuard.Py",
            "noncomputable section", "open SpecGuard", f"def P : Nat → List Val → Option Py.Res := {prog.lean_prog()}"]
    res = lean_runner.check_text("\n".join(head + thms) + "\n", timeout=600, options=list(certcheck.LEAN_OPTIONS))
    bad = [thms[(m.line or 0) - len(head) - 1][:160] for m in res.errors if 0 <= (m.line or 0) - len(head) - 1 < len(thms)]
    assert res.ok and not bad, (bad[:3], res.errors[:2])


@pytest.mark.parametrize("x", [-0.0, 0.0, 1.0, b"a", b"", frozenset({1})])
def test_values_outside_the_subset_are_never_confused(x):
    """#11.17: a float (-0.0), bytes or frozenset input passed through a spec is outside the
    evaluator's value model: it says nothing (never a wrong-typed value such as 0 or "a")."""
    try:
        arg = vals.from_python(x)
    except (TypeError, ValueError):
        pytest.skip("not a plain value")
    prog = SpecProgram("def reference(x: int) -> int:\n    return x\n", "id.py")
    kind, got = prog.run("reference", [arg])
    assert kind == "none", got
    cp = spec_oracle.run_cpython(prog, [("reference", (arg,))])
    assert cp[0].kind == "ret" and cp[0].value == arg       # CPython returns it exactly
    out = prog.outcome([arg])
    assert out.kind == "none"


def test_outcome_keeps_the_exact_value_and_its_class():
    """#11.17: MirrorOut.value is the == class (True's class is 1's, as in Lean's Py.canon),
    MirrorOut.exact the value with its type."""
    prog = SpecProgram("def reference(n: int) -> list:\n    return [n % 2 == 0, n, (n > 0,)]\n", "b.py")
    out = prog.outcome([V("int", 4)])
    assert out.kind == "eq"
    assert out.exact == vals.from_python([True, 4, (True,)])
    assert out.value == vals.canon(vals.from_python([True, 4, (True,)]))
    assert vals.py_repr(out.exact) == "[True, 4, (True,)]"


def test_spec_agent_does_not_reject_a_correct_bool_spec():
    """#11.17: the spec agent no longer tells a model that its correct bool spec "returns 1";
    a wrong one is told what it returns with its own type ("returns False", not 0)."""
    desc = ('def is_even(n: int) -> bool:\n    """Whether n is even.\n\n    >>> is_even(4)\n    True\n'
            '    >>> is_even(7)\n    False\n    """\n')
    good = SpecProgram("def reference(n: int) -> bool:\n    return n % 2 == 0\n", "good.py")
    assert spec_agent.example_disagreements(good, desc, "is_even") == []
    bad = SpecProgram("def reference(n: int) -> bool:\n    return n % 2 == 1\n", "bad.py")
    msgs = spec_agent.example_disagreements(bad, desc, "is_even")
    assert len(msgs) == 2 and "returns False" in msgs[0] and "returns True" in msgs[1], msgs
    assert not any("returns 0" in m or "returns 1" in m for m in msgs)


@pytest.mark.lean
def test_kernel_keeps_bools_distinct_from_ints(core):
    """#11.17: in Lean the compiled spec returns ``Val.bool true`` for ``n % 2 == 0`` (not
    ``Val.int 1``); only the == class (Py.canon) maps it to 1, as values.canon does."""
    p = SpecProgram("def reference(n: int) -> bool:\n    return n % 2 == 0\n", "b.py")
    text = "\n".join([
        "prelude", "import SpecGuard.Core", "import SpecGuard.Value", "import SpecGuard.Py", "noncomputable section",
        "open SpecGuard", f"def P : Nat → List Val → Option Py.Res := {p.lean_prog()}",
        "theorem t1 : Eq (P 0 (List.cons (Val.int 4) List.nil)) (Option.some (Py.Res.ret (Val.bool Bool.true))) := Eq.refl _",
        "theorem t2 : Eq (P 0 (List.cons (Val.int 3) List.nil)) (Option.some (Py.Res.ret (Val.bool Bool.false))) := Eq.refl _",
        "theorem t3 : Eq (Py.runCanon P 0 (List.cons (Val.int 4) List.nil)) (Option.some (Py.Res.ret (Val.int 1))) := Eq.refl _",
    ]) + "\n"
    res = lean_runner.check_text(text, timeout=300, options=list(certcheck.LEAN_OPTIONS))
    assert res.ok, res.errors[:2]
    assert p.run("reference", [V("int", 4)]) == ("ret", V("bool", True))


# =====================================================================================
# #11.18: bounded evaluation everywhere (check --spec, verify --inputs, spec agent)
# =====================================================================================

FUEL_SPEC = ("FUEL = 1000000000\n\ndef reference(n: int) -> int:\n    i = 0\n    while i != n:\n        i += 2\n"
             "    return i\n")
DOUBLING_SPEC = ("FUEL = 1000000000\n\ndef reference(n: int) -> list[int]:\n    xs = [1]\n    while True:\n"
                 "        xs = xs + xs\n    return xs\n")
SHARING_SPEC = ("FUEL = 1000000000\n\ndef reference(n: int) -> list:\n    xs = [1]\n    for i in range(n):\n"
                "        xs = [xs, xs]\n    return xs\n")
SHARING_EQ_SPEC = ("FUEL = 1000000000\n\ndef reference(n: int) -> bool:\n    xs = [1]\n    ys = [1]\n"
                   "    for i in range(n):\n        xs = [xs, xs]\n        ys = [ys, ys]\n    return xs == ys\n")
BIGINT_SPEC = ("FUEL = 1000000000\n\ndef reference(n: int) -> int:\n    x = 3\n    out = []\n    while True:\n"
               "        x = x * x + 1\n        out.append(x)\n    return 0\n")
POST_SPEC = ("FUEL = 1000000000\n\ndef post(n: int, result: int) -> bool:\n    i = 0\n    while i != n:\n"
             "        i += 2\n    return result == i\n")


def _odd_tests(n: int) -> str:
    return "from m import f\n\n" + "".join(f"def test_{i}():\n    assert f({2 * i + 1}) == {i}\n\n" for i in range(n))


@pytest.mark.lean
def test_fuel_in_a_spec_cannot_raise_the_bounds_check_and_verify(tmp_path, core):
    """#11.18: FUEL = 10**9 and a loop that never ends at 40 tested inputs: `check --spec` and
    `verify --inputs` end within seconds, inconclusive, "evaluation budget exceeded" (before
    the fix: about 6 s per input, hours for a large bundle)."""
    spec = tmp_path / "spec.py"
    spec.write_text(FUEL_SPEC)
    (tmp_path / "test_f.py").write_text(_odd_tests(40))
    p, secs = _cli("check", "--spec", spec, "--tests", tmp_path / "test_f.py", "--entry-point", "f",
                   "--out", tmp_path / "b", "--json", cwd=tmp_path)
    assert p.returncode == 2, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["verdict"] == "inconclusive"
    assert any("evaluation budget exceeded" in n for n in r["notes"]), r["notes"]
    assert secs < 40, secs
    v, vsecs = _cli("verify", tmp_path / "b", "--inputs", spec, tmp_path / "test_f.py", cwd=tmp_path)
    assert "Traceback" not in v.stderr and "inconclusive" in v.stdout, v.stdout + v.stderr
    assert vsecs < 40, vsecs


def test_postcondition_loops_are_bounded():
    """#11.18: a `post` that never ends, checked at many inputs and candidate results (as
    check's planning does, one shared budget per run): ends within seconds; once the budget is
    spent every check is "unknown" (True: no conflict rests on it)."""
    prog = SpecProgram(POST_SPEC, "post.py")
    budget = speclang.EvalBudget()
    t = time.monotonic()
    for i in range(30):
        out = prog.outcome([V("int", 2 * i + 1)], budget=budget)
        assert out.kind in ("post", "unknown")
        if out.kind == "post":
            for d in range(5):
                assert prog.post_holds(out.args, V("int", i + d), budget=budget) is True
    assert time.monotonic() - t < 30
    assert budget.exceeded and "evaluation budget exceeded" in budget.exceeded


@pytest.mark.parametrize("src", [DOUBLING_SPEC, SHARING_SPEC, SHARING_EQ_SPEC, BIGINT_SPEC, FUEL_SPEC],
                         ids=["doubling", "sharing", "sharing_eq", "bigint", "fuel"])
def test_growing_values_are_bounded_in_time_and_memory(src):
    """#11.18: a list doubling in a loop, sub-lists shared 2**n ways (result, ==), ever larger
    ints appended: each evaluation ends within seconds and a few hundred MB, claiming nothing."""
    prog = SpecProgram(src, "grow.py")
    rss0 = speclang._rss()
    t = time.monotonic()
    budget = speclang.EvalBudget()
    outs = [prog.outcome([V("int", n)], budget=budget) for n in (3, 201, 5001, 99)]
    assert time.monotonic() - t < 30
    if rss0 is not None:
        assert speclang._rss() - rss0 < 700 * 2**20
    for o in outs[1:]:
        assert o.kind in ("unknown", "none") and (o.kind == "unknown" or not o.sure), o
    assert budget.used < 2 * budget.steps


def test_spec_agent_feedback_is_bounded():
    """#11.18: the spec agent's check of a model's spec against the description's examples is
    bounded too (one budget for all examples of a spec)."""
    desc = "def f(n: int) -> int:\n    \"\"\"\n" + "".join(f"    >>> f({2 * i + 1})\n    {i}\n" for i in range(30)) + \
        "    \"\"\"\n"
    t = time.monotonic()
    prog, code, err = spec_agent._check_reply(f"```python\n{FUEL_SPEC}```", 0, desc, "f")
    assert time.monotonic() - t < 30
    assert prog is not None and err == ""          # nothing known, so no disagreement is claimed


def test_memoized_evaluations_spend_the_same_budget():
    """#11.18: re-deriving (verify) replays memoized evaluations, charging what they cost, so the
    same inputs reach the same outcomes in the same order, in a fraction of the time."""
    prog = SpecProgram(FUEL_SPEC, "fuel.py")
    args = [[V("int", n)] for n in (4, 3, 8, 5, 6, 7, 10)]

    def derive():
        b = speclang.EvalBudget(steps=2_000_000)      # two non-terminating inputs spend it
        return [(o.kind, o.reason, o.value) for o in (prog.outcome(a, budget=b) for a in args)], b.used
    t = time.monotonic()
    first = derive()
    t1 = time.monotonic() - t
    t = time.monotonic()
    second = derive()
    assert second == first and time.monotonic() - t < max(0.5, t1 / 4)
    kinds = [k for k, _, _ in first[0]]
    assert kinds[0] == "eq" and "unknown" in kinds and kinds[-1] == "unknown"
    assert "evaluation budget exceeded" in first[0][-1][1]


# =====================================================================================
# #11.21 (spec part): deep nesting is a clean error
# =====================================================================================

DEEP = {
    "parens": "(" * 10_000 + "1" + ")" * 10_000,
    "brackets": "[" * 10_000 + "]" * 10_000,
    "plus_chain": "+".join(["1"] * 100_000),
    "unary_chain": "-" * 100_000 + "1",
    "not_chain": "not " * 50_000 + "1",
    "ifexp_chain": " if 1 else ".join(["1"] * 20_000),
    "subscripts": "n" + "[0]" * 50_000,
    "lambdas": "lambda: " * 5_000 + "1",
    "wide_list": "len([" + "[]," * 100_000 + "])",
    "moderate_plus_chain": "+".join(["n"] * 400),
    "moderate_nesting": "[" * 150 + "n" + "]" * 150,
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deeply_nested_spec_is_a_clean_error(name):
    """#11.21: a deeply nested (or huge) spec expression is a SpecError naming the file, never a
    RecursionError / MemoryError traceback."""
    src = "def reference(n: int) -> int:\n    return " + DEEP[name] + "\n"
    with pytest.raises(SpecError) as e:
        SpecProgram(src, "deep.py")
    assert "deep.py" in str(e.value)


def test_deeply_nested_spec_through_the_cli(tmp_path):
    """#11.21: through the real CLI: exit 3, an error with the file, no traceback; and through the
    spec agent: the error goes back to the model."""
    (tmp_path / "test_f.py").write_text(TESTS)
    for name in ("plus_chain", "unary_chain", "wide_list"):
        spec = tmp_path / f"{name}.py"
        spec.write_text("def reference(n: int) -> int:\n    return " + DEEP[name] + "\n")
        p, _ = _cli("check", "--spec", spec, "--tests", tmp_path / "test_f.py", "--entry-point", "f",
                    "--out", tmp_path / "b", cwd=tmp_path)
        assert p.returncode == 3 and f"{spec}" in p.stderr and "Traceback" not in p.stderr, p.stderr[-500:]
    reply = "```python\ndef reference(n: int) -> int:\n    return " + DEEP["unary_chain"] + "\n```\n"
    prog, _, err = spec_agent._check_reply(reply, 0, "Return n.", "f")
    assert prog is None and "nested" in err


def test_reasonable_nesting_still_accepted():
    """#11.21: the bounds leave room for real specs (a few dozen levels, hundreds of items)."""
    SpecProgram("def reference(n: int) -> int:\n    return " + "+".join(["n"] * 60) + "\n", "ok.py")
    SpecProgram("def reference(n: int) -> list:\n    return [" + ", ".join(f"[n, {i}]" for i in range(300)) + "]\n",
                "ok.py")
    SpecProgram("def reference(n: int) -> int:\n    return " + "(" * 40 + "n" + ")" * 40 + "\n", "ok.py")
