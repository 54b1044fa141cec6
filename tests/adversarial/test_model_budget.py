"""#15.2: the model path's budgets and misses, measured with a real model's cached answers.

* a run on a response cache alone (``ModelSettings.cache_only``) never calls a provider: a question
  the cache lacks is a stated miss of that sample (lcbhard re-runs must stop, not hang on a network);
* SpecGuard's evaluator charges its budget what it does: the real specs of lcbhard_12 (a BFS over
  states in a dict) and lcbhard_56 (a BFS over a 2,500-cell list, then a DP) ran out of the budget
  with dict lookups and list indexing charged as the kernel's scans."""

from __future__ import annotations

import json

import pytest

from specguard.errors import NotInRecording
from specguard.formalize import speclang as sl
from specguard.model import llm
from specguard.python.values import V

_MESSAGES = [{"role": "user", "content": "Write the spec of `f`."}]


def test_cache_only_miss_is_a_stated_miss_not_a_call(tmp_path):
    """#15.2: with ``cache_only`` a question not in the response cache raises NotInRecording (the
    sample's stated miss) before any provider is asked; a cached one is answered from the cache."""
    settings = llm.ModelSettings(model="openai/never-called", cache_dir=tmp_path, cache_only=True,
                                 timeout=0.001, retries=0)
    client = llm.Client(settings)
    with pytest.raises(NotInRecording, match=r"not in the response cache .*\(cache-only run\)"):
        client(_MESSAGES, sample=0)
    key = llm.cache_key(settings.model, _MESSAGES, 0, max_tokens=settings.max_tokens, temperature=None)
    path = tmp_path / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"model": settings.model, "text": "```python\ndef reference(x: int) -> int:\n"
                                "    return x\n```"}), encoding="utf-8")
    text, usage = llm.Client(settings)(_MESSAGES, sample=0)
    assert "def reference" in text and usage.cached_calls == 1 and usage.calls == 0
    # another sample of the same question is another question of the cache: a miss again
    with pytest.raises(NotInRecording):
        llm.Client(settings)(_MESSAGES, sample=1)


def test_cache_only_miss_is_named_in_the_spec_agents_samples(tmp_path):
    """#15.2: through the spec agent, every sample the cache lacks keeps the cache miss as its
    cause (what result.json's ``model.miss_cause`` is built from)."""
    from specguard.model import spec_agent
    settings = llm.ModelSettings(model="openai/never-called", cache_dir=tmp_path, cache_only=True)
    run = spec_agent.write_spec("Return x plus one.\n\n>>> f(1)\n2\n", model=settings, entry_point="f", samples=2)
    assert len(run.samples) == 2 and run.stopped is None
    assert all(s.program is None and "not in the response cache" in (s.missing or "") for s in run.samples)
    assert "sample 2: not in the response cache" in run.failure_reason()


# lcbhard_12, sample 1 of the real model (its shape, cut to the state search)
_BFS_DICT = '''
def reference(n: int, s: str, t: str) -> int:
    start = s + ".."
    goal = t + ".."
    if start == goal:
        return 0
    dist = {start: 0}
    queue = [start]
    head = 0
    while head < len(queue):
        cur = queue[head]
        head = head + 1
        d = dist[cur]
        e = cur.find("..")
        for i in range(n + 1):
            if cur[i] == "." or cur[i + 1] == ".":
                continue
            cells = list(cur)
            cells[e] = cur[i]
            cells[e + 1] = cur[i + 1]
            cells[i] = "."
            cells[i + 1] = "."
            nxt = "".join(cells)
            if nxt in dist:
                continue
            if nxt == goal:
                return d + 1
            dist[nxt] = d + 1
            queue.append(nxt)
    return -1
'''

# lcbhard_56, sample 1 of the real model: the BFS part
_BFS_LIST = '''
def reference(sx: int, sy: int) -> int:
    dist = [-1 for _ in range(2500)]
    dist[sx * 50 + sy] = 0
    queue = [sx * 50 + sy]
    head = 0
    moves = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
    while head < len(queue):
        cur = queue[head]
        head = head + 1
        x = cur // 50
        y = cur % 50
        for mv in moves:
            nx = x + mv[0]
            ny = y + mv[1]
            if 0 <= nx < 50 and 0 <= ny < 50 and dist[nx * 50 + ny] < 0:
                dist[nx * 50 + ny] = dist[cur] + 1
                queue.append(nx * 50 + ny)
    return sum(dist)
'''


@pytest.mark.parametrize("source,args,expect", [
    (_BFS_DICT, (V("int", 9), V("str", "BWBWBWBWB"), V("str", "WWWWBBBBB")), None),
    (_BFS_LIST, (V("int", 0), V("int", 0)), None),
])
def test_real_model_state_searches_fit_the_evaluation_budget(source, args, expect):
    """#15.2: the state searches of lcbhard_12 and lcbhard_56's real specs finish within one
    input's evaluation bound: dict lookups, list indexing and ``len`` are constant time in the
    evaluator and are not charged as the kernel's scans; the kernel steps (what decides whether
    the kernel is asked) still count them, so these inputs stay beyond the kernel budget."""
    p = sl.SpecProgram(source)
    budget = sl.EvalBudget()
    out = p.outcome(args, budget=budget)
    assert out.kind == "eq", out.reason
    assert out.steps > sl.DEFAULT_KERNEL_BUDGET          # execution tier: the kernel is not asked
    assert budget.used < out.steps                        # charged less than the kernel's scans
    assert budget.used <= sl.MIRROR_STEP_LIMIT
