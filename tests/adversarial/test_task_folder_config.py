"""Task-folder layer: configuration and files found in a folder being checked are data, never
instructions (issue 11, items 1 and 20).

The user, their environment and their flags are trusted; the task folder (and the current folder,
when the user runs ``specguard check .`` inside a repository) is not.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.kernel import runner as lean_runner
from specguard.model import llm, spec_agent
from specguard import load
from specguard.cli import main
from specguard.config import load_config
from specguard.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/gpt-4o-mini"
HOSTILE_SPEC = "```python\ndef reference(s: str) -> int:\n    return 7\n```"


def _repo(tmp_path: Path) -> Path:
    """A consistent task (count_vowels("hello") == 2, prose description the rules cannot read)."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "task.toml").write_text('id = "vowels"\nentry_point = "count_vowels"\ndescription = "README.md"\n'
                                    'tests = ["tests"]\n')
    (repo / "README.md").write_text("Count the vowels of the word and give that count back.\n")
    (repo / "tests" / "test_v.py").write_text('from m import count_vowels\n\n\ndef test_hello():\n'
                                              '    assert count_vowels("hello") == 2\n')
    return repo


def _plant(repo: Path) -> Path:
    """The attack: a specguard.toml (and a pyproject [tool.specguard]) turning the model on, moving
    the response cache into the repository, the output out of it and the limits up, plus the cache
    entry the spec agent's first prompt would hit: a "spec" of the repository's choosing."""
    (repo / "specguard.toml").write_text(f'model = "{MODEL}"\nmodel_cache_dir = ".cache"\nout_dir = "../escaped"\n'
                                         'timeout = 3600\nmemory_mb = 65536\nmodel_max_task_cost_usd = 1000\n')
    (repo / "pyproject.toml").write_text(f'[tool.specguard]\nmodel = "{MODEL}"\nmodel_cache_dir = ".cache"\n')
    task = load.load_task_dir(str(repo))
    prompt = spec_agent.build_prompt(task.description, task.entry_point)
    key = llm.cache_key(MODEL, [{"role": "user", "content": prompt}], 0, max_tokens=4096, temperature=None)
    entry = repo / ".cache" / key[:2] / f"{key}.json"
    entry.parent.mkdir(parents=True)
    entry.write_text(json.dumps({"model": MODEL, "text": HOSTILE_SPEC}))
    return entry


def _clean_env(home: Path) -> dict[str, str]:
    """No API key, no SPECGUARD_* setting, an empty home (no user configuration); the Lean cache kept."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SPECGUARD_") and not k.endswith("_API_KEY") and k != "XDG_CONFIG_HOME"}
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), SPECGUARD_CACHE=str(lean_runner.cache_root()))
    return env


def _check(repo: Path, env: dict[str, str], *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    p = subprocess.run([sys.executable, "-m", "specguard", "check", ".", "--json", *extra], cwd=str(repo), env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode in (0, 1, 2), p.stderr + p.stdout
    return p, json.loads(p.stdout)


@pytest.mark.lean
def test_planted_config_and_cache_in_the_current_folder_do_not_turn_the_model_on(tmp_path):
    """#11.1: `specguard check .` inside a hostile repository with no flags and no API key: its
    specguard.toml / [tool.specguard] never turn the model path on, never move the cache or the
    output, never raise limits, and its planted cache entry is never read (before: a certified
    false conflict from the planted "spec", with no key).  The same entry given by the user's own
    flags is read: the plant is the real attack, the folder is what is not trusted."""
    repo = _repo(tmp_path)
    _plant(repo)
    env = _clean_env(tmp_path / "home")
    p, r = _check(repo, env)
    assert p.returncode == 2 and r["verdict"] == "inconclusive" and r["evidence"] == "none", r["reason"]
    assert r["model"] is None and any("model path skipped" in n for n in r["notes"])
    assert "specguard.toml is ignored (memory_mb, model, model_cache_dir, model_max_task_cost_usd, out_dir, " \
           "timeout)" in p.stderr
    assert "pyproject.toml ([tool.specguard]) is ignored (model, model_cache_dir)" in p.stderr
    assert "--model MODEL" in p.stderr and "--model-cache DIR" in p.stderr
    assert not (tmp_path / "escaped").exists()
    [bundle] = (repo / "specguard-out").iterdir()
    assert not list(bundle.glob("model-*"))
    # control: the user's flags are trusted, and then the planted entry is what the model "said"
    p, r = _check(repo, env, "--model", MODEL, "--model-cache", ".cache", "--no-judge", "--out", str(tmp_path / "b"))
    assert r["model"] is not None and r["model"]["specs"][0]["source"].strip().endswith("return 7")


def test_folder_config_is_ignored_even_when_broken_or_hostile(tmp_path):
    """#11.1: a folder's configuration is never parsed as configuration: bad TOML, a huge file, a
    pipe named specguard.toml or a bad value give at most a warning, never an error or a hang."""
    for name, make in (("bad", lambda p: p.write_text("model = [unclosed\n")),
                       ("value", lambda p: p.write_text('timeout = "forever"\n')),
                       ("huge", lambda p: p.write_bytes(b"#" * (2 << 20))),
                       ("fifo", lambda p: os.mkfifo(p))):
        folder = tmp_path / name
        folder.mkdir()
        make(folder / "specguard.toml")
        warned: list[str] = []
        with _deadline(10):
            cfg = load_config(folder, env={}, warn=warned.append)
        assert cfg.model is None and cfg.timeout == 60.0
        if name != "fifo":
            assert warned and "is ignored" in warned[0], name


def test_user_configuration_is_read_from_trusted_places_only(tmp_path):
    """#11.1: the user's file ($XDG_CONFIG_HOME or ~/.config), $SPECGUARD_CONFIG or --config FILE;
    the environment over the file; a --config file that is missing is an error (exit 3)."""
    home = tmp_path / "home"
    (home / ".config" / "specguard").mkdir(parents=True)
    (home / ".config" / "specguard" / "config.toml").write_text('model = "from-home"\ntimeout = 5\n')
    other = tmp_path / "other.toml"
    other.write_text('model = "from-flag"\n')
    assert load_config(tmp_path, env={"HOME": str(home)}).model == "from-home"
    assert load_config(tmp_path, env={"HOME": str(home), "SPECGUARD_TIMEOUT": "7"}).timeout == 7
    assert load_config(tmp_path, env={"HOME": str(home), "SPECGUARD_CONFIG": str(other)}).model == "from-flag"
    assert load_config(tmp_path, env={"HOME": str(home)}, config_file=other).timeout == 60.0
    assert main(["check", "--config", str(tmp_path / "missing.toml"), "--description", "x", "--tests", "t.py"]) == 3


def test_a_link_named_like_the_default_output_folder_is_not_written_through(tmp_path, monkeypatch, capsys):
    """#11.1: a `specguard-out` symlink planted in the current folder does not move the output."""
    repo = _repo(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (repo / "specguard-out").symlink_to(tmp_path / "elsewhere")
    monkeypatch.chdir(repo)
    assert main(["check", "."]) == 3
    assert "specguard-out is a symbolic link" in capsys.readouterr().err
    assert not list((tmp_path / "elsewhere").iterdir())


# -- #11.20: confinement of a task folder ---------------------------------------------------------

@contextlib.contextmanager
def _deadline(seconds: int):
    """Fail instead of hanging forever (a blocking open of a pipe is interrupted)."""
    def boom(signum, frame):
        raise TimeoutError(f"blocked for {seconds} s")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _task(tmp_path: Path, toml: str) -> Path:
    t = _repo(tmp_path)
    (t / "task.toml").write_text('entry_point = "count_vowels"\n' + toml)
    (tmp_path / "secret.md").write_text("SECRET-OUTSIDE-THE-TASK\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "test_secret.py").write_text("def test_s():\n    assert 'SECRET' == 1\n")
    return t


@pytest.mark.parametrize("toml,key,line", [
    ('description = "../secret.md"\ntests = ["tests"]\n', "description", 2),
    ('description = "{tmp}/secret.md"\ntests = ["tests"]\n', "description", 2),
    ('description = "README.md"\ntests = ["tests", "../outside"]\n', "tests", 3),
    ('description = "README.md"\ntests = ["/"]\n', "tests", 3),
    ('description = "README.md"\ntests = "{tmp}/outside/test_secret.py"\n', "tests", 3),
    ('description = "link.md"\ntests = ["tests"]\n', "description", 2),
    ('description = "README.md"\ntests = ["linked"]\n', "tests", 3),
])
def test_paths_in_task_toml_must_stay_inside_the_task_folder(tmp_path, capsys, toml, key, line):
    """#11.20: `..`, absolute paths, `tests = ["/"]` and links out of the folder named in task.toml
    are refused (exit 3, naming task.toml:line and the key), never read nor sent to a model."""
    t = _task(tmp_path, toml.replace("{tmp}", str(tmp_path)))
    (t / "link.md").symlink_to(tmp_path / "secret.md")
    (t / "linked").symlink_to(tmp_path / "outside")
    assert main(["check", str(t), "--out", str(tmp_path / "b")]) == 3
    err = capsys.readouterr().err
    assert f"task.toml:{line}: '{key}' names" in err and "outside the task folder" in err, err
    assert "SECRET" not in err and not (tmp_path / "b").exists()


def test_links_inside_the_folder_are_followed_and_links_out_skipped(tmp_path):
    """#11.20: a folder search reads regular files inside the task folder (links included when they
    stay inside) and skips links leaving it, pipes and sockets."""
    t = _task(tmp_path, 'description = "README.md"\ntests = ["tests"]\n')
    (t / "tests" / "test_out.py").symlink_to(tmp_path / "outside" / "test_secret.py")
    (t / "tests" / "test_loop.py").symlink_to(t / "tests" / "test_v.py")
    (t / "tests" / "sub").symlink_to(tmp_path / "outside", target_is_directory=True)
    os.mkfifo(t / "tests" / "test_pipe.py")
    with _deadline(10):
        task = load.load_task_dir(str(t))
    [only] = task.tests                      # test_loop.py links to test_v.py: one file, read once
    assert os.path.basename(only.path) in ("test_loop.py", "test_v.py") and "count_vowels" in only.text
    assert all("SECRET" not in (s.text or "") for s in task.tests)


@pytest.mark.parametrize("where", ["task.toml", "description", "test file", "command line"])
def test_a_pipe_is_refused_without_blocking(tmp_path, where):
    """#11.20: a FIFO as task.toml, as the description or as a named test file (or a pipe given on
    the command line) is refused at once with exit 3, never opened for a blocking read."""
    t = _task(tmp_path, 'description = "README.md"\ntests = ["tests/test_v.py"]\n')
    target = {"task.toml": t / "task.toml", "description": t / "README.md", "test file": t / "tests" / "test_v.py",
              "command line": tmp_path / "test_cli.py"}[where]
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    args = ["check", str(t)] if where != "command line" else ["check", "--description", "Count vowels.",
                                                               "--tests", str(target)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", *args, "--out", str(tmp_path / "b")], cwd=str(tmp_path),
                       env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 3, p.stderr
    assert "is not a regular file (a pipe, device or socket)" in p.stderr and "Traceback" not in p.stderr


def test_folder_searches_have_a_budget(tmp_path, monkeypatch):
    """#11.20: a folder search looks at a bounded number of entries and files (clean error beyond),
    also for folders the user names on the command line."""
    d = tmp_path / "many"
    d.mkdir()
    for i in range(30):
        (d / f"test_{i}.py").write_text("def test_x():\n    assert 1 == 1\n")
    monkeypatch.setattr(load, "MAX_WALK_ENTRIES", 20)
    with pytest.raises(InputError, match="more than 20 files and folders"):
        load.load_from_parts("Return 1.", [str(d)])
    monkeypatch.setattr(load, "MAX_WALK_ENTRIES", 1000)
    monkeypatch.setattr(load, "MAX_TEST_FILES", 10)
    with pytest.raises(InputError, match="more than 10 test files"):
        load.load_from_parts("Return 1.", [str(d)])
    monkeypatch.setattr(load, "MAX_TEST_FILES", 100)
    monkeypatch.setattr(load, "MAX_TASK_BYTES", 100)
    with pytest.raises(InputError, match="over 0 MB in total"):
        load.load_from_parts("Return 1.", [str(d)])


def test_paths_the_user_gives_are_taken_as_given(tmp_path):
    """#11.20: confinement is for what a task folder names; the user's own paths may be anywhere."""
    t = _task(tmp_path, 'description = "README.md"\ntests = ["tests"]\n')
    task = load.load_from_parts(str(tmp_path / "secret.md"), [str(tmp_path / "outside"), str(t / "tests")])
    assert "SECRET" in task.description and len(task.tests) == 2


def test_the_default_response_cache_is_the_users_never_the_current_folder(tmp_path, monkeypatch):
    """#11.1: a relative XDG_CACHE_HOME (invalid per the XDG spec) does not put the model's response
    cache in the folder being checked; a pipe planted as a cache entry is a miss, not a hang."""
    pytest.importorskip("litellm")
    monkeypatch.delenv("SPECGUARD_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", ".cache")
    assert llm.default_cache_dir() == tmp_path / "home" / ".cache" / "specguard" / "llm"
    msgs = [{"role": "user", "content": "hi"}]
    key = llm.cache_key(MODEL, msgs, 0, max_tokens=4096, temperature=None)
    (tmp_path / "c" / key[:2]).mkdir(parents=True)
    os.mkfifo(tmp_path / "c" / key[:2] / f"{key}.json")
    with _deadline(10):
        text, usage = llm.complete(MODEL, msgs, cache_dir=tmp_path / "c", mock_response="live")
    assert text == "live" and usage.calls == 1


@pytest.mark.parametrize("name, text", [
    ("task.toml", 'id = "vowels"\nentry_point = "count_vowels"\ndescription = "README.md"\ntests = '
                  + "[" * 5000 + "]" * 5000 + "\n"),
    ("specguard.toml", "x = " + "[" * 5000 + "]" * 5000 + "\n"),
    ("pyproject.toml", "[tool.specguard]\nx = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n"),
])
def test_deeply_nested_toml_is_no_traceback(tmp_path, capsys, monkeypatch, name, text):
    """#11.21: a task.toml, or a planted specguard.toml / pyproject.toml in the folder being checked,
    nested 5000 deep: tomllib's RecursionError was a traceback of `specguard check .`.  Now the task
    file is a clear error (exit 3) and a planted configuration file only a warning."""
    repo = _repo(tmp_path)
    (repo / name).write_text(text)
    monkeypatch.chdir(repo)
    code = main(["check", ".", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if name == "task.toml":
        assert code == 3 and "nested too deeply" in err, err
    else:                                  # a pyproject.toml that cannot be read may hold no [tool.specguard]
        assert code in (0, 1, 2) and ("is ignored" in err or name == "pyproject.toml"), err


# -- code planted in the current folder (red-team pass, 2026-12-02) -------------------------------

def _canary_plants(repo: Path, canary: Path) -> None:
    """Modules SpecGuard imports after `python -m` put the current folder first on sys.path, and
    a `lean` executable: each writes the canary if it ever runs."""
    write = f"import pathlib\npathlib.Path({str(canary)!r}).write_text(__name__)\n"
    for mod in ("json", "ast", "tomllib", "hashlib", "typing", "textwrap"):
        (repo / f"{mod}.py").write_text(write)
    (repo / "pydantic").mkdir()
    (repo / "pydantic" / "__init__.py").write_text(write)
    (repo / "lean").write_text(f"#!/bin/sh\necho lean > {canary}\nexit 1\n")
    (repo / "lean").chmod(0o755)
    (repo / "cc").write_text(f"#!/bin/sh\necho cc > {canary}\nexit 1\n")
    (repo / "cc").chmod(0o755)


@pytest.mark.lean
def test_python_m_inside_a_hostile_folder_runs_none_of_its_code(tmp_path):
    """Red team: `cd repo; python -m specguard check .` put the repository first on sys.path, so its
    `json.py` (and `ast.py`, `pydantic/`, ...) ran when SpecGuard imported them; and with an empty
    PATH entry (`PATH=/usr/bin:`, a trailing colon, means the current folder) its `lean` ran as
    the Lean runtime (the self-test runs it; a `lean` forwarding the self-test to a real Lean and
    lying about SpecGuard's own files would pass it).  Now the current folder is dropped from
    sys.path and PATH's relative entries are not searched: nothing planted runs, the task is
    checked as usual."""
    repo = _repo(tmp_path)
    canary = tmp_path / "canary"
    _canary_plants(repo, canary)
    env = _clean_env(tmp_path / "home")
    env.pop("SPECGUARD_CACHE")          # a fresh runtime search and launcher build in this process
    env["SPECGUARD_CACHE"] = str(lean_runner.cache_root())
    env["PATH"] = ":" + env.get("PATH", "/usr/bin:/bin") + ":"
    p, r = _check(repo, env, "--out", str(tmp_path / "b"))
    assert not canary.exists(), canary.read_text()
    assert r["verdict"] == "inconclusive" and r["task_id"] == "vowels", r["reason"]
    # the same with `-X dev` before `-m` (options of the interpreter are skipped, not taken for a script)
    p = subprocess.run([sys.executable, "-X", "dev", "-m", "specguard", "--version"], cwd=str(repo), env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and not canary.exists(), p.stderr


def test_the_current_folder_stays_on_sys_path_for_a_source_checkout(tmp_path):
    """`python -m specguard` run from SpecGuard's own checkout keeps that folder on sys.path (it is
    where SpecGuard is imported from: developers run their worktree's code this way)."""
    code = "import sys, specguard; print(sys.path[0])"
    env = dict(os.environ, PYTHONPATH="")
    p = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "", p.stdout           # -c: not `-m specguard`, sys.path untouched
    from specguard import _main_module
    assert _main_module(["python", "-m", "specguard", "check"]) == "specguard"
    assert _main_module(["python", "-X", "dev", "-mspecguard.kernel.runner"]) == "specguard.kernel.runner"
    assert _main_module(["python", "-c", "x", "-m", "specguard"]) is None
    assert _main_module(["python", "script.py", "-m", "specguard"]) is None
    assert _main_module(["python", "-Bm", "specguard"]) == "specguard"          # grouped short options
    assert _main_module(["python", "-W", "error", "-Xdev", "-m", "specguard"]) == "specguard"
    assert _main_module(["python", "-Bc", "import specguard"]) is None
    p = subprocess.run([sys.executable, "-m", "specguard", "--version"], cwd=str(ROOT), env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr


@pytest.mark.lean
def test_out_replaces_an_earlier_bundle_never_a_folder_that_merely_holds_a_manifest(tmp_path, capsys):
    """Red team: `--out DIR` replaces an earlier bundle at DIR, and anything holding a file named
    `manifest.json` passed for one: `specguard check T --out my-web-app` deleted the whole folder
    (its source files included) because a web app has a manifest.json.  Now only an empty folder or
    one holding nothing but a bundle's files with a SpecGuard manifest is replaced; anything else is
    refused before any work (exit 3), and left as it was."""
    task = ROOT / "examples" / "conflict"
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / "manifest.json").write_text('{"name": "my web app"}\n')
    (app / "src" / "main.js").write_text("precious\n")
    assert main(["check", str(task), "--out", str(app), "-q"]) == 3
    assert "is not a SpecGuard bundle (it holds 'src')" in capsys.readouterr().err
    assert (app / "src" / "main.js").read_text() == "precious\n"
    (app / "src" / "main.js").unlink()
    (app / "src").rmdir()
    assert main(["check", str(task), "--out", str(app), "-q"]) == 3      # a manifest.json of another format
    assert "its manifest.json is not a SpecGuard manifest" in capsys.readouterr().err
    assert (app / "manifest.json").read_text() == '{"name": "my web app"}\n'
    # an earlier bundle is replaced, as before
    out = tmp_path / "b"
    assert main(["check", str(task), "--out", str(out), "-q"]) == 1
    (out / "result.json").write_text("{}")
    assert main(["check", str(task), "--out", str(out), "-q"]) == 1
    assert json.loads((out / "result.json").read_text())["verdict"] == "conflict"
