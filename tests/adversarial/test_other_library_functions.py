"""Issue 12, items 1, 2 and 7: other functions of the library under test (``mi.take`` in the tests
of ``lstrip``) are read as functions of their own only when the call surely reaches that function
and the function is a function of its arguments; every trap below must stay unread (or at least
give no certified conflict).  Cheap cases read the tests only (``formalize_tests``); the cases that
decide a verdict run the real CLI and the real Lean kernel."""

import json

import pytest

from specguard import cli, models
from specguard.formalize.tests import formalize_tests

DESC = "def f(xs):\n    \"\"\"Strip the items.\"\"\"\n"


def _read(files: dict[str, str], ep: str = "f"):
    return formalize_tests([models.TestSource(kind="python", path=p, text=t) for p, t in files.items()], ep)


def _lib_calls(tf) -> list[str]:
    return [d.call.lib for d in tf.demands if d.call.lib is not None]


def _check(tmp_path, files: dict[str, str], ep: str = "f") -> dict:
    (tmp_path / "d.py").write_text(DESC)
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.py"), "--tests", *paths, "--entry-point", ep,
              "--out", str(out), "-q"])
    return json.loads((out / "result.json").read_text())


HEAD = "import lib as m\nfrom lib import f\n\ndef test_f():\n    assert f([1]) == [1]\n\n"
TWO = ("def test_a():\n    assert m.g(1) == 2\n\n"
       "def test_b():\n    assert m.g(1) == 3\n")


def test_same_call_two_outcomes_is_a_certified_conflict(tmp_path):
    """#12.2: two tests about one call of another library function with different outcomes: a
    kernel-certified conflict (the marker input), stated under its assumption."""
    r = _check(tmp_path, {"test_x.py": HEAD + TWO})
    assert r["verdict"] == "conflict" and r["evidence"] == "certified"
    assert {i["statement"] for i in r["conflict"]["items"]} == {"lib.g(1) == 2", "lib.g(1) == 3"}
    assert any("Other functions of the library the tests call (`lib.g`)" in a for a in r["assumptions"])


def test_different_inputs_and_the_function_under_test_do_not_conflict(tmp_path):
    """#12.2: g on different inputs, and f on the same arguments as g, are different inputs."""
    code = HEAD + ("def test_a():\n    assert m.g(1) == 2\n    assert f(1) == 5\n\n"
                   "def test_b():\n    assert m.g(2) == 3\n    assert m.h(1) == 7\n")
    r = _check(tmp_path, {"test_x.py": code})
    assert r["verdict"] != "conflict"
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 5


@pytest.mark.parametrize("extra", [
    "m.g = lambda x: x\n",                                      # module-level rebinding of the attribute
    "def test_p(monkeypatch):\n    monkeypatch.setattr(m, 'g', lambda x: 9)\n",
    "from unittest import mock\n\n@mock.patch('lib.g')\ndef test_p(p):\n    pass\n",
    "def test_p():\n    setattr(m, 'g', None)\n",
    "def test_p():\n    setattr(m, 'g' + '', None)\n",          # a computed name: nothing is trusted
    "m.g.cache = {}\n",                                         # an attribute assigned on it
    "globals()['m'] = None\n",
    "def test_p():\n    d = vars(m)\n    d['g'] = None\n",          # the module's namespace, written
    "def test_p():\n    m.__dict__.update(g=None)\n",
    "def test_p():\n    m.i18n.activate('fr')\n",               # a call that changes the library's state
    "def test_p():\n    r = m.g(0)\n    assert r.value == 1\n",  # its results are objects
])
def test_rebound_patched_or_stateful_function_is_not_read(extra):
    """#12.1/#12.7: a name the tests rebind, patch, assign attributes on, or a library whose state the
    tests change, is never modelled: the calls stay unsupported."""
    tf = _read({"test_x.py": HEAD + TWO + "\n" + extra})
    assert "lib.g" not in _lib_calls(tf)
    assert any("m.g(1)" in u.text for u in tf.unsupported)


def test_harmless_reflection_and_local_aliases_do_not_disable_reading():
    """#12.1: `vars(obj)` of a local object, `x.__dict__` of one, and a local name bound to `m.g` (which
    rebinds that name, not `m.g`) leave `m.g(...)` calls read."""
    extra = ("class NS:\n    pass\n\n\ndef test_p():\n    o = NS()\n    vars(o)\n"
             "    assert o.__dict__ == {}\n    g = m.g\n")
    tf = _read({"test_x.py": HEAD + TWO + "\n" + extra})
    assert _lib_calls(tf).count("lib.g") == 2


def test_state_verbs_count_when_called_for_their_effect():
    """#12.7: `m.set_mode(1)` as a statement (made for its effect) may change the library's state: no
    other function is read; `m.set_partitions(...)` whose result is compared is not such a call."""
    tf = _read({"test_x.py": HEAD + TWO + "\ndef test_p():\n    m.set_mode(1)\n"})
    assert _lib_calls(tf) == []
    tf = _read({"test_x.py": HEAD + TWO + "\ndef test_p():\n    assert m.set_partitions([1]) == [[[1]]]\n"})
    assert sorted(_lib_calls(tf)) == ["lib.g", "lib.g", "lib.set_partitions"]


def test_conftest_rebinding_counts(tmp_path):
    """#12.1: a conftest beside the tests that rebinds the function: not read."""
    tf = _read({"tests/test_x.py": HEAD + TWO, "tests/conftest.py": "import lib\nlib.g = print\n"})
    assert "lib.g" not in _lib_calls(tf)


@pytest.mark.parametrize("name", ["random_product", "sample", "naturaltime", "now", "shuffled", "uuid4",
                                  "Counter", "cached_value", "_private", "naturalday", "set_locale"])
def test_names_that_may_vary_are_not_read(name):
    """#12.7: functions whose names say their results vary (random, time, uuid...), classes
    (CapWords) and private or state-changing names are not modelled."""
    tf = _read({"test_x.py": HEAD + TWO.replace("m.g", f"m.{name}")})
    assert _lib_calls(tf) == []


@pytest.mark.parametrize("code", [
    # rebound inside the test
    "from lib import f, g\n\ndef test_a():\n    g = max\n    assert g(1) == 2\n",
    # another package than the function under test's
    "from lib import f\nfrom other import g\n\ndef test_a():\n    assert g(1) == 2\n",
    "from lib import f\nimport other as m\n\ndef test_a():\n    assert m.g(1) == 2\n",
    # a relative import, a method of a local object, a call on a call
    "from lib import f\nfrom .lib import g\n\ndef test_a():\n    assert g(1) == 2\n",
    "from lib import f\n\ndef test_a():\n    o = f([])\n    assert o.g(1) == 2\n",
    "import lib as m\nfrom lib import f\n\ndef test_a():\n    assert m.g(1)(2) == 2\n",
    # imported twice from two modules of the library
    "from lib import f\nfrom lib.a import g\nfrom lib.b import g\n\ndef test_a():\n    assert g(1) == 2\n",
    # the function under test imported from two packages: no library
    "from lib import f\nimport pkg\n\ndef test_a():\n    assert pkg.f(0) == 1\n    assert pkg.g(1) == 2\n",
])
def test_calls_that_may_not_reach_the_library_function_are_not_read(code):
    """#12.1: only a callee resolved exactly through the test module's imports is modelled."""
    assert _lib_calls(_read({"test_x.py": code})) == []


def test_consumed_iterator_and_mutated_argument_are_not_one_input(tmp_path):
    """#12.2/#12.3: an iterator argument read twice, or a list g may have mutated, are not the
    same input twice: no conflict although the expected values differ."""
    code = HEAD + ("def test_a():\n    it = iter([1, 2])\n    assert m.g(it) == 1\n    assert m.g(it) == 2\n\n"
                   "def test_b():\n    xs = [1]\n    assert m.g(xs) == 1\n    assert m.g(xs) == 2\n")
    tf = _read({"test_x.py": code})
    keys = [d.call.key() for d in tf.demands if d.call.lib]
    assert len(keys) == len(set(keys))


def test_a_call_made_for_its_effect_blocks_what_follows():
    """#12.7: `m.g(1)` as a statement is a call made for its effect: the assertions after it are
    not read (it may change what later calls see)."""
    code = HEAD + "def test_a():\n    m.reset_all(1)\n    assert m.h(1) == 2\n\ndef test_b():\n    m.g(0)\n    assert m.h(1) == 3\n"
    tf = _read({"test_x.py": code})
    assert _lib_calls(tf) == []


def test_two_modules_of_one_library_are_two_functions(tmp_path):
    """#12.1: `lib.a.g` and `lib.b.g` are different functions with different keys: no conflict."""
    code = ("from lib import f\nimport lib.a as a\nimport lib.b as b\n\n"
            "def test_a():\n    assert a.g(1) == 2\n\ndef test_b():\n    assert b.g(1) == 3\n")
    tf = _read({"test_x.py": code})
    assert sorted(_lib_calls(tf)) == ["lib.a.g", "lib.b.g"]
    assert len({d.call.key() for d in tf.demands}) == 2


def test_a_description_rule_for_every_input_sets_other_functions_apart(tmp_path):
    """#12.2/#12.8: a return type (`-> int`) is a rule for every input of `impl`; it must not be
    applied to another function's calls (`lib.g(2) == [5, 6]` is no conflict with `-> int`), and
    the set-apart assertion no longer counts as read."""
    (tmp_path / "d.py").write_text('def f(x) -> int:\n    """Return a number.\n\n    >>> f(1)\n    2\n    """\n')
    (tmp_path / "test_x.py").write_text("import lib as m\nfrom lib import f\n\n\ndef test_a():\n"
                                        "    assert f(1) == 2\n    assert m.g(2) == [5, 6]\n")
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.py"), "--tests", str(tmp_path / "test_x.py"),
              "--entry-point", "f", "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert r["verdict"] != "conflict"
    assert r["coverage"]["assertions_read"] == 1 and r["coverage"]["assertions_total"] == 2
    assert any("another function of the library" in u["reason"] for u in r["unsupported"])


def test_a_call_result_as_argument_is_not_given_to_a_spec(tmp_path):
    """#12.2/#12.7: `f(m.g(1))` is read as f at the input "the result of g at (1,)"; a spec computes
    on exact argument values, so with `--spec` such an assertion is set apart (a spec run on the
    stand-in value could contradict the test where the real argument would not)."""
    (tmp_path / "d.py").write_text("def f(x):\n    \"\"\"Return the length.\"\"\"\n")
    (tmp_path / "spec.py").write_text("def reference(x: list[int]) -> int:\n    return len(x)\n")
    (tmp_path / "test_x.py").write_text("import lib as m\nfrom lib import f\n\n\ndef test_a():\n"
                                        "    assert f(m.g(1)) == 2\n    assert f([1, 2]) == 2\n")
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.py"), "--tests", str(tmp_path / "test_x.py"),
              "--entry-point", "f", "--spec", str(tmp_path / "spec.py"), "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert r["verdict"] != "conflict"
    assert [u["loc"]["line"] for u in r["unsupported"]] == [6]
    assert "a call's result is not an exact value" in r["unsupported"][0]["reason"]
    tf = _read({"test_x.py": "import lib as m\nfrom lib import f\n\n\ndef test_a():\n    assert f(m.g(1)) == 2\n"})
    assert [a.kind for a in tf.demands[0].call.args] == ["obj"]       # read without a spec


def test_a_held_result_changed_by_another_library_call_in_the_assertion(tmp_path):
    """#12.2 (red team): `r = f([1])` then `assert m.g(2) == len(r)`: `g` runs after `f` returned the
    list `r` holds and may append to it (a buffer the library shares), so nothing is certified."""
    tests = ("import lib as m\nfrom lib import f\n\ndef test_f():\n    assert f([1]) == [1]\n\n"
             "def test_g():\n    assert m.g(2) == 2\n\n"
             "def test_then_g():\n    r = f([1])\n    assert m.g(2) == len(r)\n")
    r = _check(tmp_path, {"test_x.py": tests})
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
