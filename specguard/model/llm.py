"""Language-model calls through `litellm <https://docs.litellm.ai>`_ (any provider).

:func:`complete` sends chat messages to a litellm model string and returns the text and its
usage.  Responses are cached on disk, keyed by ``sha256(model + prompt JSON)`` (the prompt JSON
includes a sample index, so independent samples get independent entries), written atomically.
A :class:`Meter` counts the tokens and dollars one task spends and raises
:class:`~specguard.errors.ModelBudgetExceeded` before a call once a cap is reached.

Replay (``ModelSettings.replay``, ``--replay FILE``): the answers come from a recorded transcript
(``exchanges.jsonl``: one ``{"messages": [...], "answer": "..."}`` a line), matched on the
*question* (:func:`question_of`: the kind of prompt, the entry point, the description or tests
text, and each earlier round's answer and feedback), never on the raw prompt bytes, so a template
change that does not touch what was asked still replays.  A question the recording lacks raises
:class:`~specguard.errors.NotInRecording`; a replay client never calls a provider or the cache,
unless ``replay_then_ask`` is set (extending a recording: only what it lacks is asked).

API keys are read by litellm from the environment only (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ...); SpecGuard never reads, stores or logs them.  ``litellm`` is an
optional dependency: ``pip install 'specguard[llm]'``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from specguard.errors import InputError, ModelBudgetExceeded, ModelError, NotInRecording

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
    replayed_calls: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Usage") -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.replayed_calls += other.replayed_calls


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
    # ``--replay FILE``: answers from a recorded transcript (exchanges.jsonl), never the network
    replay: Path | None = None
    # with ``replay``: a question the recording lacks is asked of ``model`` (through the cache)
    # instead of being a stated miss: how a recording is extended after a prompt change
    replay_then_ask: bool = False
    # answers from ``cache_dir`` only: a question the cache lacks is a stated miss
    # (:class:`~specguard.errors.NotInRecording`), never a call (measurements re-run on a cache)
    cache_only: bool = False

    def meter(self) -> Meter:
        return Meter(self.max_task_tokens, self.max_task_cost_usd)


def prompt(name: str, **values: str) -> str:
    """The package's prompt file ``prompts/NAME.txt`` with each ``{key}`` replaced by ``values[key]``
    in one pass (a value that itself contains ``{key}`` text is left as it is)."""
    import re
    from importlib import resources
    template = resources.files("specguard.model").joinpath(f"prompts/{name}.txt").read_text(encoding="utf-8")
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
             mock_response: str | None = None, cache_only: bool = False) -> tuple[str, Usage]:
    """One chat completion: ``(text, usage)``.

    ``sample`` distinguishes independent samples of the same prompt in the cache.  A cached
    response is returned without a call (its usage has ``cached_calls=1`` and no cost).  With a
    ``meter``, its caps are checked before the call and the call's usage is added to it.
    ``mock_response`` is passed to litellm (tests: no network).  With ``cache_only`` a question
    the cache lacks raises :class:`~specguard.errors.NotInRecording` (a stated miss of that
    question) instead of calling the provider."""
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
    if cache_only:
        where = f"the response cache {cache_dir}" if cache_dir is not None else "no response cache"
        raise NotInRecording(f"not in {where} (cache-only run): {question_of(messages).describe()}",
                             hint="answer the question with the real model, or drop the cache-only setting")
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


# -- replay ----------------------------------------------------------------------------------

_REPLY_TAIL = re.compile(r"\n\s*Reply with the corrected spec[^\n]*\s*$")
_MAX_RECORDING_BYTES = 64 * 1024 * 1024


def _norm(text: str) -> str:
    return " ".join(str(text).split())


def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i + len(start))
    return text[i + len(start): j if j >= 0 else len(text)]


@dataclass(frozen=True)
class Question:
    """What a prompt asks, independent of the template's wording: the kind of prompt (``spec``:
    the spec agent, ``judge``, ``tests``: the test agent, ``other``), the entry point, the text
    asked about (the description and context files; the tests), and per earlier round the answer
    and the feedback (its standard closing instruction dropped), all whitespace-normalised."""

    kind: str
    entry_point: str
    text: str
    turns: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        what = {"spec": "the spec agent's question", "judge": "the judge's question",
                "tests": "the test agent's question"}.get(self.kind, "a question")
        out = f"{what} for `{self.entry_point or '?'}`"
        if self.turns:
            out += f", round {len(self.turns) + 1} after the feedback {self.turns[-1][1][:160]!r}"
        return out


def question_of(messages: Sequence[dict], entry_point: str | None = None) -> Question:
    """The :class:`Question` a conversation asks (its first user message and the later rounds)."""
    msgs = [m for m in messages if isinstance(m, dict)]
    first = str(msgs[0].get("content", "")) if msgs else ""
    entry = entry_point
    m = re.search(r"[Ff]unction under test(?: is|:|, )\s*`?([A-Za-z_][\w.]*)", first)
    if m:
        entry = m.group(1)
    desc = _between(first, "<<<DESCRIPTION\n", "\nDESCRIPTION>>>")
    tests = first[first.find("<<<TESTS"):] if "<<<TESTS" in first else None
    if desc is not None and tests is None:
        ctx = re.findall(r"Context file (.*?):\n<<<CONTEXT\n(.*?)\nCONTEXT>>>", first, re.S)
        kind, text = "spec", desc + "".join(f"\n[context {n}]\n{t}" for n, t in ctx)
        if "Specify the FIXED behaviour" in first:      # spec_agent.REPORT_NOTE: a bug report's fix is asked
            kind = "spec-fix"
    elif desc is not None:
        # a test file is named by its base name: where the task's files lie on a machine is not
        # part of the question (a recording made elsewhere still matches)
        tests = re.sub(r"<<<TESTS ([^\n]*)", lambda m: "<<<TESTS " + m.group(1).replace("\\", "/").rsplit("/", 1)[-1],
                       tests)
        kind, text = "judge", desc + "\n" + tests
    elif "Assertions SpecGuard could not read:" in first:
        kind, text = "tests", first[first.find("Assertions SpecGuard could not read:"):]
    else:
        kind, text = "other", first
    turns = []
    for i in range(1, len(msgs) - 1, 2):
        answer, feedback = str(msgs[i].get("content", "")), str(msgs[i + 1].get("content", ""))
        turns.append((_norm(answer), _norm(_REPLY_TAIL.sub("", feedback))))
    return Question(kind, entry or "", _norm(text), tuple(turns))


@dataclass
class Recording:
    """A recorded transcript: per question, its answers in the order recorded (the k-th time a
    client asks the same question, e.g. sample k of identical prompts, it gets the k-th answer)."""

    path: Path
    answers: dict[Question, list[str]]

    @classmethod
    def load(cls, path: Path | str) -> "Recording":
        path = Path(path)
        hint = ('one JSON object a line: {"messages": [{"role": "user", "content": "..."}, ...], "answer": "..."} '
                "(the exchanges.jsonl format of shared/data/model-transcripts)")
        try:
            if not path.is_file():
                raise InputError("the replay recording is not a file", path=str(path), hint=hint)
            raw = path.read_bytes()
        except OSError as e:
            raise InputError(f"the replay recording cannot be read: {e.strerror}", path=str(path), hint=hint) from e
        if len(raw) > _MAX_RECORDING_BYTES:
            raise InputError(f"the replay recording is larger than {_MAX_RECORDING_BYTES} bytes", path=str(path))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError("the replay recording is not UTF-8", path=str(path), hint=hint) from e
        rows = []
        for no, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except (ValueError, RecursionError) as e:
                raise InputError(f"not a JSON object: {str(e)[:120]}", path=str(path), line=no, hint=hint) from e
            msgs = d.get("messages") if isinstance(d, dict) else None
            ok = (isinstance(msgs, list) and msgs and isinstance(d.get("answer"), str)
                  and all(isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
                          for m in msgs))
            if not ok:
                raise InputError("an exchange needs 'messages' (role and content strings) and an 'answer' string",
                                 path=str(path), line=no, hint=hint)
            n = d.get("n")
            order = n if isinstance(n, int) and not isinstance(n, bool) else no
            ep = d.get("entry_point") if isinstance(d.get("entry_point"), str) else None
            rows.append((order, no, question_of(msgs, ep), d["answer"]))
        answers: dict[Question, list[str]] = {}
        for _, _, q, a in sorted(rows, key=lambda r: (r[0], r[1])):
            answers.setdefault(q, []).append(a)
        return cls(path, answers)


_RECORDINGS: dict[tuple, Recording] = {}


def recording(path: Path | str) -> Recording:
    """:meth:`Recording.load`, once per file version in this process."""
    p = Path(path)
    try:
        st = p.stat()
        key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    except OSError:
        key = (str(p), 0, 0)
    if key not in _RECORDINGS:
        _RECORDINGS[key] = Recording.load(p)
    return _RECORDINGS[key]


class Client:
    """``complete`` bound to :class:`ModelSettings` and one task's :class:`Meter` (or, with
    ``settings.replay``, the answers of a recorded transcript)."""

    def __init__(self, settings: ModelSettings, meter: Meter | None = None) -> None:
        self.settings = settings
        self.meter = meter or settings.meter()
        self._mocks = list(settings.mock_responses) if settings.mock_responses is not None else None
        self._replay = recording(settings.replay) if settings.replay is not None else None
        self._asked: dict[Question, int] = {}
        self.transcript: list[list[dict]] = []   # every prompt sent (audit, information-barrier tests)

    def _replayed(self, messages: Sequence[dict]) -> tuple[str, Usage]:
        q = question_of(messages)
        i = self._asked.get(q, 0)
        self._asked[q] = i + 1
        got = self._replay.answers.get(q, [])
        if i >= len(got):
            more = f" (it holds {len(got)} answer(s) to it, this is ask {i + 1})" if got else ""
            raise NotInRecording(f"not in the recording {self._replay.path.name}: {q.describe()}{more}",
                                 hint="record the exchange with the real model, or replay with the settings the "
                                      "recording was made with (--samples, prompts)")
        u = Usage(replayed_calls=1)
        self.meter.spent.add(u)
        return got[i], u

    def __call__(self, messages: Sequence[dict], *, sample: int = 0) -> tuple[str, Usage]:
        s = self.settings
        self.transcript.append([dict(m) for m in messages])
        if self._replay is not None:
            try:
                return self._replayed(messages)
            except NotInRecording:
                if not s.replay_then_ask:
                    raise
        mock = None
        if self._mocks is not None:
            mock = self._mocks.pop(0) if self._mocks else ""
        return complete(s.model, messages, max_tokens=s.max_tokens, timeout=s.timeout, retries=s.retries,
                        cache_dir=s.cache_dir, meter=self.meter, sample=sample, temperature=s.temperature,
                        mock_response=mock, cache_only=s.cache_only)
