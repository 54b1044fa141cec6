"""Issue 12, item 1: the loader gives the formalizer the `conftest.py` files pytest would load for a
task folder's tests (beside them and above, inside the task folder only), and `verify --inputs`
re-derives a claim that rests on a conftest fixture."""

import os
import subprocess
import sys

from specguard import load


def _folder(tmp_path):
    root = tmp_path / "task"
    (root / "tests" / "unit").mkdir(parents=True)
    (root / "task.toml").write_text('description = "README.md"\ntests = ["tests/unit"]\nentry_point = "f"\n')
    (root / "README.md").write_text("Return the square of n.\n\n>>> f(3)\n9\n")
    (root / "tests" / "unit" / "test_f.py").write_text("from sol import f\n\ndef test_a(n):\n    assert f(n) == 10\n")
    return root


def test_conftests_beside_and_above_inside_the_folder(tmp_path):
    """#12.1: conftest.py of the tests' folder and of each folder above it up to the task folder are
    loaded (as test sources, role `tests`, hashed in the inputs); one above the task folder is not;
    a conftest that is a link out of the task folder is not read."""
    root = _folder(tmp_path)
    (tmp_path / "conftest.py").write_text("# outside the task folder\n")
    (root / "conftest.py").write_text("import pytest\n")
    (root / "tests" / "unit" / "conftest.py").write_text("import pytest\n")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("import pytest\n")
    os.symlink(outside, root / "tests" / "conftest.py")
    task = load.load_task_dir(str(root))
    paths = sorted(os.path.relpath(s.path, root) for s in task.tests)
    assert paths == ["conftest.py", "tests/unit/conftest.py", "tests/unit/test_f.py"]
    roles = {os.path.relpath(i.path, root): i.role for i in task.inputs if i.path.endswith(".py")}
    assert roles == {"conftest.py": "tests", "tests/unit/conftest.py": "tests", "tests/unit/test_f.py": "tests"}


def test_verify_rederives_a_claim_resting_on_a_conftest_fixture(tmp_path):
    """#12.1: the conflict `f(n) == 10` with `n = 3` from tests/conftest.py against the doctest is
    certified, and `specguard verify --inputs FOLDER` re-derives it (the conftest is an input)."""
    root = _folder(tmp_path)
    (root / "tests" / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef n():\n    return 3\n")
    out = tmp_path / "out"
    env = {**os.environ}
    r = subprocess.run([sys.executable, "-m", "specguard", "check", str(root), "--out", str(out), "-q"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    v = subprocess.run([sys.executable, "-m", "specguard", "verify", str(out), "--inputs", str(root)],
                       capture_output=True, text=True, env=env)
    assert v.returncode == 0 and v.stdout.startswith("VALID"), v.stdout + v.stderr
    (root / "tests" / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef n():\n    return 4\n")
    v = subprocess.run([sys.executable, "-m", "specguard", "verify", str(out), "--inputs", str(root)],
                       capture_output=True, text=True, env=env)
    assert v.returncode == 1 and "INVALID" in v.stdout, v.stdout + v.stderr
