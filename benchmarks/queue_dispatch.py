"""Share a queue folder of ``shared/tools/queue_model_server.py`` among K independent answerers.

    python -m benchmarks.queue_dispatch QUEUE K

Measuring the model path with language models that answer files (one model instance a folder),
the samples of a task must stay independent: no answerer may see two independent conversations
about the same task (it would remember its first answer).  This loop copies each new
``QUEUE/NNNN.prompt.txt`` into ``QUEUE/a<k>/``: a feedback round goes to the answerer that wrote
the answer it continues; a first question (or the continuation of an answer taken from a
recording) goes to the lowest-numbered answerer that has seen nothing of that task.  An answer
``QUEUE/a<k>/NNNN.resp.txt`` is copied back to ``QUEUE/NNNN.resp.txt`` atomically, which the
server returns.  A prompt no answerer may take waits (it is printed); the routing is kept in
``QUEUE/dispatch.json`` so the loop can be restarted.  Stop it with Ctrl-C or ``touch QUEUE/STOP``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from specguard.outputs.rows import atomic_write as _atomic_write


def _task_key(q) -> str:
    return json.dumps([q.kind, q.entry_point, q.text])


def step(queue: Path, k: int, state: dict) -> list[str]:
    """One pass: route new prompts, copy answers back.  Returns what it did (for the log)."""
    from specguard.model.llm import question_of
    log = []
    routed, seen, wrote = state["routed"], state["seen"], state["wrote"]
    for req in sorted(queue.glob("*.req.json")):
        n = req.name.split(".")[0]
        if (queue / f"{n}.resp.txt").exists():
            continue
        if n in routed:
            a = routed[n]
            resp = queue / f"a{a}" / f"{n}.resp.txt"
            if resp.is_file():
                text = resp.read_text(encoding="utf-8")
                wrote[text] = a
                _atomic_write(queue / f"{n}.resp.txt", text)
                log.append(f"{n}: answer of a{a} returned")
            continue
        prompt = queue / f"{n}.prompt.txt"
        if not prompt.is_file():
            continue
        msgs = json.loads(req.read_text(encoding="utf-8")).get("messages", [])
        q = question_of(msgs)
        key = _task_key(q)
        a = None
        if len(msgs) >= 3 and msgs[-2].get("role") == "assistant":
            a = wrote.get(str(msgs[-2].get("content", "")))
        if a is None:
            free = [i for i in range(k) if key not in seen.setdefault(str(i), [])]
            if not free:
                if n not in state["waiting"]:
                    state["waiting"].append(n)
                    log.append(f"{n}: every answerer has seen this task ({q.describe()}); waiting")
                continue
            a = free[0]
        seen.setdefault(str(a), [])
        if key not in seen[str(a)]:
            seen[str(a)].append(key)
        folder = queue / f"a{a}"
        folder.mkdir(exist_ok=True)
        _atomic_write(folder / f"{n}.prompt.txt", prompt.read_text(encoding="utf-8"))
        routed[n] = a
        log.append(f"{n}: {q.describe()} -> a{a}")
    return log


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not args[1].isdigit() or int(args[1]) < 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 3
    queue, k = Path(args[0]), int(args[1])
    queue.mkdir(parents=True, exist_ok=True)
    sf = queue / "dispatch.json"
    state = json.loads(sf.read_text()) if sf.is_file() else {}
    for f in ("routed", "seen", "wrote"):
        state.setdefault(f, {})
    state.setdefault("waiting", [])
    try:
        while not (queue / "STOP").exists():
            for line in step(queue, k, state):
                print(line, flush=True)
            _atomic_write(sf, json.dumps(state))
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    _atomic_write(sf, json.dumps(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
