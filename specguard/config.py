"""Layered configuration: defaults < ``[tool.specguard]`` in pyproject.toml or a
``specguard.toml`` < ``SPECGUARD_*`` environment < command-line flags.

``load_config`` reads files and the environment; constructing :class:`Config`
does no I/O.  Flags are applied by the CLI on top of the returned object.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import ConfigError


class Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout: float = 60.0          # seconds per Lean run
    memory_mb: int = 2048          # Lean heap limit per run
    out_dir: str = "specguard-out"  # where `check` puts bundles by default
    model: str | None = None       # litellm model string (LLM path; unused by the rule-based path)
    model_max_task_tokens: int | None = 200_000    # per-task token cap of the model path (None: no cap)
    model_max_task_cost_usd: float | None = 2.0    # per-task cost cap in dollars (None: no cap)
    model_timeout: float = 120.0   # seconds per model call
    model_retries: int = 2         # provider errors retried per call
    model_cache_dir: str | None = None  # on-disk response cache (default: $SPECGUARD_CACHE/llm or ~/.cache/specguard/llm)
    model_cache: bool = True       # false: no response cache


def _from_file(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}", hint="fix the syntax at the line shown") from e
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("specguard", {})
    return dict(data)


def load_config(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    cwd = cwd or Path.cwd()
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    source = "defaults"
    for name in ("pyproject.toml", "specguard.toml"):
        p = cwd / name
        if p.is_file():
            values.update(_from_file(p))
            source = str(p)
    for field in Config.model_fields:
        key = f"SPECGUARD_{field.upper()}"
        if key in env:
            values[field] = env[key]
            source = key
    try:
        return Config(**values)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise ConfigError(f"bad configuration value for {loc!r} ({source}): {err['msg']}",
                          hint=f"valid keys: {', '.join(Config.model_fields)}") from e
