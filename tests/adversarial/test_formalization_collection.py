"""Issue 12, item 1 (collection): what pytest and unittest set up before a test -- fixtures, their
``params``, ``conftest.py`` files, ``setUp``/``setUpClass`` attributes -- is read as they run it, and
every way it could change what the function under test sees (or which definition runs) leaves the
test's assertions unsupported with the reason, never a guessed value.

Reader-only cases call the real reader on real test text; cases asserting a verdict run the real
pipeline (``specguard check`` through ``cli.main``) on a task folder, with the real Lean kernel."""

import json
import textwrap

import pytest

from specguard import cli, models
from specguard.formalize.tests import formalize_tests

DESC = "Return the square of n.\n\n>>> f(3)\n9\n"


def _read(code: str, ep: str = "f", conftests: dict[str, str] | None = None, path: str = "tests/test_x.py"):
    srcs = [models.TestSource(kind="python", path=path, text=textwrap.dedent(code))]
    for p, text in (conftests or {}).items():
        srcs.append(models.TestSource(kind="python", path=p, text=textwrap.dedent(text)))
    return formalize_tests(srcs, ep)


def _demands(tf) -> list[str]:
    return [f"{d.call.source()} {d.expect.source()}" for d in tf.demands]


def _reasons(tf) -> list[str]:
    return [u.reason for u in tf.unsupported]


def _task(tmp_path, files: dict[str, str], desc: str = DESC) -> dict:
    (tmp_path / "task").mkdir()
    root = tmp_path / "task"
    (root / "task.toml").write_text('description = "README.md"\ntests = ["tests"]\nentry_point = "f"\n')
    (root / "README.md").write_text(desc)
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    out = tmp_path / "out"
    cli.main(["check", str(root), "--out", str(out), "-q"])
    return json.loads((out / "result.json").read_text())


# -- fixtures: values -------------------------------------------------------------------------------

def test_conftest_fixture_value_gives_a_certified_conflict(tmp_path):
    """#12.1: a fixture of the `conftest.py` beside the tests binds the test's parameter: `f(n) == 10`
    with `n = 3` from the fixture contradicts the doctest `f(3) -> 9` (certified by the kernel)."""
    r = _task(tmp_path, {
        "tests/conftest.py": "import pytest\n\n@pytest.fixture\ndef n():\n    return 3\n",
        "tests/test_f.py": "from sol import f\n\ndef test_a(n):\n    assert f(n) == 10\n",
    })
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 1


def test_module_fixture_wins_over_conftest(tmp_path):
    """#12.1: pytest's closest definition wins: the test module's `n` (9 squared... 3) over the
    conftest's (4); the test agrees with the doctest, so no conflict is certified."""
    r = _task(tmp_path, {
        "tests/conftest.py": "import pytest\n\n@pytest.fixture\ndef n():\n    return 4\n",
        "tests/test_f.py": "import pytest\nfrom sol import f\n\n@pytest.fixture\ndef n():\n    return 3\n\n"
                           "def test_a(n):\n    assert f(n) == 9\n",
    })
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["assertions_read"] == 1


def test_resolution_order_class_module_conftest():
    """#12.1: class fixture > module fixture > nearest conftest > conftest above; a fixture asking
    for its own name gets the next definition out."""
    tf = _read("""
        import pytest
        from m import f

        @pytest.fixture
        def a():
            return 2

        @pytest.fixture
        def b(b):
            return b + 100

        class TestK:
            @pytest.fixture
            def a(self):
                return 1

            def test_k(self, a, b, c):
                assert f(a, b, c) == 0

        def test_m(a, c):
            assert f(a, c) == 0
    """, conftests={"tests/conftest.py": "import pytest\n@pytest.fixture\ndef c():\n    return 'near'\n"
                                          "@pytest.fixture\ndef b():\n    return 5\n",
                    "conftest.py": "import pytest\n@pytest.fixture\ndef c():\n    return 'far'\n",
                    "other/conftest.py": "import pytest\n@pytest.fixture\ndef c():\n    return 'sibling'\n"})
    assert _demands(tf) == ["f(1, 105, 'near') == 0", "f(2, 'near') == 0"], _reasons(tf)


def test_yield_fixture_dependencies_and_params():
    """#12.1: a `yield` fixture's value, fixtures requesting fixtures (one object per test: the
    same list for both names), `params=[...]` with `request.param` (one run per entry)."""
    tf = _read("""
        import pytest
        from m import f

        @pytest.fixture
        def xs():
            v = [1, 2]
            yield v
            v.clear()

        @pytest.fixture
        def pair(xs):
            return (xs, 0)

        @pytest.fixture(params=[1, 'a'])
        def p(request):
            return request.param

        def test_a(xs):
            assert f(xs) == 3

        def test_b(p):
            assert f(p) == 0

        def test_c(xs, pair):
            assert f(xs, pair) == 0
    """)
    assert _demands(tf) == ["f([1, 2]) == 3", "f(1) == 0", "f('a') == 0"]
    assert any("share one mutable object" in r for r in _reasons(tf)), _reasons(tf)


def test_parametrize_overrides_a_fixture_of_the_same_name():
    """#12.1: direct parametrization of an argument name wins over the fixture of that name, also
    for fixtures that request it."""
    tf = _read("""
        import pytest
        from m import f

        @pytest.fixture
        def n():
            return 100

        @pytest.fixture
        def m(n):
            return n + 1

        @pytest.mark.parametrize('n', [1])
        def test_a(n, m):
            assert f(n, m) == 0
    """)
    assert _demands(tf) == ["f(1, 2) == 0"]


@pytest.mark.parametrize("fixture, why", [
    # a module-level list returned by the fixture: every test gets the same object
    ("DATA = [1, 2]\n\n@pytest.fixture\ndef d():\n    return DATA\n", "module-level mutable value"),
    # a list built once per module: shared between tests
    ("@pytest.fixture(scope='module')\ndef d():\n    return [1, 2]\n", "shared between tests"),
    # `params` entries are built once, when the decorator runs
    ("@pytest.fixture(params=[[1, 2]])\ndef d(request):\n    return request.param\n", "shared between tests"),
    # a value computed by a call
    ("import random\n\n@pytest.fixture\ndef d():\n    return [random.random()]\n", "not a literal"),
])
def test_shared_or_computed_fixture_values_are_not_literals(fixture, why):
    """#12.1: a mutable fixture value shared between tests (module value, wider scope, `params`
    entry) or computed by a call is not a literal: a test or the function may change it."""
    tf = _read("import pytest\nfrom m import f\n\n" + fixture + "\ndef test_a(d):\n    assert f(d) == 3\n")
    assert not tf.demands
    assert any(why in r for r in _reasons(tf)), _reasons(tf)


# -- fixtures: what they run ----------------------------------------------------------------------

@pytest.mark.parametrize("fixture", [
    # a call made for its effect before the test
    "@pytest.fixture\ndef d():\n    random.seed(0)\n    return 3\n",
    "@pytest.fixture(autouse=True)\ndef env():\n    os.environ['MODE'] = 'x'\n\n@pytest.fixture\ndef d():\n    return 3\n",
    # a yield fixture whose setup patches
    "@pytest.fixture\ndef d(monkeypatch):\n    monkeypatch.setenv('MODE', 'x')\n    yield 3\n",
    # a fixture defined twice (which one runs?) and one under a name that is not a constant
    "@pytest.fixture\ndef d():\n    return 3\n\n@pytest.fixture\ndef d():\n    return 4\n",
    "N = 'd'\n\n@pytest.fixture(name=N)\ndef other():\n    return 4\n\n@pytest.fixture\ndef d():\n    return 3\n",
    # `request` for more than its param; `request.param` without params
    "@pytest.fixture\ndef d(request):\n    request.addfinalizer(print)\n    return 3\n",
    "@pytest.fixture\ndef d(request):\n    return request.param\n",
    # a stacked decorator: pytest runs what it returns
    "def deco(fn):\n    return fn\n\n@pytest.fixture\n@deco\ndef d():\n    return 3\n",
    # an early exit in the setup
    "@pytest.fixture\ndef d():\n    if not os.environ.get('X'):\n        pytest.skip('no X')\n    return 3\n",
])
def test_fixtures_that_may_change_the_test_block_it(fixture):
    """#12.1: a fixture that runs before the test and may skip it, patch, change global state, make
    a call for its effect, or whose definition cannot be told, leaves the test unsupported."""
    tf = _read("import os\nimport random\nimport pytest\nfrom m import f\n\n" + fixture
               + "\ndef test_a(d):\n    assert f(3) == 10\n")
    assert not tf.demands, _reasons(tf)
    assert tf.unsupported


def test_conftest_hooks_and_autouse_effects_block_the_tests_below():
    """#12.1: a conftest defining a pytest hook (it may skip or reorder tests) or an autouse fixture
    with an effect blocks the tests under it, not those beside it."""
    hook = {"tests/a/conftest.py": "def pytest_collection_modifyitems(items):\n    items.clear()\n"}
    tf = _read("from m import f\n\ndef test_a():\n    assert f(3) == 10\n", conftests=hook, path="tests/a/test_x.py")
    assert not tf.demands and any("pytest_collection_modifyitems" in r for r in _reasons(tf))
    tf = _read("from m import f\n\ndef test_a():\n    assert f(3) == 10\n", conftests=hook, path="tests/b/test_x.py")
    assert _demands(tf) == ["f(3) == 10"]
    auto = {"tests/conftest.py": "import pytest, m\n\n@pytest.fixture(autouse=True)\ndef fake():\n"
                                 "    m.f = lambda n: 10\n"}
    tf = _read("import m\n\ndef test_a():\n    assert m.f(3) == 10\n", conftests=auto)
    assert not tf.demands and tf.unsupported


def test_conftest_outside_the_task_folder_is_not_loaded(tmp_path):
    """#12.1: only conftest files inside the task folder are read (beside the tests and above them)."""
    (tmp_path / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef n():\n    return 3\n")
    r = _task(tmp_path, {"tests/test_f.py": "from sol import f\n\ndef test_a(n):\n    assert f(n) == 10\n"})
    assert r["verdict"] != "conflict"
    assert any("fixture" in u["reason"] for u in r["unsupported"]), r["unsupported"]


# -- setUp / setUpClass ---------------------------------------------------------------------------

def test_setup_attributes_give_a_certified_conflict(tmp_path):
    """#12.1: `self.n = 3` in setUp, read as `self.n` in the test: `f(self.n) == 10` contradicts
    the doctest `f(3) -> 9`."""
    r = _task(tmp_path, {"tests/test_f.py": """
        import unittest
        from sol import f

        class T(unittest.TestCase):
            def setUp(self):
                self.n = 3

            def test_a(self):
                self.assertEqual(f(self.n), 10)
    """})
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]


@pytest.mark.parametrize("code", [
    # the test changes the attribute, or calls a method that may
    "    def setUp(self):\n        self.n = 3\n\n    def test_a(self):\n        self.n = 4\n        self.assertEqual(f(self.n), 10)\n",
    "    def setUp(self):\n        self.n = 3\n\n    def bump(self):\n        self.n = 4\n\n"
    "    def test_a(self):\n        self.bump()\n        self.assertEqual(f(self.n), 10)\n",
    # the test object is handed to a function that may change it
    "    def setUp(self):\n        self.n = 3\n\n    def test_a(self):\n        helper(self)\n        self.assertEqual(f(self.n), 10)\n",
    # a mutable value: the function under test may change it between tests (class) or calls
    "    @classmethod\n    def setUpClass(cls):\n        cls.n = [3]\n\n    def test_a(self):\n        self.assertEqual(f(self.n), 10)\n",
    "    def setUp(self):\n        self.n = [3]\n\n    def test_a(self):\n        self.assertEqual(f(self.n), 10)\n",
    # a shared class value another test changes (state carried between tests)
    "    n = 3\n\n    def test_0(self):\n        type(self).n = 4\n\n    def test_a(self):\n        self.assertEqual(f(self.n), 10)\n",
    "    @classmethod\n    def setUpClass(cls):\n        cls.n = 3\n\n    def test_0(self):\n        setattr(type(self), 'n', 4)\n\n"
    "    def test_a(self):\n        self.assertEqual(f(self.n), 10)\n",
    # setUp computes the value, hiding the class constant
    "    n = 3\n\n    def setUp(self):\n        self.n = compute()\n\n    def test_a(self):\n        self.assertEqual(f(self.n), 10)\n",
    # a setup that makes a call for its effect
    "    def setUp(self):\n        random.seed(0)\n        self.n = 3\n\n    def test_a(self):\n        self.assertEqual(f(self.n), 10)\n",
    # several setups through super(): which ones run is not read
    "    def setUp(self):\n        super().setUp()\n        self.m = 1\n\n    def test_a(self):\n        self.assertEqual(f(self.n), 10)\n",
    # an object built in setUp stays unsupported (issue 13)
    "    def setUp(self):\n        self.s = Stack()\n\n    def test_a(self):\n        self.assertEqual(f(self.s), 10)\n",
])
def test_setup_values_that_may_change_are_not_literals(code):
    """#12.1: a setup value is a literal only when it is immutable and nothing else can change it
    (the test, a method, another test through the class, the setup's own effects)."""
    head = "class Base(unittest.TestCase):\n    def setUp(self):\n        self.n = 3\n\nclass T(Base):\n" \
        if "super()" in code else "class T(unittest.TestCase):\n"
    tf = _read("import random\nimport unittest\nfrom m import f\n\n" + head + code)
    assert not tf.demands, _demands(tf)
    assert tf.unsupported


def test_setup_class_and_body_constants():
    """#12.1: precedence of what `self.NAME` reads: setUp over setUpClass over the class body (the
    derived class's over the base's)."""
    tf = _read("""
        import unittest
        from m import f

        class Base(unittest.TestCase):
            a = 1
            b = 1
            c = 1

        class T(Base):
            b = 2

            @classmethod
            def setUpClass(cls):
                cls.c = 3
                cls.d = 3

            def setUp(self):
                self.d = 4

            def test_a(self):
                self.assertEqual(f(self.a, self.b, self.c, self.d), 0)
    """)
    assert _demands(tf) == ["f(1, 2, 3, 4) == 0"], _reasons(tf)


def test_subtest_iterations_each_count_and_statements_once():
    """#12.1: every iteration under `self.subTest` is a demand (subTest does not stop at the first
    failure: each must pass for the test to pass); the coverage counts the statement once."""
    tf = _read("""
        import unittest
        from m import f

        class T(unittest.TestCase):
            def test_a(self):
                for i in [1, 2, 3]:
                    with self.subTest(i=i):
                        self.assertEqual(f(i), i * i)
    """)
    assert _demands(tf) == ["f(1) == 1", "f(2) == 4", "f(3) == 9"]
    assert (tf.assertions_read, tf.assertions_total) == (1, 1)


# -- #12.4: functions as values -------------------------------------------------------------------

def _check_files(tmp_path, tests: str, extra: list[str] = (), desc: str = "Sort xs by key.\n") -> tuple[dict, str]:
    (tmp_path / "d.md").write_text(desc)
    (tmp_path / "test_k.py").write_text(textwrap.dedent(tests))
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.md"), "--tests", str(tmp_path / "test_k.py"),
              "--entry-point", "f", "--out", str(out), "-q", *extra])
    return json.loads((out / "result.json").read_text()), str(out)


def test_same_builtin_key_twice_is_a_certified_conflict_and_verifies(tmp_path):
    """#12.4: `key=len` is the very same object in both tests: the two expectations conflict,
    certified by the kernel, and `specguard verify --inputs` re-derives it (the function's constant
    goes through emit, prove and verify's shape checks unchanged)."""
    r, out = _check_files(tmp_path, """
        from m import f

        def test_a():
            assert f(["bb", "a"], key=len) == ["a", "bb"]

        def test_b():
            assert f(["bb", "a"], key=len) == ["bb", "a"]
    """)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert cli.main(["verify", out, "--inputs", str(tmp_path / "d.md"), str(tmp_path / "test_k.py")]) == 0


def test_each_lambda_evaluation_is_a_new_object(tmp_path):
    """#12.4: two evaluations of a lambda (even the same text, in a loop or in two tests) are
    distinct objects: distinct inputs, so their different expectations are no certified conflict."""
    r, _ = _check_files(tmp_path, """
        from m import f

        def test_a():
            assert f(["bb", "a"], key=lambda s: len(s)) == ["a", "bb"]

        def test_b():
            for want in [["bb", "a"], ["a", "bb"]]:
                assert f(["bb", "a"], key=lambda s: len(s)) == want
    """)
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    assert r["coverage"]["assertions_read"] == 2


def test_module_function_key_is_its_one_binding():
    """#12.4: a function of the test module bound once is one object in every test (one key);
    rebound, decorated, with defaults, or reading a module name (its value may change between
    calls), it is not a constant."""
    tf = _read("""
        from m import f

        def neg(x):
            return -x

        def test_a():
            assert f([1, 2], key=neg) == [2, 1]
            assert f([1, 2], key=str.lower) == [2, 1]
    """)
    keys = [d.call.key() for d in tf.demands]
    assert len(keys) == 2 and '"def:tests/test_x.py:neg:4"' in keys[0] and '"builtin:str.lower"' in keys[1]
    for defn in ["def neg(x):\n    return -x\n\nneg = abs\n",
                 "def neg(x, k=[]):\n    return -x\n",
                 "OFF = 1\n\ndef neg(x):\n    return OFF - x\n",
                 "def deco(fn):\n    return fn\n\n@deco\ndef neg(x):\n    return -x\n"]:
        tf = _read("from m import f\n\n" + defn + "\ndef test_a():\n    assert f([1, 2], key=neg) == [2, 1]\n")
        assert not tf.demands, defn


@pytest.mark.parametrize("arg", [
    "print", "input", "id", "hash",                 # impure or identity-dependent builtins
    "lambda x: OFF + x",                          # a lambda reading a module name
    "lambda x, k=[]: x",                          # a lambda with a (shared, mutable) default
    "dict.fromkeys",                              # a new bound method object at each access
])
def test_functions_that_are_not_constants(arg):
    """#12.4: only functions whose outcome depends on their arguments alone, and whose identity is
    known, are named constants; the rest stay unsupported."""
    tf = _read(f"from m import f\nOFF = 1\n\ndef test_a():\n    assert f([1, 2], key={arg}) == [2, 1]\n")
    assert not tf.demands and tf.unsupported


def test_shadowed_builtin_is_not_the_builtin():
    """#12.4: `len` rebound in the test module (or `import *`) is not the builtin `len` (bound to a
    lambda, it is that lambda; bound to `max`, the builtin `max`)."""
    for head in ["len = lambda s: 0\n", "len = max\n", "from helpers import *\n"]:
        tf = _read("from m import f\n" + head + "\ndef test_a():\n    assert f(['bb'], key=len) == ['bb']\n")
        assert all("builtin:len" not in d.call.key() for d in tf.demands), head
        assert bool(tf.demands) == (not head.startswith("from")), head
        if head == "len = max\n":
            assert "builtin:max" in tf.demands[0].call.key()


def test_function_inputs_are_set_aside_with_a_spec_program(tmp_path):
    """#12.4: a spec program is evaluated over plain data (SpecGuard.Py): a call passing a function
    is not compared with it (unsupported with the reason), never evaluated on the constant."""
    (tmp_path / "spec.py").write_text("def reference(x: int, key: int) -> int:\n    return x\n")
    (tmp_path / "test_k.py").write_text("from m import f\n\ndef test_a():\n    assert f(1, len) == 2\n")
    out = tmp_path / "out"
    cli.main(["check", "--spec", str(tmp_path / "spec.py"), "--tests", str(tmp_path / "test_k.py"),
              "--entry-point", "f", "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert r["verdict"] != "conflict"
    assert any("passes a function" in u["reason"] for u in r["unsupported"]), r["unsupported"]


def test_many_methods_with_setups_and_fixtures_stay_linear():
    """#12.1 (bounded work, as #11.18): a class of 1500 test methods with setUp and class constants,
    and 1500 tests requesting a conftest fixture, are read in seconds (each question about the
    class or the fixtures is answered once per file, not once per test)."""
    import time
    cls = "import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n    K = 1\n    def setUp(self):\n" \
          "        self.x = 2\n\n" + "".join(f"    def test_{i}(self):\n        self.assertEqual(f(self.x, {i}), {i})\n"
                                         for i in range(1500))
    fx = "from m import f\n\n" + "".join(f"def test_{i}(n):\n    assert f(n, {i}) == {i}\n" for i in range(1500))
    t = time.monotonic()
    a = _read(cls)
    b = _read(fx, conftests={"tests/conftest.py": "import pytest\n\n@pytest.fixture\ndef n():\n    return 3\n"})
    # a generous bound (a loaded 2-core machine): quadratic work over 3000 tests takes minutes
    assert time.monotonic() - t < 60.0
    assert len(a.demands) == len(b.demands) == 1500


@pytest.mark.parametrize("head", ["from helpers import n\n", "from helpers import *\n", "pytest_plugins = ['p']\n"])
def test_a_fixture_the_module_may_import_hides_the_conftest_one(head):
    """#12.1: pytest finds a fixture the test module imports (by name, through `import *`, or from
    `pytest_plugins`) before the conftest's: its value is not known, never the conftest's."""
    tf = _read(head + "import pytest\nfrom m import f\n\ndef test_a(n):\n    assert f(n) == 10\n",
               conftests={"tests/conftest.py": "import pytest\n\n@pytest.fixture\ndef n():\n    return 3\n"})
    assert not tf.demands, _demands(tf)
    assert _reasons(tf) == ["argument `n` is not a literal (a fixture (its value is computed by pytest))"]


def test_a_yield_fixture_not_read_is_still_run_for_its_effects():
    """#12.1: a generator fixture whose `yield` is inside a block has an unknown value, but what it
    runs is still checked: a patch inside blocks the test; without one, assertions not using the
    value are read."""
    plain = "@pytest.fixture\ndef d():\n    with open('x') as fh:\n        yield fh.read()\n"
    patched = "@pytest.fixture\ndef d(monkeypatch):\n    with open('x') as fh:\n        monkeypatch.setattr(m, 'f', len)\n" \
              "        yield fh.read()\n"
    body = "\ndef test_a(d):\n    assert m.f(3) == 10\n    assert m.f(d) == 1\n"
    tf = _read("import pytest\nimport m\n\n" + plain + body)
    assert _demands(tf) == ["f(3) == 10"]
    assert any("is not read (a generator fixture" in r for r in _reasons(tf)), _reasons(tf)
    tf = _read("import pytest\nimport m\n\n" + patched + body)
    assert not tf.demands and tf.unsupported


def test_a_fixture_mutating_what_it_receives_blocks_the_test():
    """#12.1: fixture `b` appends to the list of fixture `a` (one object per test): the test sees
    `[1, 2, 3]`, not the `[1, 2]` `a` returned, so nothing is read from either."""
    tf = _read("""
        import pytest
        from m import f

        @pytest.fixture
        def a():
            return [1, 2]

        @pytest.fixture
        def b(a):
            a.append(3)
            return 0

        def test_a(a, b):
            assert f(a) == 3
    """)
    assert not tf.demands, _demands(tf)
    assert any("may change the value of `a`" in r for r in _reasons(tf)), _reasons(tf)


def test_a_lambda_bound_to_a_name_is_one_object_until_rebound():
    """#12.4: `k = lambda ...` is one object wherever that binding reaches (two calls with `key=k`
    are one input; a module-level one is shared by the tests); evaluating the lambda again (a new
    assignment, a loop iteration) makes a new object, a new input."""
    tf = _read("""
        from m import f
        K = lambda x: -x

        def test_a():
            k = lambda s: len(s)
            assert f(['bb', 'a'], key=k) == ['a', 'bb']
            assert f(['bb', 'a'], key=k) == ['a', 'bb']
            k = lambda s: len(s)
            assert f(['bb', 'a'], key=k) == ['a', 'bb']
            for _ in range(2):
                j = lambda s: len(s)
                assert f(['bb', 'a'], key=j) == ['a', 'bb']

        def test_b():
            assert f([1, 2], key=K) == [2, 1]
            assert f([1, 2], key=K) == [2, 1]
    """)
    keys = [d.call.key() for d in tf.demands]
    assert len(keys) == 7
    assert keys[0] == keys[1] and len({keys[1], keys[2], keys[3], keys[4]}) == 4 and keys[5] == keys[6]


def test_a_conftest_beside_a_test_file_given_on_the_command_line_is_read(tmp_path):
    """#12.1 (red team): pytest loads the conftest.py beside a test file (and above it) however the
    file is named on the command line; an autouse fixture there that patches `f` makes the test
    unread (before, only a task folder's conftests were read: a certified false conflict)."""
    (tmp_path / "conftest.py").write_text(
        "import pytest, mod\n\n@pytest.fixture(autouse=True)\ndef shifted(monkeypatch, request):\n"
        "    monkeypatch.setattr(request.module, 'f', lambda x: mod.f(x) + 1)\n")
    r, _ = _check_files(tmp_path, """
        from mod import f

        def test_one():
            assert f(1) == 3
        """, desc="Return x + 1.\n\n>>> f(1)\n2\n")
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    assert "conftest.py" in r["reason"]


# -- inherited tests and the MRO (issue 12, real test suites) ----------------------------------------

SQUARES = "Return the square of n.\n\n>>> f(1)\n1\n>>> f(2)\n4\n>>> f(3)\n9\n"


def test_a_diamond_class_constant_is_the_mro_one(tmp_path):
    """`TestD(B, C)` with `B(A)`, `C(A)`: Python's MRO is D, B, C, A, so `self.arg` is C's 2 and
    `f(2) == 4` holds (checked by running pytest).  Before, the bases were read depth first (D, B,
    A, C, A) and A's 1 won: `f(1) == 4`, a certified false conflict against `f(1) -> 1`."""
    r, _ = _check_files(tmp_path, """
        from unittest import TestCase
        from m import f

        class A:
            arg = 1
        class B(A):
            pass
        class C(A):
            arg = 2
        class TestD(B, C, TestCase):
            def test_d(self):
                self.assertEqual(f(self.arg), 4)
        """, desc=SQUARES)
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["assertions_read"] == 1


def test_a_skip_mark_on_a_base_class_skips_the_subclass_tests(tmp_path):
    """`@pytest.mark.skip` on a base class applies to its subclasses' tests (pytest reads marks
    along the MRO; run: 1 skipped).  Before, `TestSub::test_a` was read: a certified false conflict."""
    r, _ = _check_files(tmp_path, """
        import pytest
        from m import f

        @pytest.mark.skip
        class Base:
            pass

        class TestSub(Base):
            def test_a(self):
                assert f(3) == 10
        """, desc=SQUARES)
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["assertions_read"] == 0


def test_an_inherited_test_name_rebound_in_the_subclass_is_not_collected():
    """`test_m = None` in the subclass hides the mixin's test (pytest collects nothing under it):
    the mixin's assertion is not read with the subclass's `arg`."""
    tf = _read("""
        from unittest import TestCase
        from m import f

        class Mixin:
            def test_m(self):
                self.assertEqual(f(self.arg), 10)

        class TestN(Mixin, TestCase):
            arg = 3
            test_m = None
    """)
    assert not tf.demands
    assert tf.assertions_read == 0 and tf.assertions_total == 1


def test_inherited_tests_of_a_base_that_binds_names_dynamically_are_not_read():
    """A base class body that may bind any name (`locals()[...] = ...`) may define the test name
    itself: nothing is collected from it."""
    tf = _read("""
        from unittest import TestCase
        from m import f

        class Mixin:
            def test_m(self):
                self.assertEqual(f(self.arg), 10)
            locals()["test_" + "m"] = None

        class TestN(Mixin, TestCase):
            arg = 3
    """)
    assert not tf.demands


def test_an_unresolvable_mro_collects_nothing_inherited():
    """`class TestX(A, B)` with `B(A)`: Python rejects the class (no consistent MRO): the mixin's
    test is not read as the subclass's."""
    tf = _read("""
        from unittest import TestCase
        from m import f

        class A:
            def test_m(self):
                self.assertEqual(f(3), 10)
        class B(A):
            pass
        class TestX(A, B, TestCase):
            pass
    """)
    assert not tf.demands


# -- helpers no selected test reaches (issue 12): every way a helper could still run ----------------

def _selected(code: str, only: list[str], others: dict[str, str] | None = None):
    srcs = [models.TestSource(kind="python", path="tests/test_x.py", text=textwrap.dedent(code), only_tests=tuple(only))]
    srcs += [models.TestSource(kind="python", path=p, text=textwrap.dedent(t)) for p, t in (others or {}).items()]
    return formalize_tests(srcs, "f")


REACH = """
from unittest import TestCase
from m import f

class TestF(TestCase):
    def _check(self, n):
        self.assertEqual(f(n), 10)

    def test_a(self):
        {call}

    def test_b(self):
        self._check(2)
"""


def test_a_helper_only_an_unselected_test_calls_does_not_count():
    tf = _selected(REACH.format(call="pass"), ["TestF::test_a"])
    assert (tf.assertions_read, tf.assertions_total) == (0, 0)


@pytest.mark.parametrize("call", [
    "getattr(self, '_che' + 'ck')(3)",          # a name computed at run time
    "getattr(self, '_check')(3)",               # a name in a string
    "f(self)",                                  # the test object passed on: its methods may be called by name
    "print(type(self))",                        # the test object as a value
    "vars(self)",                               # namespaces read dynamically
    "self.__dict__",
    "eval('self._check(3)')",
])
def test_a_helper_that_may_still_run_counts(call):
    """The helper's assertion counts (unread) whenever running code could reach it."""
    tf = _selected(REACH.format(call=call), ["TestF::test_a"])
    assert tf.assertions_read < tf.assertions_total, [u.reason for u in tf.unsupported]


def test_a_helper_named_in_another_file_of_the_task_counts():
    """Another file of the task may import the helper (`from test_x import _check_all`)."""
    code = "from m import f\n\ndef _check_all():\n    assert f(2) == 10\n\ndef test_a():\n    pass\n"
    tf = _selected(code, ["test_a"], {"tests/test_y.py": "from test_x import _check_all\n\ndef test_y():\n    _check_all()\n"})
    assert tf.assertions_total == 1


def test_a_class_deriving_from_the_test_class_used_as_a_value_keeps_its_helpers():
    """An instance of a subclass made by running code could be handed to code calling any method."""
    code = REACH.format(call="pass") + "\nclass Helper(TestF):\n    pass\n\nOBJ = Helper\n"
    tf = _selected(code, ["TestF::test_a"])
    assert tf.assertions_total >= 1


def test_framework_names_and_dunders_are_not_helpers():
    """`setUp`, `tearDown`, `__eq__`, `setup_method` run without being named: they still count."""
    tf = _selected("""
        from unittest import TestCase
        from m import f

        class TestF(TestCase):
            def tearDown(self):
                assert f(1) == 10
            def __eq__(self, other):
                assert f(2) == 10
                return True
            def setup_method(self, method):
                assert f(4) == 10
            def test_a(self):
                pass
    """, ["TestF::test_a"])
    assert tf.assertions_total == 3


@pytest.mark.parametrize("head,extra", [
    ("from deco import every_method\n", "@every_method\n"),          # a decorator gets the class
    ("from meta import Meta\n", None),                               # a metaclass sees its namespace
])
def test_a_test_class_handed_to_other_code_when_made_keeps_its_helpers(head, extra):
    """An imported class decorator or metaclass receives the class and could call every method
    (iterating its namespace, no name needed): the helper's assertion still counts."""
    code = REACH.format(call="pass")
    if extra:
        code = code.replace("class TestF(TestCase):", extra + "class TestF(TestCase):")
    else:
        code = code.replace("class TestF(TestCase):", "class TestF(TestCase, metaclass=Meta):")
    tf = _selected(head + code, ["TestF::test_a"])
    assert tf.assertions_read < tf.assertions_total or tf.assertions_total == 0 and \
        any("_check" in u.reason or "TestF" in u.reason for u in tf.unsupported), [u.reason for u in tf.unsupported]


def test_a_subclass_with_an_outside_base_keeps_the_helpers_it_inherits():
    """`class Other(TestF, Plugin)`: `Plugin`'s metaclass or `__init_subclass__` sees the new class."""
    code = "from plugins import Plugin\n" + REACH.format(call="pass") + "\nclass Other(TestF, Plugin):\n    pass\n"
    tf = _selected(code, ["TestF::test_a"])
    assert tf.assertions_total >= 1


@pytest.mark.parametrize("head,call", [
    ("import sys\n", "f(sys.modules[__name__])"),      # the module object handed to other code
    ("", "print(__name__)"),
])
def test_the_module_object_reachable_keeps_module_helpers(head, call):
    code = head + "from m import f\n\ndef _check_all():\n    assert f(2) == 10\n\ndef test_a():\n    " + call + "\n"
    tf = _selected(code, ["test_a"])
    assert tf.assertions_total == 1


def test_pytest_request_or_a_hook_keeps_method_helpers():
    """`request.instance` is the test object (a fixture may hand it on); a hook gets test items."""
    fixture = ("import pytest\n" + REACH.format(call="pass").replace(
        "    def test_a(self):", "    @pytest.fixture(autouse=True)\n    def grab(self, request):\n"
        "        f(request.instance)\n\n    def test_a(self):"))
    assert _selected(fixture, ["TestF::test_a"]).assertions_total >= 1
    hook = REACH.format(call="pass") + "\ndef pytest_runtest_call(item):\n    pass\n"
    assert _selected(hook, ["TestF::test_a"]).assertions_total >= 1


def test_private_attributes_are_mangled_with_the_defining_class():
    """`self.__arg` in a method of `Mixin` reads `_Mixin__arg` (1), not `TestSub`'s `__arg`
    (`_TestSub__arg`, 3); in `TestOwn`, `self.__b` is `_TestOwn__b`, which `Base`'s `__b` is not
    (AttributeError: both checked by running pytest).  Neither is read as a class constant."""
    tf = _read("""
        from unittest import TestCase
        from m import f

        class Mixin:
            __arg = 1
            def test_a(self):
                self.assertEqual(f(self.__arg), 2)

        class TestSub(Mixin, TestCase):
            __arg = 3

        class Base:
            __b = 5

        class TestOwn(Base, TestCase):
            def test_b(self):
                self.assertEqual(f(self.__b), 2)
    """)
    assert not tf.demands, [(d.test_name, d.call.source()) for d in tf.demands]


# -- what pytest collects at all (red-team pass, 2026-12-02) --------------------------------------

WRONG_TEST = "from sol import f\n\ndef test_legacy():\n    assert f(3) == 10\n"


@pytest.mark.parametrize("name, text, why", [
    ("tests/conftest.py", 'collect_ignore = ["test_f.py"]\n', "sets `collect_ignore` (line 1)"),
    ("tests/conftest.py", 'collect_ignore_glob = []\ncollect_ignore_glob.append("test_*.py")\n',
     "sets `collect_ignore_glob` (line 1)"),
    ("pytest.ini", "[pytest]\npython_functions = check_*\n", "pytest.ini:2 sets `python_functions`"),
    ("tests/pytest.ini", "[pytest]\naddopts = -k 'not legacy'\n", "pytest.ini:2 sets `addopts`"),
    ("tox.ini", "[tox]\nenvlist = py\n\n[pytest]\npython_files = check_*.py\n", "tox.ini:5 sets `python_files`"),
    ("setup.cfg", "[tool:pytest]\nusefixtures = patched\n", "setup.cfg:2 sets `usefixtures`"),
    ("pyproject.toml", '[tool.pytest.ini_options]\npython_classes = "Check"\naddopts = "--deselect x"\n',
     "pyproject.toml:2 sets `python_classes`"),
])
def test_a_test_pytest_does_not_collect_is_never_certified(tmp_path, name, text, why):
    """Red team: `test_legacy` contradicts the doctest `f(3) -> 9`, but the task tells pytest not to
    collect it (a conftest's `collect_ignore`, or pytest's own settings in pytest.ini, tox.ini,
    setup.cfg or pyproject.toml: other name patterns, `-k`, `--deselect`, fixtures run for every test): the
    task's suite passes with a correct implementation (checked with pytest), yet SpecGuard certified
    a conflict (a false certified conflict).  Now the tests under such a file are unread, with the
    file and line."""
    r = _task(tmp_path, {"tests/test_f.py": WRONG_TEST, name: text})
    assert r["verdict"] == "inconclusive" and r["evidence"] == "none", r["reason"]
    assert any(why in u["reason"] for u in r["unsupported"]), r["unsupported"]


def test_pytest_settings_that_keep_the_default_collection_change_nothing(tmp_path):
    """Markers, a pyproject.toml without a pytest section, reporting options in `addopts`, name
    patterns the test file matches and `norecursedirs` (read by pytest only when it recurses) do
    not change what pytest collects: the conflict is certified as before."""
    r = _task(tmp_path, {"tests/test_f.py": WRONG_TEST, "pytest.ini": "[pytest]\nmarkers =\n    slow: slow\n"
                         "addopts = -ra -q --strict-markers --tb=short\npython_files = test_*.py check_*.py\n"
                         "norecursedirs = tests/data build .*\n",
                         "pyproject.toml": '[project]\nname = "x"\n'})
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]


def test_duplicate_tests_are_found_in_linear_work():
    """Red team (bounded work): the near-conflict search for duplicate tests compared every pair of
    test functions (20,000 one-line tests, a 1 MB file: 200,000,000 comparisons, `check` ran for
    more than 300 s; now 73 s, most of it the 20,000 clauses).  Now tests are grouped by what they
    share, and at most MAX_TWINS near-conflicts are listed (they are never evidence)."""
    import time
    from specguard.formalize import twins
    distinct = "from m import f\n" + "".join(f"\n\ndef test_{i}():\n    assert f({i}) == {i}\n" for i in range(5000))
    same_call = "from m import f\n" + "".join(f"\n\ndef test_{i}():\n    assert f(1) == {i}\n" for i in range(5000))
    t = time.monotonic()
    assert twins.find_twins([models.TestSource(kind="python", path="a.py", text=distinct)]) == []
    found = twins.find_twins([models.TestSource(kind="python", path="b.py", text=same_call)])
    assert time.monotonic() - t < 30.0
    assert len(found) == twins.MAX_TWINS and (found[0].a.line, found[0].b.line) == (5, 9)
    # the pairs a loop over all pairs finds, in its order
    small = ("from m import f\n\ndef test_a():\n    x = 1\n    assert f(2) == 4\n\ndef test_b():\n    x = 1\n"
             "    assert f(2) == 5\n\ndef test_c():\n    assert f(2) == 4\n\ndef test_d():\n    assert f(2) == 6\n")
    got = [(t.a.line, t.b.line) for t in twins.find_twins([models.TestSource(kind="python", path="c.py", text=small)])]
    assert got == [(5, 9), (12, 15)], got


# -- red-team pass (redsem): what pytest collects at all, and arguments a hook gives -------------------

@pytest.mark.parametrize("conftest", [
    'collect_ignore = ["test_bad.py"]\n',
    'collect_ignore_glob = ["*_bad.py"]\n',
    'import sys\ncollect_ignore = []\nif sys.version_info > (3,):\n    collect_ignore.append("test_bad.py")\n',
])
def test_a_file_conftest_ignores_is_not_read(tmp_path, conftest):
    """redsem col_collect_ignore: `collect_ignore` / `collect_ignore_glob` of a conftest keep a file
    out of pytest's collection of the folder (or may, when the list is computed): its assertion
    `f(3) == 10` must not make a certified conflict with the doctest `f(3) -> 9`."""
    r = _task(tmp_path, {
        "tests/conftest.py": conftest,
        "tests/test_bad.py": "from sol import f\n\ndef test_a():\n    assert f(3) == 10\n",
        "tests/test_good.py": "from sol import f\n\ndef test_b():\n    assert f(3) == 9\n",
    })
    assert r["verdict"] != "conflict", r["reason"]
    assert any("collect_ignore" in u["reason"] and "collect" in u["reason"] for u in r["unsupported"]), \
        r["unsupported"]


@pytest.mark.parametrize("where", ["module", "class"])
def test_a_pytest_generate_tests_hook_of_the_module_or_class_is_not_guessed(tmp_path, where):
    """redsem col2_generate_tests_module: a test module's (or class's) own `pytest_generate_tests`
    parametrizes `n = 4` over the fixture `n = 3`: `f(n) == 16` must not be read as `f(3) == 16`."""
    hook = "def pytest_generate_tests(metafunc):\n    metafunc.parametrize('n', [4])\n"
    if where == "module":
        body = hook + "\ndef test_a(n):\n    assert f(n) == 16\n"
    else:
        body = "class TestF:\n" + textwrap.indent(hook, "    ").replace("(metafunc)", "(self, metafunc)") + \
               "\n    def test_a(self, n):\n        assert f(n) == 16\n"
    r = _task(tmp_path, {"tests/test_f.py": "import pytest\nfrom sol import f\n\n@pytest.fixture\ndef n():\n"
                                            "    return 3\n\n" + body})
    assert r["verdict"] != "conflict", r["reason"]
    assert any("pytest_generate_tests" in u["reason"] for u in r["unsupported"]), r["unsupported"]


@pytest.mark.parametrize("folder", ["build", "dist", "venv", "pkg.egg", ".old"])
def test_folders_pytest_does_not_enter_are_not_read(tmp_path, folder):
    """redsem col2_norecursedirs_build: pytest's default `norecursedirs` keeps `tests/build/...` out of
    the collection of `tests`: its assertion must not make a conflict."""
    r = _task(tmp_path, {
        f"tests/{folder}/test_bad.py": "from sol import f\n\ndef test_a():\n    assert f(3) == 10\n",
        "tests/test_good.py": "from sol import f\n\ndef test_b():\n    assert f(3) == 9\n",
    })
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["assertions_total"] == 1


def test_statements_after_the_raising_call_count_only_when_they_cannot_raise_the_expected_class():
    """#12 (rtgaps): `with pytest.raises(E): f(x); <rest>` passes when f(x) raises E, or when it
    returns and <rest> raises E.  Read as "f(x) raises E" only when <rest> cannot raise anything E
    matches (`assert False`, `pytest.fail(..)`, `raise AssertionError` with E a builtin class other
    than AssertionError/Exception/BaseException); `assert f(2) == 99` after the call may raise E
    itself (f(2) may raise TypeError), so that block stays unread."""
    from specguard.formalize.tests import formalize_tests
    from specguard.models import TestSource as Source
    code = textwrap.dedent('''
        import pytest, unittest
        from m import f
        def test_a():
            with pytest.raises(ValueError):
                f(1)
                pytest.fail("no raise")
        def test_b():
            with pytest.raises((TypeError, KeyError)):
                x = f(2)
                assert False, "should raise"
        def test_c():
            with pytest.raises(TypeError):
                f(None)
                assert f(2) == 99
        def test_d():
            with pytest.raises(Exception):
                f(3)
                assert False
        class T(unittest.TestCase):
            def test_e(self):
                with self.assertRaises(ValueError):
                    f(4)
                    raise AssertionError("x")
            def test_f(self):
                with self.assertRaises(MyErr):
                    f(5)
                    assert False
            def test_g(self):
                with self.assertRaises(ValueError):
                    f(6)
                    self.fail("x")
    ''')
    tf = formalize_tests([Source(kind="python", path="test_x.py", text=code)], "f")
    read = {d.loc.line: d.expect.exc for d in tf.demands}
    assert read == {5: ("ValueError",), 9: ("TypeError", "KeyError"), 22: ("ValueError",)}
    reasons = {u.loc.line: u.reason for u in tf.unsupported}
    assert "may raise the expected exception" in reasons[13] and 15 in reasons
    assert "Exception" in reasons[17] and "MyErr" in reasons[26]
    assert "self.fail" in reasons[30]         # failureException may be overridden
    assert 11 not in reasons                  # `assert False` after the call: part of the block's reading


def test_class_constants_bound_by_unpacking_follow_the_collected_class():
    """#12 (rtgaps): `x, y = 2, 99` in a base class and `x, y = 3, 9` in the collected subclass:
    the inherited test reads the subclass's values (the base is collected too only when it is a
    TestCase); `self.x, self.y = 3, 9` in an overriding `setUp` likewise.  Refused: a mutable
    element (`[1]` is one list shared by the class's tests), a name unpacked twice, a length
    mismatch."""
    from specguard.formalize.tests import formalize_tests
    from specguard.models import TestSource as Source
    from specguard.python.values import py_repr
    code = textwrap.dedent('''
        import unittest
        from m import f
        class Base:
            x, y = 2, 99
            def test_sq(self):
                assert f(self.x) == self.y
        class TestThree(Base):
            x, y = 3, 9
        class TestU(unittest.TestCase):
            def setUp(self):
                self.a, self.b = 5, 6
            def test_u(self):
                self.assertEqual(f(self.a), self.b)
        class TestV(TestU):
            def setUp(self):
                self.a, self.b = 7, 8
        class TestW:
            p, q = [1], 2
            r, r = 1, 2
            s, t = 1, 2, 3
            def test_w(self):
                assert f(self.p) == 1
                assert f(self.r) == 1
                assert f(self.s) == 1
    ''')
    tf = formalize_tests([Source(kind="python", path="test_x.py", text=code)], "f")
    got = sorted((d.loc.line, py_repr(d.call.args[0]), py_repr(d.expect.value)) for d in tf.demands)
    assert got == [(7, "3", "9"), (14, "5", "6"), (14, "7", "8")]
    reasons = {u.loc.line: u.reason for u in tf.unsupported}
    assert {23, 24, 25} <= set(reasons)
