"""pytest's own configuration in a task (``pytest.ini``, ``.pytest.ini``, ``[tool.pytest.ini_options]``
of ``pyproject.toml``, ``[pytest]`` of ``tox.ini``, ``[tool:pytest]`` of ``setup.cfg``): read as data,
never as SpecGuard's configuration, only to tell whether it changes which tests pytest collects or
how they run.  The test reader follows pytest's default rules; a file beside a test file or above it
that sets :data:`COLLECTION_KEYS` makes the tests under it unread (:func:`config_problem`), like a
``conftest.py`` that defines a hook."""

from __future__ import annotations

import configparser
import fnmatch
import os
import re

# the basenames pytest reads its configuration from, and the section each keeps it in
SECTIONS = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest",
            "pyproject.toml": "tool.pytest.ini_options"}
# settings that change which tests are collected, or what runs around each of them
# (`norecursedirs` is not among them: it applies only to folders pytest recurses into, and how the
# task's suite is invoked -- `pytest` or `pytest tests/test_f.py` -- is not known)
COLLECTION_KEYS = ("python_files", "python_classes", "python_functions", "addopts", "usefixtures")


def is_config(path: str) -> bool:
    return os.path.basename(path.replace("\\", "/")) in SECTIONS


def has_pytest_section(path: str, text: str) -> bool:
    """Whether pytest would read settings from this file (``pytest.ini`` always, the others only
    with their pytest section)."""
    name = os.path.basename(path)
    if name in ("pytest.ini", ".pytest.ini"):
        return True
    return re.search(rf"^[ \t]*\[[ \t]*{re.escape(SECTIONS.get(name, '?'))}[ \t]*\]", text, re.M) is not None


def _keys(path: str, text: str) -> dict[str, object] | None:
    name = os.path.basename(path)
    section = SECTIONS[name]
    if name == "pyproject.toml":
        import tomllib
        try:
            table = tomllib.loads(text).get("tool", {}).get("pytest", {}).get("ini_options", {})
        except (tomllib.TOMLDecodeError, RecursionError, AttributeError):
            return None
        return {str(k): v for k, v in table.items()} if isinstance(table, dict) else None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except (configparser.Error, RecursionError):
        return None
    return dict(parser[section]) if parser.has_section(section) else {}


def _words(value: object) -> list[str] | None:
    """An ini value (whitespace-separated, or a TOML list of strings) as its words."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return [w for x in value for w in x.split()]
    return None


# addopts that change neither which tests run nor how they run (reporting, warnings, coverage)
_QUIET_OPTS = re.compile(r"-[qvls]+|-r[a-zA-Z]*|--strict-markers|--strict-config|--strict|--tb=\w+|"
                         r"--color=\w+|--showlocals|--durations(-min)?=[\d.]+|--cov(-report|-branch|-fail-under|-config)?"
                         r"(=\S*)?|--no-cov(-on-fail)?|--verbose|--quiet|--show-capture=\w+|--code-highlight=\w+")


def _why(key: str, value: object, config_dir: str, test_path: str) -> str | None:
    """Why setting ``key`` to ``value`` may change whether or how pytest runs the test file
    ``test_path``, or None."""
    words = _words(value)
    if words is None:
        return "a value that is not text"
    if key == "addopts":
        bad = next((w for w in words if not _QUIET_OPTS.fullmatch(w)), None)
        return None if bad is None else f"the option {bad[:40]!r} may select, deselect or change the tests"
    if key == "python_files":
        name = os.path.basename(test_path)
        return None if any(fnmatch.fnmatch(name, w) for w in words) else \
            f"{name} does not match its patterns: pytest does not collect it from a folder"
    return "pytest's collection is not its default rules here (SpecGuard reads the defaults)"


def config_problem(path: str, text: str | None, test_path: str) -> str | None:
    """Why the test file ``test_path`` (beside or below this pytest configuration file) may not be
    collected or run as pytest's default rules say, or None (no pytest section, or no
    :data:`COLLECTION_KEYS` setting that affects it)."""
    if text is None or not has_pytest_section(path, text):
        return None
    keys = _keys(path, text)
    if keys is None:
        return f"{path} cannot be read as pytest's configuration: it may change how pytest collects tests"
    for key in COLLECTION_KEYS:
        if key not in keys:
            continue
        why = _why(key, keys[key], os.path.dirname(path) or ".", test_path)
        if why is None:
            continue
        m = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*[=:]", text, re.M)
        line = text.count("\n", 0, m.start()) + 1 if m else 1
        return f"{path}:{line} sets `{key}` for pytest: {why}, so these tests may not run as read"
    return None
