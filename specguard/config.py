"""Configuration, read from trusted places only.

Layers, later wins: defaults < the user's configuration file < ``SPECGUARD_*`` environment <
command-line flags (applied by the CLI on top of the returned object).

The user's configuration file is the first of: ``--config FILE`` (the ``config_file`` argument),
``$SPECGUARD_CONFIG``, ``$XDG_CONFIG_HOME/specguard/config.toml``, ``~/.config/specguard/config.toml``.
It holds the keys of :class:`Config` at its top level (a ``pyproject.toml`` named by ``--config`` is
read from its ``[tool.specguard]`` table).  A file named by ``--config`` or ``$SPECGUARD_CONFIG``
must exist; the default locations may be absent.

Threat model: the user, their environment and their flags are trusted; a folder being checked is
not, and the current folder is often one (``specguard check .`` inside a repository).  So a
``specguard.toml`` or a ``pyproject.toml`` ``[tool.specguard]`` table in the current folder or in
a task folder is **never read as configuration**: such a file could turn the model path on, point
the response cache (whose entries are trusted as the model's replies) or the output folder into
the repository, or raise limits.  It is only looked at to warn that its keys were ignored and how
to pass them (:func:`ignored_folder_config`).

``load_config`` reads files and the environment; constructing :class:`Config` does no I/O.
"""

from __future__ import annotations

import logging
import os
import stat
import tomllib
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from specguard.errors import ConfigError

log = logging.getLogger("specguard")

MAX_CONFIG_BYTES = 1024 * 1024
"""Largest configuration file read (bytes)."""

FOLDER_CONFIG_FILES = ("specguard.toml", "pyproject.toml")
"""Files that configured SpecGuard from the current folder before; now ignored with a warning."""


MAX_SECONDS = 7 * 24 * 3600.0
"""Largest time limit accepted (a week; far larger values overflow Python's timers)."""


class Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout: float = Field(60.0, gt=0, le=MAX_SECONDS)   # seconds per Lean run
    memory_mb: int = Field(2048, gt=0)                    # Lean heap limit per run
    out_dir: str = "specguard-out"  # where `check` puts bundles by default
    model: str | None = None       # litellm model string (LLM path; unused by the rule-based path)
    model_max_task_tokens: int | None = 200_000    # per-task token cap of the model path (None: no cap)
    model_max_task_cost_usd: float | None = 2.0    # per-task cost cap in dollars (None: no cap)
    model_timeout: float = Field(120.0, gt=0, le=MAX_SECONDS)  # seconds per model call
    model_retries: int = 2         # provider errors retried per call
    model_cache_dir: str | None = None  # on-disk response cache (default: $SPECGUARD_CACHE/llm or ~/.cache/specguard/llm)
    model_cache: bool = True       # false: no response cache


# how each key is given on the command line (or in the environment, when no flag sets it)
FLAG_OF = {
    "timeout": "--timeout SECONDS",
    "memory_mb": "SPECGUARD_MEMORY_MB=N",
    "out_dir": "--out DIR",
    "model": "--model MODEL",
    "model_max_task_tokens": "--max-task-tokens N",
    "model_max_task_cost_usd": "--max-task-cost USD",
    "model_timeout": "--model-timeout SECONDS",
    "model_retries": "--model-retries N",
    "model_cache_dir": "--model-cache DIR",
    "model_cache": "--no-model-cache",
}


def user_config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The default location of the user's configuration file (it may not exist), or None when the
    environment names no home folder."""
    env = os.environ if env is None else env
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "specguard" / "config.toml"
    if env.get("HOME"):
        return Path(env["HOME"]) / ".config" / "specguard" / "config.toml"
    return None


def config_path(config_file: str | Path | None = None, env: Mapping[str, str] | None = None) -> Path | None:
    """The configuration file :func:`load_config` reads: ``config_file`` (``--config``), else
    ``$SPECGUARD_CONFIG`` (both must exist), else the default location if a file is there, else None."""
    env = os.environ if env is None else env
    explicit = config_file if config_file is not None else (env.get("SPECGUARD_CONFIG") or None)
    if explicit is not None:
        return Path(explicit)
    path = user_config_path(env)
    return path if path is not None and os.path.lexists(path) else None


def _read_small_file(path: Path) -> bytes | None:
    """A regular file's bytes (at most MAX_CONFIG_BYTES), without following a last-component
    symlink into a pipe or device and without blocking; None when it is absent."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read configuration file: {e.strerror or e}",
                          hint="check the path and its permissions") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{path}: configuration file is not a regular file", hint="pass a .toml file")
    if st.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: configuration file is {st.st_size:,} bytes, over the "
                          f"{MAX_CONFIG_BYTES // 1024} KB limit", hint="keep only SpecGuard's keys in it")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ConfigError(f"{path}: configuration file is not a regular file", hint="pass a .toml file")
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read configuration file: {e.strerror or e}",
                          hint="check the file's permissions") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: configuration file is over the {MAX_CONFIG_BYTES // 1024} KB limit",
                          hint="keep only SpecGuard's keys in it")
    return raw


def _from_file(path: Path) -> dict[str, Any]:
    raw = _read_small_file(path)
    if raw is None:
        raise ConfigError(f"{path}: configuration file not found", hint="check the path of --config / SPECGUARD_CONFIG")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: configuration file is not valid UTF-8", hint="re-save it as UTF-8") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}", hint="fix the syntax at the line shown") from e
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply", hint="configuration needs no nesting") from None
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data = tool.get("specguard", {}) if isinstance(tool, dict) else None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: [tool.specguard] must be a table",
                              hint="write [tool.specguard] then key = value lines")
    return dict(data)


def ignored_folder_config(folder: Path) -> list[str]:
    """One warning per SpecGuard configuration file found in ``folder`` (a folder being checked, or
    the current folder): it is never read as configuration.  Each names the file, the keys it set and
    how to pass them.  Reading it for this is safe: regular files of at most MAX_CONFIG_BYTES only,
    never blocking, and any problem with the file only makes the warning vaguer."""
    out: list[str] = []
    for name in FOLDER_CONFIG_FILES:
        p = Path(folder) / name
        try:
            if not stat.S_ISREG(os.lstat(p).st_mode):
                continue
        except OSError:
            continue
        keys: list[str] | None = None
        try:
            raw = _read_small_file(p)
            data = tomllib.loads(raw.decode("utf-8")) if raw is not None else {}
            if name == "pyproject.toml":
                tool = data.get("tool", {})
                if not isinstance(tool, dict) or "specguard" not in tool:
                    continue
                data = tool["specguard"]
            keys = sorted(str(k) for k in data) if isinstance(data, dict) else None
        except (ConfigError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
            keys = None
        where = f"{p} ([tool.specguard])" if name == "pyproject.toml" else str(p)
        if keys == [] or (keys is None and name == "pyproject.toml"):
            continue  # nothing for SpecGuard, or a pyproject.toml that may hold no [tool.specguard]
        if keys is None:
            out.append(f"{where} is ignored: configuration in a folder being checked is never read")
            continue
        how = "; ".join(f"{k}: {FLAG_OF[k]}" for k in keys if k in FLAG_OF)
        out.append(f"{where} is ignored ({', '.join(keys)}): configuration in a folder being checked is never "
                   "read (it could turn the model on, move the cache or raise limits); pass what you want as "
                   f"flags{' (' + how + ')' if how else ''}, or put it in your own configuration file "
                   f"({user_config_path() or '~/.config/specguard/config.toml'}) or give --config FILE")
    return out


def load_config(cwd: Path | None = None, env: Mapping[str, str] | None = None, *,
                config_file: str | Path | None = None, folders: Iterable[str | Path] = (),
                warn: Callable[[str], None] | None = None) -> Config:
    """The configuration from the user's file (``config_file``, else ``$SPECGUARD_CONFIG``, else the
    default location of :func:`user_config_path`) and the ``SPECGUARD_*`` environment.

    ``cwd`` (default: the current folder) and ``folders`` (e.g. the task folder) are never read as
    configuration: a SpecGuard configuration file in one of them gets a warning through ``warn``
    (default: a logged warning) naming the ignored keys."""
    if cwd is None:
        try:
            cwd = Path.cwd()
        except OSError:  # the current folder was removed
            cwd = None
    env = os.environ if env is None else env
    say = warn or log.warning
    seen: set[str] = set()
    for folder in ([cwd] if cwd is not None else []) + list(folders):
        try:
            key = os.path.realpath(folder)
        except (OSError, ValueError):
            continue
        if key in seen or not os.path.isdir(key):
            continue
        seen.add(key)
        for msg in ignored_folder_config(Path(folder)):
            say(msg)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    path = config_path(config_file, env)
    if path is not None:
        data = _from_file(path)
        values.update(data)
        sources.update(dict.fromkeys(data, str(path)))
    for field in Config.model_fields:
        key = f"SPECGUARD_{field.upper()}"
        if key in env:
            values[field] = env[key]
            sources[field] = key
    try:
        return Config(**values)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        source = sources.get(str(err["loc"][0]) if err["loc"] else "", "defaults")
        raise ConfigError(f"bad configuration value for {loc!r} ({source}): {err['msg']}",
                          hint=f"valid keys: {', '.join(Config.model_fields)}") from e
