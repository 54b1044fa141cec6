"""Issue 11, items 10, 11, 12 and 16: which code the formalization reads as assertions on the
function under test follows Python's binding semantics (pytest runs a module's final bindings; a
name denotes the entry point only when imported from one module and never rebound; a doctest
session is a Python session), and opposite truthiness demands on one call are a certified conflict.

Each case runs the real pipeline (``specguard check`` through ``cli.main``) and, where a conflict is
expected, the real Lean kernel."""

import json

import pytest

from specguard import cli
from specguard.formalize.description import formalize_description
from specguard.formalize.tests import formalize_tests
from specguard import models

DESC = "Return whether a divides b.\n"


def _check(tmp_path, tests: str, desc: str = DESC, ep: str = "f") -> dict:
    (tmp_path / "d.md").write_text(desc)
    (tmp_path / "test_x.py").write_text(tests)
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.md"), "--tests", str(tmp_path / "test_x.py"),
              "--entry-point", ep, "--out", str(out), "-q"])
    return json.loads((out / "result.json").read_text())


def _read(code: str, ep: str = "f"):
    return formalize_tests([models.TestSource(kind="python", path="test_x.py", text=code)], ep)


def _reasons(tf) -> list[str]:
    return [u.reason for u in tf.unsupported]


# -- #11.10: pytest runs only a module's final binding ------------------------------------------------

@pytest.mark.parametrize("code", [
    # defined twice: the first is never run
    "from m import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n",
    # set to None after its definition
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n\ntest_a = None\n",
    # deleted
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n\ndel test_a\n",
    # a method defined twice in a class
    "from m import f\n\nclass TestA:\n    def test_a(self):\n        assert f(1) == 1\n\n"
    "    def test_a(self):\n        assert f(1) == 1.5\n",
    # a class rebound at module level
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\nclass TestA:\n    def test_a(self):\n"
    "        assert f(1) == 2\n\nTestA = None\n",
    # rebound conditionally, or through globals()
    "from m import f\nimport sys\n\ndef test_b():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n\n"
    "if sys.platform:\n    test_a = None\n",
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n\n"
    "globals()['test_a'] = None\n",
    # not collected, or marked, through an attribute of the function
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n\n"
    "test_a.__test__ = False\n",
    "import pytest\nfrom m import f\n\ndef test_b():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n\n"
    "test_a.pytestmark = [pytest.mark.skip]\n",
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n\n"
    "setattr(test_a, '__test__', False)\n",
    # a decorator may return anything (here: None, so pytest collects nothing)
    "from m import f\n\ndef gone(fn):\n    return None\n\ndef test_b():\n    assert f(1) == 1\n\n"
    "@gone\ndef test_a():\n    assert f(1) == 2\n",
    # a base class of the file that pytest's collection inherits from: `__test__ = False`, `__init__`
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\nclass Base:\n    __test__ = False\n\n"
    "class TestA(Base):\n    def test_a(self):\n        assert f(1) == 2\n",
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\nclass Base:\n    def __init__(self):\n"
    "        pass\n\nclass TestA(Base):\n    def test_a(self):\n        assert f(1) == 2\n",
    # a base class from elsewhere, or a metaclass, may change what runs
    "from m import f\nfrom helpers import Base\n\ndef test_b():\n    assert f(1) == 1\n\n"
    "class TestA(Base):\n    def test_a(self):\n        assert f(1) == 2\n",
    "from m import f\n\ndef test_b():\n    assert f(1) == 1\n\nclass TestA(metaclass=type):\n"
    "    def test_a(self):\n        assert f(1) == 2\n",
    # a method removed from its class after the class body
    "from m import f\n\nclass TestA:\n    def test_a(self):\n        assert f(1) == 1\n\n"
    "    def test_b(self):\n        assert f(1) == 2\n\ndel TestA.test_b\n",
])
def test_a_test_pytest_does_not_run_is_not_formalized(tmp_path, code):
    """#11.10: a test function/method/class defined twice, set to None, deleted, or rebound
    conditionally or dynamically is not what pytest runs: no test-vs-test conflict is certified."""
    r = _check(tmp_path, code)
    assert r["verdict"] != "conflict", r["reason"]
    assert any("pytest does not run" in u["reason"] or "may replace or wrap it" in u["reason"]
               or "pytest may not collect" in u["reason"] for u in r["unsupported"]), r["unsupported"]


def test_a_test_class_deriving_from_a_plain_test_class_of_the_file_is_read():
    """#11.10: a base class of the file with nothing that changes collection keeps its subclass a test."""
    tf = _read("import unittest\nfrom m import f\n\nclass Base(unittest.TestCase):\n    def setUp(self):\n"
               "        self.x = 1\n\nclass TestA(Base):\n    def test_a(self):\n        self.assertEqual(f(1), 2)\n")
    assert len(tf.demands) == 1, _reasons(tf)


def test_a_setup_inherited_from_a_base_of_the_file_may_skip():
    """#11.10: `setUp` of a base class runs before the subclass's tests: a skip there skips them."""
    tf = _read("import unittest\nfrom m import f\n\nclass Base(unittest.TestCase):\n    def setUp(self):\n"
               "        self.skipTest('later')\n\nclass TestA(Base):\n    def test_a(self):\n        self.assertEqual(f(1), 2)\n")
    assert not tf.demands and any("may skip or stop it" in r for r in _reasons(tf)), _reasons(tf)


def test_the_final_definition_is_the_one_read():
    """#11.10: the final binding of a test name is formalized (its assertions count)."""
    tf = _read("from m import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(1) == 2\n")
    assert [(d.loc.line, d.expect.value.val) for d in tf.demands] == [(7, 2)]
    assert any("is rebound by a `def` at line 6" in r for r in _reasons(tf))


# -- #11.11: which calls denote the function under test -------------------------------------------

@pytest.mark.parametrize("code,why", [
    ("from m import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n\n"
     "from m import g as f\n", "`f` is `g` imported from `m`"),
    ("from other import g as f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n",
     "`f` is `g` imported from `other`"),
    ("from m import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n\n"
     "[(f := abs) for _ in [0]]\n", "`:=`"),
    ("from m import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n\n"
     "globals()['f'] = abs\n", "`globals(...)`"),
    ("from m import f\n\ndef helper():\n    global f\n    f = abs\n\ndef test_a():\n    assert f(1) == 1\n\n"
     "def test_b():\n    assert f(1) == 2\n", "`global f` write in `helper`"),
    ("from m import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n\n"
     "for f in [abs]:\n    pass\n", "`for` target"),
    ("from m import f\n\nclass Helper:\n    global f\n    f = abs\n\ndef test_a():\n    assert f(1) == 1\n\n"
     "def test_b():\n    assert f(1) == 2\n", "`global f` write in `Helper`"),
    ("from m import f\nfrom ref import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n",
     "more than one module"),
    ("from m import f\nfrom helpers import *\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n",
     "more than one module"),
    ("import m\nfrom ref import f\n\ndef test_a():\n    assert m.f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n",
     "two different functions"),
    ("import m\n\ndef test_a():\n    assert m.f(1) == 1\n\ndef test_b():\n    assert m.f(1) == 2\n\nm.f = abs\n",
     "a store into `m.f`"),
    ("import m\n\ndef test_a():\n    assert m.f(1) == 1\n\ndef test_b():\n    assert m.f(1) == 2\n\n"
     "setattr(m, 'f', abs)\n", "setattr"),
    ("import sys, fake\nsys.modules['m'] = fake\nfrom m import f\n\ndef test_a():\n    assert f(1) == 1\n\n"
     "def test_b():\n    assert f(1) == 2\n", "a store into `sys.modules`"),
    ("import m\nm.__dict__['f'] = abs\n\ndef test_a():\n    assert m.f(1) == 1\n\n"
     "def test_b():\n    assert m.f(1) == 2\n", "a store into `m.__dict__`"),
    ("import sys, m\nsys.modules.update(m=abs)\nfrom m import f\n\ndef test_a():\n    assert f(1) == 1\n\n"
     "def test_b():\n    assert f(1) == 2\n", "sys.modules.update"),
    ("import pytest\nfrom m import f\n\n@pytest.fixture(autouse=True)\ndef fake(monkeypatch):\n"
     "    monkeypatch.setattr('test_x.f', abs)\n\ndef test_a():\n    assert f(1) == 1\n\n"
     "def test_b():\n    assert f(1) == 2\n", "changes the environment"),
])
def test_a_rebound_entry_point_is_not_the_function_under_test(tmp_path, code, why):
    """#11.11: a later import of another name, a walrus, globals(), a `global` write, a loop target,
    two source modules, or a store into the module: the assertions are not on the entry point."""
    r = _check(tmp_path, code)
    assert r["verdict"] != "conflict", r["reason"]
    assert any(why in u["reason"] for u in r["unsupported"]), [u["reason"] for u in r["unsupported"]]


def test_the_plain_name_is_unbound_when_the_file_imports_it_under_an_alias():
    """#11.11: with `from m import f as g`, a call `f(1)` reaches no import of the file."""
    tf = _read("from m import f as g\n\ndef test_a():\n    assert g(1) == 1\n    assert f(1) == 2\n")
    assert [d.loc.line for d in tf.demands] == [4]
    assert any("is not bound in this file" in r for r in _reasons(tf)), _reasons(tf)


def test_a_local_import_of_another_function_is_not_the_entry_point():
    """#11.11: `from other import g as f` inside the test binds another function."""
    tf = _read("from m import f\n\ndef test_a():\n    from other import g as f\n    assert f(1) == 1\n")
    assert not tf.demands
    assert any("by an import of `g`, not of `f`" in r for r in _reasons(tf)), _reasons(tf)


@pytest.mark.parametrize("code", [
    "from m import f\n\ndef test_a():\n    assert f(1) == 1\n",
    "from m import *\n\ndef test_a():\n    assert f(1) == 1\n",
    "def test_a():\n    assert f(1) == 1\n",                                  # supplied by the harness
    "try:\n    from m import f\nexcept ImportError:\n    from m2 import f\n\ndef test_a():\n    assert f(1) == 1\n",
    "f = None\nfrom m import f\n\ndef test_a():\n    assert f(1) == 1\n",      # the import is the final binding
    "from helpers import *\nfrom m import f\n\ndef test_a():\n    assert f(1) == 1\n",  # the star is overridden
    "import m\n\ndef test_a():\n    assert m.f(1) == 1\n",
    "import sys\nimport pytest\nfrom m import f\n\nNUMPY = 'numpy' in sys.modules\n\ndef test_a():\n    assert f(1) == 1\n",
])
def test_the_entry_point_imported_once_is_read(code):
    """#11.11: an import of the entry point (explicit, star, fallback) that stays bound is read."""
    tf = _read(code)
    assert len(tf.demands) == 1 and not tf.unsupported, _reasons(tf)


# -- #11.12: a doctest session rebinds the name ------------------------------------------------------

@pytest.mark.parametrize("rebind", [
    ">>> f = lambda n: 5", ">>> f, g = abs, abs", ">>> from operator import neg as f", ">>> import f",
    ">>> def f(n): return 5", ">>> for f in [abs]: pass", ">>> (f := abs)", ">>> del f", ">>> f += 1",
    ">>> class f: pass", ">>> x = 1; f = abs", ">>> with open('x') as f: pass",
    ">>> from helpers import *", ">>> globals()['f'] = abs",
])
def test_a_doctest_rebinding_the_name_ends_its_examples(rebind):
    """#11.12: after a `>>>` line that binds the entry point's name, later examples of the session
    are not requirements on the function (they are noted, not claimed)."""
    text = f"def f(n):\n    '''Double n.\n\n    >>> f(1)\n    2\n    {rebind}\n    >>> f(3)\n    5\n    '''\n"
    df = formalize_description(text, entry_point="f")
    claims = [(c.call.args[0].val, c.expect.value.val) for c in df.claims if c.kind.value == "example"]
    assert claims == [(1, 2)], (rebind, claims, df.notes)
    assert any("rebinds" in n or "rebound" in n for n in df.notes), df.notes


def test_a_doctest_importing_the_function_itself_keeps_its_examples():
    """#11.12: `>>> from m import f` imports the function under test: its examples stay."""
    text = "def f(n):\n    '''Double n.\n\n    >>> from m import f\n    >>> f(3)\n    6\n    '''\n"
    df = formalize_description(text, entry_point="f")
    assert [c.call.args[0].val for c in df.claims if c.kind.value == "example"] == [3]


def test_a_doctest_rebinding_in_another_docstring_does_not_leak():
    """#11.12: each docstring is its own doctest session."""
    text = ("def f(n):\n    '''Double n.\n\n    >>> f(1)\n    2\n    '''\n\n"
            "def g(n):\n    '''Other.\n\n    >>> f = abs\n    >>> f(-3)\n    3\n    '''\n")
    df = formalize_description(text, entry_point="f")
    assert [c.call.args[0].val for c in df.claims if c.kind.value == "example"] == [1]


def test_a_doctest_rebinding_cannot_make_a_conflict(tmp_path):
    """#11.12: `>>> f = lambda n: 5` then `>>> f(3)` -> `5` is no requirement: no conflict with a
    test `f(3) == 6`."""
    desc = "def f(n: int) -> int:\n    '''Double n.\n\n    >>> f = lambda n: 5\n    >>> f(3)\n    5\n    '''\n"
    (tmp_path / "d.py").write_text(desc)
    (tmp_path / "test_x.py").write_text("from m import f\n\ndef test_a():\n    assert f(3) == 6\n")
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.py"), "--tests", str(tmp_path / "test_x.py"),
              "--entry-point", "f", "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert r["verdict"] != "conflict", r["reason"]


# -- #11.16: truthiness demands are paired ----------------------------------------------------------

@pytest.mark.lean
@pytest.mark.parametrize("a,b", [
    ("assert f(3, 2)", "assert not f(3, 2)"),
    ("self.assertTrue(f(3, 2))", "self.assertFalse(f(3, 2))"),
    ("assert f(0, 0)", "assert f(0, 0) == 0"),
    ("assert not f(1, 1)", "assert f(1, 1) == [1]"),
])
def test_opposite_truthiness_on_one_call_is_a_certified_conflict(tmp_path, a, b):
    """#11.16: `assert f(x)` and `assert not f(x)` (or assertTrue/assertFalse, or a truthiness
    demand and an `==` demand it contradicts) are a test-vs-test conflict, certified by the kernel."""
    if a.startswith("self."):
        code = f"import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n    def test_a(self):\n" \
               f"        {a}\n\n    def test_b(self):\n        {b}\n"
    else:
        code = f"from m import f\n\ndef test_a():\n    {a}\n\ndef test_b():\n    {b}\n"
    r = _check(tmp_path, code)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert r["certificate"]["accepted"]
    assert "agree" not in r["reason"]


@pytest.mark.lean
def test_same_truthiness_is_no_conflict(tmp_path):
    """#11.16: two truthy demands on one call agree."""
    r = _check(tmp_path, "from m import f\n\ndef test_a():\n    assert f(3, 2)\n\ndef test_b():\n    assert f(3, 2)\n")
    assert r["verdict"] != "conflict"


def test_two_test_files_importing_the_name_from_two_modules(tmp_path):
    """#11.11: one test file imports `f` from `sol`, another from `ref`: two functions may share the
    name, so neither file's assertions are read as assertions on the entry point."""
    (tmp_path / "d.md").write_text(DESC)
    (tmp_path / "test_a.py").write_text("from sol import f\n\ndef test_a():\n    assert f(1) == 1\n")
    (tmp_path / "test_b.py").write_text("from ref import f\n\ndef test_b():\n    assert f(1) == 2\n")
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.md"), "--tests", str(tmp_path / "test_a.py"),
              str(tmp_path / "test_b.py"), "--entry-point", "f", "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert r["verdict"] != "conflict", r["reason"]
    assert all("different modules (ref, sol)" in u["reason"] for u in r["unsupported"]), r["unsupported"]


def test_a_method_of_an_imported_class_is_not_the_imported_function():
    """#11.11: `Solution().f` and `f` of `from sol import f, Solution` are two functions."""
    tf = _read("from sol import f, Solution\n\ndef test_a():\n    assert Solution().f(1) == 1\n    assert f(1) == 2\n")
    assert [d.loc.line for d in tf.demands] == [5]
    assert any("two different functions may share the name" in r for r in _reasons(tf)), _reasons(tf)


@pytest.mark.lean
def test_a_truthiness_conflict_verifies_from_the_inputs(tmp_path):
    """#11.16: the certified truthy/falsy conflict is re-derived and re-checked by `verify --inputs`."""
    r = _check(tmp_path, "from m import f\n\ndef test_a():\n    assert f(3, 2)\n\ndef test_b():\n    assert not f(3, 2)\n")
    assert r["verdict"] == "conflict"
    rc = cli.main(["verify", str(tmp_path / "out"), "--inputs", str(tmp_path / "d.md"), str(tmp_path / "test_x.py"),
                   "-q"])
    assert rc == 0


# -- what pytest and unittest run is decided by names resolved as Python does ---------------------

_SQUARE = 'def f(n: int) -> int:\n    """Square n.\n\n    >>> f(3)\n    9\n    """\n'


@pytest.mark.parametrize("code", [
    # a skip/xfail mark under another name: a variable, an aliased import
    "import pytest\nfrom m import f\nXF = pytest.mark.xfail\n\n"
    "@pytest.mark.parametrize('n, v', [pytest.param(3, 10, marks=XF)])\ndef test_a(n, v):\n    assert f(n) == v\n",
    "import unittest\nfrom unittest import expectedFailure as ef\nfrom m import f\n\nclass T(unittest.TestCase):\n"
    "    @ef\n    def test_a(self):\n        self.assertEqual(f(3), 10)\n",
    # unittest's assertion machinery redefined in the class, a base or a mixin of the file
    "import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n    def assertEqual(self, a, b, msg=None):\n"
    "        pass\n\n    def test_a(self):\n        self.assertEqual(f(3), 10)\n",
    "import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n    fail = lambda self, msg=None: None\n\n"
    "    def test_a(self):\n        self.assertEqual(f(3), 10)\n",
    "import unittest\nfrom m import f\n\nclass Mixin:\n    def assertTrue(self, x, msg=None):\n        pass\n\n"
    "class T(Mixin, unittest.TestCase):\n    def test_a(self):\n        self.assertTrue(f(3) == 10)\n",
    "import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n    def setUp(self):\n"
    "        self.addTypeEqualityFunc(int, lambda a, b, msg=None: None)\n\n    def test_a(self):\n"
    "        self.assertEqual(f(3), 10)\n",
    # the framework patched, or its name rebound, in the file
    "import unittest\nfrom m import f\nunittest.TestCase.assertEqual = lambda *a, **k: None\n\n"
    "class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(f(3), 10)\n",
    "import pytest\nfrom m import f\n\ndef test_a():\n    with pytest.raises(ValueError):\n        f(3)\n\n"
    "class pytest:\n    @staticmethod\n    def raises(e):\n        import contextlib\n"
    "        return contextlib.suppress(Exception)\n",
    # a fixture that patches the function, requested by usefixtures, by another fixture, by name=
    "import pytest\nimport m\n\n@pytest.fixture\ndef p(monkeypatch):\n    monkeypatch.setattr(m, 'f', lambda n: 10)\n\n"
    "@pytest.mark.usefixtures('p')\ndef test_a():\n    assert m.f(3) == 10\n",
    "import pytest\nimport m\n\n@pytest.fixture\ndef p(monkeypatch):\n    monkeypatch.setattr(m, 'f', lambda n: 10)\n\n"
    "@pytest.fixture\ndef q(p):\n    return 1\n\ndef test_a(q):\n    assert m.f(3) == 10\n",
    "import pytest\nimport m\n\n@pytest.fixture(name='z')\ndef _p(monkeypatch):\n"
    "    monkeypatch.setattr(m, 'f', lambda n: 10)\n\ndef test_a(z):\n    assert m.f(3) == 10\n",
])
def test_framework_names_resolved_as_python_does(tmp_path, code):
    """#11.10/#11.11: a skip or xfail mark under another name, unittest's assertEqual/fail/assertTrue
    redefined by the test class or a mixin (or by addTypeEqualityFunc), unittest patched or `pytest`
    rebound in the file, a patching fixture requested indirectly: the assertion is not read as
    unittest's/pytest's, so no conflict with the description's `f(3) == 9` is certified (each
    was a certified conflict)."""
    (tmp_path / "m.py").write_text(_SQUARE)
    (tmp_path / "test_x.py").write_text(code)
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "m.py"), "--tests", str(tmp_path / "test_x.py"),
              "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    assert not any(t["status"] == "contradicted" for t in r["tests"]), r["tests"]


def test_plain_marks_and_setups_still_read():
    """#11.10: the resolution above keeps ordinary suites: a `pytest.mark.slow` row, a TestCase with
    setUp and maxDiff, a fixture that does not patch."""
    tf = _read("import pytest\nimport unittest\nfrom m import f\n\n@pytest.fixture\ndef data():\n    return 3\n\n"
               "@pytest.mark.parametrize('n, v', [pytest.param(3, 9, marks=pytest.mark.slow)])\n"
               "def test_a(n, v, data):\n    assert f(n) == v\n\nclass T(unittest.TestCase):\n    maxDiff = None\n\n"
               "    def setUp(self):\n        self.x = 1\n\n    def test_b(self):\n        self.assertEqual(f(3), 9)\n")
    assert len(tf.demands) == 2 and not tf.unsupported, _reasons(tf)


@pytest.mark.parametrize("body", [
    # `:=` in a comprehension binds in the test's own scope
    "    n = 3\n    [(n := 4) for _ in range(1)]\n    assert f(n) == 10\n",
    "    n = 3\n    assert (n := 4) > 0\n    assert f(n) == 10\n",
    # a `match` capture pattern binds its name
    "    n = 3\n    match 4:\n        case n:\n            pass\n    assert f(n) == 10\n",
    "    n = 3\n    match [4]:\n        case [*n]:\n            pass\n    assert f(n[0]) == 10\n",
])
def test_local_rebinding_by_walrus_or_match_is_seen(tmp_path, body):
    """#11.11: `n` rebound by `:=` inside a comprehension or an assert, or by a `match` capture, is 4
    when `f(n)` runs: `f(3) == 10` was read and certified against the description's `f(3) == 9`."""
    (tmp_path / "m.py").write_text(_SQUARE)
    (tmp_path / "test_x.py").write_text("from m import f\n\ndef test_a():\n" + body)
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "m.py"), "--tests", str(tmp_path / "test_x.py"),
              "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


@pytest.mark.parametrize("code", [
    # 3**30 combinations of stacked parametrize decorators (itertools.product ran forever)
    "import pytest\nfrom m import f\n" + "".join(f"@pytest.mark.parametrize('a{i}', [1, 2, 3])\n" for i in range(30))
    + "def test_a(" + ", ".join(f"a{i}" for i in range(30)) + "):\n    assert f(a0) == 1\n",
    # a chain of 3000 test classes (the base-class walks were cubic)
    "from m import f\nclass Test0:\n    def test_a(self):\n        assert f(1) == 1\n"
    + "".join(f"class Test{i}(Test{i - 1}):\n    pass\n" for i in range(1, 3000)),
    # 20 000 module constants before the test (a per-statement scan of every local: quadratic)
    "from m import f\n" + "".join(f"x{i} = {i}\n" for i in range(20000)) + "def test_a():\n    assert f(x1) == 1\n",
    # 3000 tests and a fixture (each test scanned every function of the module)
    "import pytest\nfrom m import f\n\n@pytest.fixture\ndef fx():\n    return 1\n\n"
    + "".join(f"def test_{i}(fx):\n    assert f({i}) == {i}\n" for i in range(3000)),
])
def test_hostile_test_file_is_read_in_bounded_time(code):
    """#11.18: test files built to make the reader's work explode are read in seconds (each hung or
    took minutes), and what cannot be enumerated is unsupported with its reason."""
    import time
    t = time.monotonic()
    _read(code)
    assert time.monotonic() - t < 20.0     # each took minutes or hung; generous for a loaded machine


# -- #11.10/#12.1: dynamic namespace calls that cannot rebind a name of the test module ----------------

_CONFLICTING = "from m import f\n\ndef test_a():\n    assert f(1) == 1\n\ndef test_b():\n    assert f(1) == 2\n\n"


@pytest.mark.parametrize("extra", [
    # `vars(x)` as a statement of its own: x.__dict__ is read and discarded (more-itertools' slots test)
    "def test_slots():\n    st = object()\n    try:\n        vars(st)\n    except TypeError:\n        pass\n",
    # exec of a literal source into a fresh namespace of its own (toolz' PEP 563 test)
    "def test_ns():\n    ns = {}\n    exec('from __future__ import annotations\\ndef s(x: int) -> str: return str(x)', ns)\n"
    "    assert ns['s'](1) == '1'\n",
])
def test_harmless_dynamic_calls_leave_the_file_readable(tmp_path, extra):
    """#12.1: a dynamic call that reads or writes no binding of the test module does not blank the file."""
    r = _check(tmp_path, _CONFLICTING + extra)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified"


@pytest.mark.parametrize("extra", [
    # the dict of a module, aliased then written
    "import m\n\ndef test_z():\n    d = vars(m)\n    d['f'] = lambda x: 3\n",
    # exec'd source that reaches the module table
    "def test_z():\n    exec('import sys\\nsys.modules[__name__].test_b = None', {})\n",
    "def test_z():\n    exec('test_b = None', globals())\n",
    # a namespace that is a module's dict, or that may be rebound
    "import m\n\ndef test_z():\n    ns = m.__dict__\n    exec('f = 1', ns)\n",
    "def test_z(ns):\n    exec('test_b = None', ns)\n",
    # a non-literal source
    "def test_z():\n    src = 'test_b = None'\n    exec(src, {})\n",
    # dunder attributes in the source
    "def test_z():\n    exec('(1).__class__.__base__', {})\n",
])
def test_dynamic_calls_that_may_rebind_still_block(tmp_path, extra):
    """#11.10: a dynamic call that may rebind a name of the test module keeps the file's tests unread."""
    tf = _read(_CONFLICTING + extra)
    assert any("rebound" in u.reason or "may be" in u.reason for u in tf.unsupported), _reasons(tf)


# -- issue 12: a function the test defines, passed to a raises assertion -----------------------------

SQUARE = "Return the square of n.\n\n>>> f(3)\n9\n"


@pytest.mark.parametrize("call", [
    "self.assertRaises(TypeError, lambda: f(3), 5)",
    "self.assertRaises(TypeError, g, 5)",
    "self.assertRaises(TypeError, g, n=5)",
])
def test_a_function_given_arguments_it_does_not_take_raises_typeerror_itself(tmp_path, call):
    """`assertRaises(TypeError, lambda: f(3), 5)` passes in Python without `f(3)` raising: the
    lambda, called with 5, raises TypeError itself.  Before, the lambda's body was read as
    `f(3)` raises TypeError: a certified false conflict against `f(3) -> 9`."""
    code = ("from unittest import TestCase\nfrom m import f\n\nclass TestF(TestCase):\n    def test_a(self):\n"
            "        def g():\n            return f(3)\n        " + call + "\n")
    r = _check(tmp_path, code, SQUARE)
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    assert r["coverage"]["assertions_read"] == 0


@pytest.mark.parametrize("define", [
    "def g():\n            return f(3)\n        g = len",                 # rebound: `g` is `len` now
    "def g(n=3):\n            return f(n)",                               # a default: a parameter
    "@staticmethod\n        def g():\n            return f(3)",           # decorated: `g` is what it returns
    "def g():\n            x = 3\n            return f(x)",               # more than a return
    "def g():\n            return (n := f(3))",                            # binds in its own scope
    "def g():\n            yield f(3)",                                   # a generator: calling runs nothing
])
def test_a_local_function_that_is_not_one_return_is_not_read(define):
    code = ("from unittest import TestCase\nfrom m import f\n\nclass TestF(TestCase):\n    def test_a(self):\n"
            "        " + define + "\n        self.assertRaises(ValueError, g)\n")
    tf = _read(code)
    assert not tf.demands, [d.text for d in tf.demands]


# -- red-team pass (redsem): a module attribute written in another test file ------------------------

@pytest.mark.parametrize("patch", [
    "import sol\n\nsol.f = lambda a, b: False\n",
    "import sol\n\nsetattr(sol, 'f', lambda a, b: False)\n",
    "from unittest import mock\n\nmock.patch('sol.f', lambda a, b: False).start()\n",
])
def test_a_patch_of_the_module_in_another_test_file_rebinds_every_file(tmp_path, patch):
    """redsem bind_cross_file_patch: `test_a.py` patches `sol.f` at import; pytest imports it before
    `test_b.py`, whose `from sol import f` then binds the patch: `f(2, 4) == False` passes with any
    implementation, so no conflict with the doctest `f(2, 4) -> True` may be certified."""
    (tmp_path / "d.md").write_text("Return whether a divides b.\n\n>>> f(2, 4)\nTrue\n")
    (tmp_path / "test_a.py").write_text(patch + "\ndef test_nothing():\n    pass\n")
    (tmp_path / "test_b.py").write_text("from sol import f\n\ndef test_b():\n    assert f(2, 4) == False\n")
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.md"), "--tests", str(tmp_path / "test_a.py"),
              str(tmp_path / "test_b.py"), "--entry-point", "f", "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert r["verdict"] != "conflict", r["reason"]
    assert any("may change `f` for every test file" in u["reason"] for u in r["unsupported"]), r["unsupported"]


def test_an_unrelated_attribute_store_in_another_file_keeps_the_entry_point():
    """The cross-file rule looks at writes of the target's name only (`sol.g = ...` changes nothing
    `from sol import f` binds)."""
    tf = formalize_tests([
        models.TestSource(kind="python", path="test_a.py", text="import sol\nsol.g = 1\n"),
        models.TestSource(kind="python", path="test_b.py",
                          text="from sol import f\n\ndef test_b():\n    assert f(2, 4) == True\n")], "f")
    assert len(tf.demands) == 1 and not tf.unsupported, _reasons(tf)
