"""pytest's own configuration in a task (``pytest.ini``, ``.pytest.ini``, ``[tool.pytest.ini_options]``
of ``pyproject.toml``, ``[pytest]`` of ``tox.ini``, ``[tool:pytest]`` of ``setup.cfg``): read as data,
never as SpecGuard's configuration, only to tell whether it changes which tests pytest collects or
how they run.  The test reader follows pytest's default rules; a file beside a test file or above it
that sets :data:`COLLECTION_KEYS` makes the tests under it unread (:func:`config_problem`), like a
``conftest.py`` that defines a hook."""

from __future__ import annotations

import configparser
import os
import re

# the basenames pytest reads its configuration from, and the section each keeps it in
SECTIONS = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest",
            "pyproject.toml": "tool.pytest.ini_options"}
# settings that change which tests are collected, or what runs around each of them
COLLECTION_KEYS = ("python_files", "python_classes", "python_functions", "addopts", "usefixtures", "norecursedirs")


def is_config(path: str) -> bool:
    return os.path.basename(path.replace("\\", "/")) in SECTIONS


def has_pytest_section(path: str, text: str) -> bool:
    """Whether pytest would read settings from this file (``pytest.ini`` always, the others only
    with their pytest section)."""
    name = os.path.basename(path)
    if name in ("pytest.ini", ".pytest.ini"):
        return True
    return re.search(rf"^[ \t]*\[[ \t]*{re.escape(SECTIONS.get(name, '?'))}[ \t]*\]", text, re.M) is not None


def _keys(path: str, text: str) -> dict[str, str] | None:
    name = os.path.basename(path)
    section = SECTIONS[name]
    if name == "pyproject.toml":
        import tomllib
        try:
            table = tomllib.loads(text).get("tool", {}).get("pytest", {}).get("ini_options", {})
        except (tomllib.TOMLDecodeError, RecursionError, AttributeError):
            return None
        return {str(k): str(v) for k, v in table.items()} if isinstance(table, dict) else None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except (configparser.Error, RecursionError):
        return None
    return dict(parser[section]) if parser.has_section(section) else {}


def config_problem(path: str, text: str | None) -> str | None:
    """Why the tests under this pytest configuration file cannot be read by pytest's default
    rules, or None (no pytest section, or none of :data:`COLLECTION_KEYS` set)."""
    if text is None or not has_pytest_section(path, text):
        return None
    keys = _keys(path, text)
    if keys is None:
        return f"{path} cannot be read as pytest's configuration: it may change how pytest collects tests"
    key = next((k for k in COLLECTION_KEYS if k in keys), None)
    if key is None:
        return None
    m = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*[=:]", text, re.M)
    line = text.count("\n", 0, m.start()) + 1 if m else 1
    return (f"{path}:{line} sets `{key}` for pytest: pytest's collection is not its default rules here "
            "(SpecGuard reads the defaults), so these tests may not run as read")
