"""Language-model calls through `litellm <https://docs.litellm.ai>`_ (any provider).

:func:`complete` sends chat messages to a litellm model string and returns the text and its
usage.  Responses are cached on disk, keyed by ``sha256(model + prompt JSON)`` (the prompt JSON
includes a sample index, so independent samples get independent entries), written atomically.
A :class:`Meter` counts the tokens and dollars one task spends and raises
:class:`~specguard.errors.ModelBudgetExceeded` before a call once a cap is reached.

API keys are read by litellm from the environment only (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ...); SpecGuard never reads, stores or logs them.  ``litellm`` is an
optional dependency: ``pip install 'specguard[llm]'``.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .errors import ModelBudgetExceeded, ModelError

INSTALL_HINT = "pip install 'specguard[llm]'   (or: pip install litellm)"


def _litellm():
    # never fetch the price list from the network at import time: use litellm's bundled copy
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as e:
        raise ModelError("the model path needs the `litellm` package, which is not installed",
                         hint=INSTALL_HINT) from e
    litellm.suppress_debug_info = True
    return litellm


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached_calls: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.calls += other.calls
        self.cached_calls += other.cached_calls


@dataclass
class Meter:
    """Per-task spend with caps (``None``: no cap).  Cached responses cost nothing."""

    max_tokens: int | None = 200_000
    max_cost_usd: float | None = 2.0
    spent: Usage = field(default_factory=Usage)

    def check(self) -> None:
        if self.max_tokens is not None and self.spent.tokens >= self.max_tokens:
            raise ModelBudgetExceeded(f"the task's model token cap is reached ({self.spent.tokens} of "
                                      f"{self.max_tokens} tokens spent)", hint="raise the cap or use a cheaper model")
        if self.max_cost_usd is not None and self.spent.cost_usd >= self.max_cost_usd:
            raise ModelBudgetExceeded(f"the task's model cost cap is reached (${self.spent.cost_usd:.4f} of "
                                      f"${self.max_cost_usd:.4f} spent)", hint="raise the cap or use a cheaper model")


@dataclass
class ModelSettings:
    """How to call the model for one task (what ``specguard check --model`` configures)."""

    model: str
    max_tokens: int = 4096            # completion tokens per call
    timeout: float = 120.0            # seconds per call
    retries: int = 2                  # provider errors retried by litellm
    cache_dir: Path | None = None     # on-disk response cache (None: no cache)
    max_task_tokens: int | None = 200_000
    max_task_cost_usd: float | None = 2.0
    temperature: float | None = None
    # testing only: litellm's ``mock_response``, one per call in order (never the network)
    mock_responses: list[str] | None = None

    def meter(self) -> Meter:
        return Meter(self.max_task_tokens, self.max_task_cost_usd)


def prompt(name: str, **values: str) -> str:
    """The package's prompt file ``prompts/NAME.txt`` with each ``{key}`` replaced by ``values[key]``
    in one pass (a value that itself contains ``{key}`` text is left as it is)."""
    import re
    from importlib import resources
    template = resources.files("specguard").joinpath(f"prompts/{name}.txt").read_text(encoding="utf-8")
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


def default_cache_dir() -> Path:
    """The response cache of the user (never of the folder being checked): ``$SPECGUARD_CACHE/llm``,
    else ``$XDG_CACHE_HOME/specguard/llm`` (an absolute ``XDG_CACHE_HOME`` only, as the XDG spec
    says: a relative one would put the cache in the current folder), else ``~/.cache/specguard/llm``."""
    if os.environ.get("SPECGUARD_CACHE"):
        return Path(os.environ["SPECGUARD_CACHE"]).expanduser() / "llm"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "specguard" / "llm"


def cache_key(model: str, messages: Sequence[dict], sample: int = 0, **params: Any) -> str:
    prompt = json.dumps({"messages": list(messages), "sample": sample, "params": params},
                        sort_keys=True, ensure_ascii=False)
    return hashlib.sha256((model + "\n" + prompt).encode("utf-8")).hexdigest()


_MAX_CACHE_ENTRY_BYTES = 16 * 1024 * 1024


def _cache_read(path: Path) -> dict | None:
    """A cached response, or None (absent, unreadable, not a regular file: never a blocking read
    of a pipe, never more than 16 MB)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            raw = f.read(_MAX_CACHE_ENTRY_BYTES + 1)
        if len(raw) > _MAX_CACHE_ENTRY_BYTES:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("text"), str) else None


def _cache_write(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written is only slower


def complete(model: str, messages: Sequence[dict], *, max_tokens: int = 4096, timeout: float = 120.0,
             retries: int = 2, cache_dir: Path | str | None = None, meter: Meter | None = None,
             sample: int = 0, temperature: float | None = None,
             mock_response: str | None = None) -> tuple[str, Usage]:
    """One chat completion: ``(text, usage)``.

    ``sample`` distinguishes independent samples of the same prompt in the cache.  A cached
    response is returned without a call (its usage has ``cached_calls=1`` and no cost).  With a
    ``meter``, its caps are checked before the call and the call's usage is added to it.
    ``mock_response`` is passed to litellm (tests: no network)."""
    params = {"max_tokens": max_tokens, "temperature": temperature}
    path = None
    if cache_dir is not None:
        key = cache_key(model, messages, sample, **params)
        path = Path(cache_dir) / key[:2] / f"{key}.json"
        hit = _cache_read(path)
        if hit is not None:
            u = Usage(calls=0, cached_calls=1)
            if meter is not None:
                meter.spent.add(u)
            return hit["text"], u
    if meter is not None:
        meter.check()
    litellm = _litellm()
    kw: dict[str, Any] = dict(model=model, messages=list(messages), max_tokens=max_tokens, timeout=timeout,
                              num_retries=retries)
    if temperature is not None:
        kw["temperature"] = temperature
    if mock_response is not None:
        kw["mock_response"] = mock_response
    t = time.monotonic()
    try:
        resp = litellm.completion(**kw)
    except Exception as e:  # litellm maps every provider failure to its own exception classes
        raise ModelError(f"the model {model!r} failed: {type(e).__name__}: {str(e)[:300]}",
                         hint="check the model string and that its API key is set in the environment") from e
    try:
        text = resp.choices[0].message.content
    except (AttributeError, IndexError, KeyError):
        text = None
    u = getattr(resp, "usage", None)
    usage = Usage(prompt_tokens=int(getattr(u, "prompt_tokens", 0) or 0),
                  completion_tokens=int(getattr(u, "completion_tokens", 0) or 0), calls=1)
    try:
        usage.cost_usd = float(litellm.completion_cost(completion_response=resp) or 0.0)
    except Exception:   # a model litellm has no price for: tokens are still counted
        usage.cost_usd = 0.0
    if meter is not None:
        meter.spent.add(usage)
    if not isinstance(text, str):
        raise ModelError(f"the model {model!r} returned no text", hint="try again or use another model")
    if path is not None:
        _cache_write(path, {"model": model, "text": text, "prompt_tokens": usage.prompt_tokens,
                            "completion_tokens": usage.completion_tokens, "cost_usd": usage.cost_usd,
                            "seconds": round(time.monotonic() - t, 3)})
    return text, usage


class Client:
    """``complete`` bound to :class:`ModelSettings` and one task's :class:`Meter`."""

    def __init__(self, settings: ModelSettings, meter: Meter | None = None) -> None:
        self.settings = settings
        self.meter = meter or settings.meter()
        self._mocks = list(settings.mock_responses) if settings.mock_responses is not None else None
        self.transcript: list[list[dict]] = []   # every prompt sent (audit, information-barrier tests)

    def __call__(self, messages: Sequence[dict], *, sample: int = 0) -> tuple[str, Usage]:
        s = self.settings
        mock = None
        if self._mocks is not None:
            mock = self._mocks.pop(0) if self._mocks else ""
        self.transcript.append([dict(m) for m in messages])
        return complete(s.model, messages, max_tokens=s.max_tokens, timeout=s.timeout, retries=s.retries,
                        cache_dir=s.cache_dir, meter=self.meter, sample=sample, temperature=s.temperature,
                        mock_response=mock)
