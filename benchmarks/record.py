"""Turn a queue folder of ``shared/tools/queue_model_server.py`` into a replayable recording.

    python -m benchmarks.record QUEUE_DIR OUT.jsonl

Each answered request (``NNNN.req.json`` with its ``NNNN.resp.txt``) becomes one line of the
``exchanges.jsonl`` format that ``--replay FILE`` reads: ``n``, ``entry_point`` (read from the
prompt), ``messages`` (as sent), ``answer``, ``max_tokens``, ``temperature``.  Requests without an
answer are left out and counted.  The output is written atomically.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path


def exchanges(queue: Path) -> tuple[list[dict], int]:
    from specguard.model.llm import question_of
    out, unanswered = [], 0
    for req in sorted(queue.glob("*.req.json")):
        n = req.name.split(".")[0]
        resp = queue / f"{n}.resp.txt"
        if not resp.is_file():
            unanswered += 1
            continue
        body = json.loads(req.read_text(encoding="utf-8"))
        msgs = [{"role": m.get("role"), "content": m.get("content")} for m in body.get("messages", [])]
        q = question_of(msgs)
        out.append({"n": int(n) if n.isdigit() else len(out) + 1, "entry_point": q.entry_point, "kind": q.kind,
                    "messages": msgs, "answer": resp.read_text(encoding="utf-8"),
                    "max_tokens": body.get("max_tokens"), "temperature": body.get("temperature")})
    return out, unanswered


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 3
    queue, out = Path(args[0]), Path(args[1])
    rows, unanswered = exchanges(queue)
    fd, tmp = tempfile.mkstemp(dir=out.parent if str(out.parent) else ".", prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    os.replace(tmp, out)
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"{len(rows)} exchange(s) written to {out} ({kinds}); {unanswered} request(s) without an answer left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
