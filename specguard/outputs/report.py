"""``specguard report``: what a batch found, for people (Markdown, HTML) and for CI (SARIF).

Entry points: :func:`load_batch` reads a batch folder (``results.jsonl``, ``batch.json``, each
bundle's ``result.json`` when needed); :func:`render_markdown`, :func:`render_html` and
:func:`render_sarif` are pure; :func:`write_report` / :func:`write_sarif` write files atomically.

* **Markdown / HTML**: a verdict x evidence table; scoring against ground-truth labels when the rows
  carry them (detected / certified / false negatives / false positives / certified false positives /
  inconclusive, as counts and fractions of the labelled task count); every conflict with the test line
  and the description excerpt it contradicts; errors; a timing histogram; every task with a relative
  link to its bundle; cost columns only when rows carry a cost.  The HTML page is self-contained:
  inline CSS, inline SVG charts, no script, no network asset.
* **SARIF 2.1.0** (``results.sarif``): one ``error`` result per conflict (``ruleId``
  ``specguard/conflict-<kind>``) located at the test line, with the description line (or the other
  test) as a related location; one ``warning`` per contradicted or over-specified test outside a
  conflict core (``overspecified='note'|'none'`` tones the latter down); tasks that could not be
  checked are tool notifications.  URIs are relative to the batch's working folder (base id
  ``SRCROOT``), except the test files of SWE-bench instances, which are relative to the instance's
  repository (as code hosts resolve them); a location inside a JSON task file (``tasks[3].modified_
  tests[18]``) is resolved to the line where that value starts.

Why SARIF rather than JUnit XML: JUnit describes *test runs* (a case passed or failed, with a message)
and carries no source positions; code hosts show it as a list of failed cases.  A SpecGuard finding is
a *defect at a place in the sources* - this test line contradicts that description line - which is
exactly what SARIF models (physical locations, regions, related locations, rules, stable
fingerprints), and what GitHub code scanning, GitLab and Azure DevOps turn into annotations on the
offending lines of a pull request.
"""

from __future__ import annotations

import bisect
import html
import json
import math
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from specguard import __version__
from specguard.outputs.rows import META, RESULTS, SARIF, BatchMeta, BatchRow, atomic_write, read_rows
from specguard.errors import ReportError
from specguard.outputs.results import Result

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERDICTS = ("conflict", "no-conflict", "inconclusive")
EVIDENCES = ("certified", "execution", "model-judgment", "model-spec-agreement", "none")
CONFLICTED_TYPES = ("conflicting", "oneoff")


# =====================================================================================
# reading a batch
# =====================================================================================

@dataclass
class BatchData:
    out_dir: Path
    rows: list[BatchRow]
    meta: BatchMeta | None
    _results: dict[str, Result | None] = field(default_factory=dict)

    def result(self, row: BatchRow) -> Result | None:
        """The bundle's ``result.json`` of a row (None when there is no readable bundle)."""
        if row.bundle is None:
            return None
        if row.key not in self._results:
            try:
                raw = (self.out_dir / row.bundle / "result.json").read_bytes()
                self._results[row.key] = Result.model_validate_json(raw)
            except (OSError, ValueError):
                self._results[row.key] = None
        return self._results[row.key]


def load_batch(out_dir: str | Path) -> BatchData:
    out = Path(out_dir)
    if not (out / RESULTS).is_file():
        raise ReportError(f"{out} holds no {RESULTS}",
                          hint="pass the --out folder of `specguard batch`")
    rows = sorted(read_rows(out), key=lambda r: (r.index, r.key))
    meta = None
    if (out / META).is_file():
        try:
            meta = BatchMeta.model_validate_json((out / META).read_bytes())
        except ValueError:
            meta = None
    return BatchData(out, rows, meta)


# =====================================================================================
# scoring against ground truth
# =====================================================================================

def ground_truth(labels: dict[str, str], impossible_set: bool = False) -> str | None:
    """'conflicted', 'clean' or None (unknown) from a row's labels.

    A clean/original suite, or ``impossible_type`` 'original', is a clean control;
    ``impossible_type`` 'conflicting'/'oneoff' (or a modified/corrupted suite) is conflicted.  In a
    set where some rows carry ``impossible_type`` (``impossible_set``), a row without one is a clean
    control."""
    suite = labels.get("suite")
    it = labels.get("impossible_type")
    if labels.get("clean") == "true" or suite in ("original", "clean"):
        return "clean"
    if it in CONFLICTED_TYPES:
        return "conflicted"
    if it == "original":
        return "clean"
    if suite in ("modified", "corrupted"):
        return "conflicted"
    if it is None and impossible_set:
        return "clean"
    return None


METRICS = ("detected", "certified", "false_negatives", "false_positives", "certified_false_positives",
           "inconclusive")
METRIC_NAMES = {"detected": "detected", "certified": "certified", "false_negatives": "false negatives",
                "false_positives": "false positives", "certified_false_positives": "certified false positives",
                "inconclusive": "inconclusive"}


def _score_rows(rows: Sequence[tuple[BatchRow, str]]) -> dict[str, Any]:
    n = len(rows)

    def c(pred) -> int:
        return sum(1 for r, gt in rows if pred(r, gt))

    out: dict[str, Any] = {
        "n": n,
        "conflicted": c(lambda r, gt: gt == "conflicted"),
        "clean": c(lambda r, gt: gt == "clean"),
        "detected": c(lambda r, gt: gt == "conflicted" and r.verdict.value == "conflict"),
        "certified": c(lambda r, gt: gt == "conflicted" and r.verdict.value == "conflict"
                       and r.evidence.value == "certified"),
        "false_negatives": c(lambda r, gt: gt == "conflicted" and r.verdict.value == "no-conflict"),
        "false_positives": c(lambda r, gt: gt == "clean" and r.verdict.value == "conflict"),
        "certified_false_positives": c(lambda r, gt: gt == "clean" and r.verdict.value == "conflict"
                                       and r.evidence.value == "certified"),
        "inconclusive": c(lambda r, gt: r.verdict.value == "inconclusive"),
        "errors": c(lambda r, gt: r.error is not None),
    }
    out["fractions"] = {k: (round(out[k] / n, 4) if n else 0.0) for k in METRICS}
    return out


def _group_name(r: BatchRow) -> str:
    parts = []
    if r.input.kind != "task-dir" and r.input.path:
        parts.append(Path(r.input.path).stem)
    lab = r.labels
    if "suite" in lab:
        parts.append(lab["suite"])
    elif "impossible_type" in lab:
        parts.append(lab["impossible_type"])
    else:
        parts.append("unlabelled")
    return "/".join(parts)


def score(rows: Sequence[BatchRow]) -> dict[str, Any] | None:
    """Scores over the rows with a ground truth (None when no row has one): overall and per group
    (input file and suite)."""
    impossible_set = any("impossible_type" in r.labels for r in rows)
    labelled = [(r, gt) for r in rows if (gt := ground_truth(r.labels, impossible_set)) is not None]
    if not labelled:
        return None
    groups: dict[str, list[tuple[BatchRow, str]]] = {}
    for r, gt in labelled:
        groups.setdefault(_group_name(r), []).append((r, gt))
    out = _score_rows(labelled)
    out["unlabelled"] = len(rows) - len(labelled)
    out["groups"] = {g: _score_rows(v) for g, v in groups.items()} if len(groups) > 1 else {}
    return out


def summary(data: BatchData) -> dict[str, Any]:
    """Everything the report says, as JSON-able data (``specguard report --json``)."""
    rows = data.rows
    table = {v: {e: 0 for e in EVIDENCES} for v in VERDICTS}
    for r in rows:
        if not r.error:   # an error row carries verdict inconclusive, but is counted as an error
            table[r.verdict.value][r.evidence.value] += 1
    secs = [r.seconds for r in rows]
    cost = [r.cost_usd for r in rows if r.cost_usd is not None]
    m = data.meta
    return {
        "out": str(data.out_dir),
        "tasks": len(rows),
        "verdicts": {v: sum(table[v].values()) for v in VERDICTS},
        "verdict_evidence": table,
        "errors": sum(1 for r in rows if r.error),
        "conflicts": [{"key": r.key, "task_id": r.task_id, "kind": r.conflict_kind, "evidence": r.evidence.value,
                       "bundle": r.bundle} for r in rows if r.verdict.value == "conflict"],
        "seconds": {"total": round(sum(secs), 3), "mean": round(sum(secs) / len(secs), 3) if secs else 0.0,
                    "max": round(max(secs), 3) if secs else 0.0},
        "cost_usd": round(sum(cost), 6) if cost else None,
        "coverage": coverage_summary(rows),
        "score": score(rows),
        "inputs": [i.path for i in m.inputs] if m else [],
        "runs": len(m.runs) if m else None,
        "specguard_version": __version__,
    }


# =====================================================================================
# small helpers
# =====================================================================================

COVERAGE_BINS = ("none read", "1-24%", "25-49%", "50-74%", "75-99%", "all read", "nothing to read", "not known")
SORTS = ("index", "coverage", "verdict", "seconds")


def coverage_fraction(r: BatchRow) -> float | None:
    """Test assertions read / total of a row; None when not known or the tests hold none."""
    c = r.coverage
    if c is None or r.error or c.assertions_total <= 0:
        return None
    return c.assertions_read / c.assertions_total


def coverage_bin(r: BatchRow) -> str:
    c = r.coverage
    if c is None or r.error:
        return "not known"
    if c.assertions_total <= 0:
        return "nothing to read"
    f = c.assertions_read / c.assertions_total
    if c.assertions_read == 0:
        return "none read"
    if c.assertions_read >= c.assertions_total:
        return "all read"
    return COVERAGE_BINS[1 + min(3, int(f * 4))]


def coverage_summary(rows: Sequence[BatchRow]) -> dict[str, Any]:
    """Coverage over a batch: totals of what was read and the tasks per bin of assertions read."""
    known = [r.coverage for r in rows if r.coverage is not None and not r.error]
    bins = {b: 0 for b in COVERAGE_BINS}
    for r in rows:
        bins[coverage_bin(r)] += 1
    tot = {k: sum(getattr(c, k) for c in known) for k in ("assertions_read", "assertions_total", "examples_read",
                                                          "examples_seen", "statements_read", "statements_seen")}
    return {"tasks_known": len(known), **tot, "bins": bins}


def coverage_cell(r: BatchRow) -> str:
    c = r.coverage
    if c is None or r.error:
        return ""
    return f"{c.assertions_read}/{c.assertions_total}"


_VERDICT_ORDER = {"conflict": 0, "error": 1, "inconclusive": 2, "no-conflict": 3}


def sort_rows(rows: Sequence[BatchRow], by: str = "index") -> list[BatchRow]:
    """The task table's order: ``index`` (input order), ``coverage`` (least read first; unknown
    last), ``verdict`` (conflicts first) or ``seconds`` (slowest first)."""
    if by == "coverage":
        return sorted(rows, key=lambda r: (coverage_fraction(r) is None, coverage_fraction(r) or 0.0, r.index))
    if by == "verdict":
        return sorted(rows, key=lambda r: (_VERDICT_ORDER["error" if r.error else r.verdict.value], r.index))
    if by == "seconds":
        return sorted(rows, key=lambda r: (-r.seconds, r.index))
    return sorted(rows, key=lambda r: r.index)


def _same_text(statement: str, text: str) -> bool:
    """The statement says nothing the source text does not show (then it is not repeated)."""
    flat = " ".join(text.split())
    return not statement.strip() or " ".join(statement.split()) in flat


def _why(f: "_Finding", text: str) -> str:
    """A finding's explanation, without restating the statements the card already shows."""
    if f.items and all(it["statement"] and it["statement"] in text for it in f.items) and \
            text.startswith("no implementation satisfies"):
        return "No implementation satisfies all of these lines."
    return text


def _rel_link(target: Path, from_dir: Path) -> str:
    rel = os.path.relpath(os.path.abspath(target), os.path.abspath(from_dir))
    return urllib.parse.quote(rel.replace(os.sep, "/"))


def _loc_str(loc: Any) -> str:
    return str(loc)


def _one_line(s: str, n: int = 160) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _md_cell(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_code(s: str) -> str:
    s = s.replace("\n", " ")
    ticks = "`"
    while ticks in s:
        ticks += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


def _fence(s: str) -> str:
    f = "```"
    while f in s:
        f += "`"
    return f"{f}\n{s}\n{f}"


def _labels_str(labels: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _frac(x: float) -> str:
    return f"{100 * x:.1f}%"


def _histogram(values: Sequence[float], bins: int = 12) -> list[tuple[float, float, int]]:
    """(low, high, count) bins of a 'nice' width (1, 2, 2.5 or 5 x 10^k) covering the values."""
    if not values:
        return []
    lo_v, hi_v = min(values), max(values)
    span = hi_v - lo_v
    if span <= 0:
        span = max(hi_v, 1e-3)
    raw = span / bins
    mag = 10 ** math.floor(math.log10(raw))
    width = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo_v / width) * width
    n = max(1, math.floor((hi_v - start) / width) + 1)
    counts = [0] * n
    for v in values:
        counts[min(n - 1, max(0, int((v - start) // width)))] += 1
    return [(round(start + i * width, 9), round(start + (i + 1) * width, 9), counts[i]) for i in range(n)]


def _fmt_s(x: float) -> str:
    return f"{x:g}" if x >= 1 or x == 0 else f"{x:.2g}"


@dataclass
class _Finding:
    """A conflict, read from the bundle when available (else from the row)."""

    row: BatchRow
    kind: str
    items: list[dict[str, Any]]   # {source, id, loc, text, statement}
    explanation: str


_UNCERTIFIED = "A conflict core was found, but the kernel did not accept its certificate, so the verdict is inconclusive."
_NEAR = ("Conflicts SpecGuard sees but cannot certify: each is a conflict only under the condition it states "
         "(the function treats tuple and list arguments alike; the duplicated code does not depend on test "
         "order, shared state, time or randomness).")


def _finding_sections(data) -> list:
    """``(title, findings, text when empty, intro)`` of the report's conflict sections (an empty
    section without such a text is left out)."""
    allf = _conflicts(data)
    out = [("Conflicts", [f for f in allf if f.row.verdict.value == "conflict"], "None found.", None),
           ("Conflicts found but not certified", [f for f in allf if f.row.verdict.value != "conflict"], None,
            _UNCERTIFIED),
           ("Near-conflicts, not certified", _near_conflicts(data), None, _NEAR)]
    return [x for x in out if x[1] or x[2] is not None]


def _dedupe(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A conflict's sides, each once (the same statement at the same place is shown once)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for it in items:
        k = (it["source"], str(it["loc"]), " ".join(it["statement"].split()))
        if k not in seen:
            seen.add(k)
            out.append(it)
    return out


def _near_conflicts(data: BatchData) -> list[_Finding]:
    out = []
    for r in data.rows:
        if r.verdict.value == "conflict":
            continue
        res = data.result(r)
        for n in (res.near_conflicts if res is not None else ()):
            items = [{"source": i.source, "id": i.id, "loc": i.loc, "text": i.text, "statement": i.statement}
                     for i in n.items]
            out.append(_Finding(r, n.kind, _dedupe(items), n.explanation))
    return out


def _conflicts(data: BatchData) -> list[_Finding]:
    out = []
    for r in data.rows:
        if r.verdict.value != "conflict" and not r.conflict_items:
            continue
        res = data.result(r)
        if res is not None and res.conflict is not None:
            items = [{"source": i.source, "id": i.id, "loc": i.loc, "text": i.text, "statement": i.statement}
                     for i in res.conflict.items]
            out.append(_Finding(r, res.conflict.kind, _dedupe(items), res.conflict.explanation))
        elif r.conflict_items:
            items = [{"source": i.source, "id": i.id, "loc": i.loc, "text": "", "statement": i.statement}
                     for i in r.conflict_items]
            out.append(_Finding(r, r.conflict_kind or "unknown", _dedupe(items), r.reason))
    return out


def _test_findings(data: BatchData) -> list[tuple[BatchRow, Any, str]]:
    """(row, TestReport, 'contradicted' | 'over-specified') for every flagged test outside a
    conflict core."""
    out = []
    for r in data.rows:
        if not (r.tests.get("contradicted") or r.overspecified):
            continue
        res = data.result(r)
        if res is None:
            continue
        core = {i.id for i in res.conflict.items} if res.conflict else set()
        for t in res.tests:
            if t.id in core:
                continue
            if t.status == "contradicted":
                out.append((r, t, "contradicted"))
            elif t.status == "left-open" and t.finding == "over-specified":
                out.append((r, t, "over-specified"))
    return out


def _flagged(data: BatchData, limit: int = 50) -> tuple[list[tuple[str, int, int]], int, int, int]:
    """Per task (key, contradicted, over-specified) outside conflict cores, most contradicted first,
    at most ``limit``; and the totals (contradicted, over-specified, tasks)."""
    per: dict[str, list[int]] = {}
    for r, _t, kind in _test_findings(data):
        c = per.setdefault(r.key, [0, 0])
        c[0 if kind == "contradicted" else 1] += 1
    items = sorted(per.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))
    ta = sum(a for a, _ in per.values())
    tb = sum(b for _, b in per.values())
    return [(k, a, b) for k, (a, b) in items[:limit]], ta, tb, len(per)


def _header_facts(data: BatchData) -> list[tuple[str, str]]:
    m = data.meta
    rows = data.rows
    facts: list[tuple[str, str]] = [("folder", str(data.out_dir))]
    if m:
        facts.append(("inputs", ", ".join(i.path for i in m.inputs)))
        facts.append(("suites", " ".join(m.suites)))
    facts.append(("tasks", str(len(rows))))
    versions = sorted({r.specguard_version for r in rows})
    facts.append(("specguard", ", ".join(versions) or __version__))
    leans = sorted({(r.lean_version or "?", (r.lean_commit or "?")[:12]) for r in rows if r.lean_version})
    if leans:
        facts.append(("Lean", ", ".join(f"{v} (commit {c})" for v, c in leans)))
    facts.append(("task time", f"{sum(r.seconds for r in rows):.1f} s"))
    if m and m.runs:
        wall = sum(r.seconds or 0.0 for r in m.runs)
        facts.append(("wall time", f"{wall:.1f} s over {len(m.runs)} run(s)"))
    return facts


# =====================================================================================
# Markdown
# =====================================================================================

def _score_table(sc: dict) -> tuple[list[str], list[int], list[tuple[str, list[tuple[int, str]]]]]:
    """The scoring table shared by the Markdown and HTML reports: column names, task counts,
    and per metric its label and (count, fraction text) per column."""
    groups = sc["groups"]
    cols = ["all"] + list(groups)
    ds = [sc if g == "all" else groups[g] for g in cols]
    rows = [(METRIC_NAMES[m], [(d[m], _frac(d["fractions"][m])) for d in ds]) for m in METRICS]
    return cols, [d["n"] for d in ds], rows


def render_markdown(data: BatchData, report_path: Path | None = None, sort: str = "index") -> str:
    """The Markdown report; links are relative to ``report_path``'s folder (default: the batch folder);
    the task table in the order ``sort`` (see :func:`sort_rows`)."""
    base = (report_path.parent if report_path else data.out_dir)
    s = summary(data)
    rows = data.rows
    has_cost = s["cost_usd"] is not None
    L: list[str] = ["# SpecGuard batch report", ""]
    for k, v in _header_facts(data):
        L.append(f"- **{k}**: {_md_cell(v)}")
    L += ["", "## Verdicts", "", "| verdict | " + " | ".join(EVIDENCES) + " | total |",
          "|---|" + "---:|" * (len(EVIDENCES) + 1)]
    for v in VERDICTS:
        cells = [str(s["verdict_evidence"][v][e]) for e in EVIDENCES]
        L.append(f"| {v} | " + " | ".join(cells) + f" | **{s['verdicts'][v]}** |")
    tot = [str(sum(s["verdict_evidence"][v][e] for v in VERDICTS)) for e in EVIDENCES]
    L.append("| **total** | " + " | ".join(tot) + f" | **{len(rows) - s['errors']}** |")
    L.append("")
    if s["errors"]:
        L.append(f"{s['errors']} task(s) could not be checked (errors, not counted in the table above); "
                 "see *Errors*.")
        L.append("")
    if has_cost:
        L += [f"Model cost: ${s['cost_usd']:.4f} in total.", ""]

    sc = s["score"]
    if sc:
        L += ["## Scoring against ground-truth labels", "",
              f"{sc['n']} labelled task(s): {sc['conflicted']} conflicted, {sc['clean']} clean control(s)"
              + (f"; {sc['unlabelled']} without a label (not scored)" if sc["unlabelled"] else "")
              + ". Fractions are of the labelled task count.", ""]
        if sc["certified_false_positives"]:
            L += [f"**Warning: {sc['certified_false_positives']} certified false positive(s)** - a kernel-checked "
                  "conflict on a clean control; please report it.", ""]
        cols, tasks, metric_rows = _score_table(sc)
        L.append("| metric | " + " | ".join(cols) + " |")
        L.append("|---|" + "---:|" * len(cols))
        L.append("| tasks | " + " | ".join(str(n) for n in tasks) + " |")
        for label, cells in metric_rows:
            L.append(f"| {label} | " + " | ".join(f"{n} ({f})" for n, f in cells) + " |")
        L.append("")

    for title, findings, empty, intro in _finding_sections(data):
        L += [f"## {title} ({len(findings)})", ""]
        if intro:
            L += [intro, ""]
        if not findings:
            L += [empty, ""]
        for f in findings:
            r = f.row
            link = f" - [bundle]({_rel_link(data.out_dir / r.bundle, base)}/)" if r.bundle else ""
            L.append(f"### {_md_code(r.task_id)}: {f.kind}, {r.evidence.value}{link}")
            L.append("")
            if r.key != r.task_id:
                L += [f"Task {_md_code(r.key)} ({_md_cell(str(r.input))}).", ""]
            for it in f.items:
                what = "Test" if it["source"] == "test" else "Description"
                text = it["text"].strip()
                if text and "\n" not in text:
                    L.append(f"- **{what}** {_md_code(_loc_str(it['loc']))}: {_md_code(text)}")
                else:
                    L.append(f"- **{what}** {_md_code(_loc_str(it['loc']))}"
                             + ("" if text else f": {_md_code(it['statement'])}"))
                    if text:
                        L.append("")
                        L.append("  " + _fence(text).replace("\n", "\n  "))
                if text and not _same_text(it["statement"], text):
                    L.append(f"  read as {_md_code(it['statement'])}")
            why = _why(f, f.explanation) if r.verdict.value == "conflict" or intro == _NEAR else r.reason
            L += ["", _md_cell(why), ""]

    flagged, ta, tb, nt = _flagged(data)
    if flagged:
        L += ["## Contradicted and over-specified tests", "",
              f"{ta} contradicted and {tb} over-specified test(s) in {nt} task(s), outside conflict cores: "
              "tests the description contradicts, or over-specifies: a description (or --spec) statement about "
              "the same call allows an implementation that fails the test (a witness). Tests that what was "
              "formalized does not speak about are not counted (finding: not-covered)."
              + (f" The {len(flagged)} tasks with the most are listed." if nt > len(flagged) else ""), "",
              "| task | contradicted | over-specified |", "|---|---:|---:|"]
        for key, a, b in flagged:
            L.append(f"| {_md_cell(key)} | {a} | {b} |")
        L.append("")

    errs = [r for r in rows if r.error]
    if errs:
        L += [f"## Errors ({len(errs)})", "", "| task | input | error |", "|---|---|---|"]
        for r in errs:
            L.append(f"| {_md_cell(r.key)} | {_md_cell(str(r.input))} | {_md_cell(' '.join((r.error or '').split()))} |")
        L.append("")

    hist = _histogram([r.seconds for r in rows])
    if hist:
        top = max(c for _, _, c in hist) or 1
        L += ["## Timing", "",
              f"Per task: mean {s['seconds']['mean']:.2f} s, max {s['seconds']['max']:.2f} s, "
              f"total {s['seconds']['total']:.1f} s.", "",
              "| seconds | tasks | |", "|---|---:|---|"]
        for lo, hi, c in hist:
            L.append(f"| {_fmt_s(lo)}-{_fmt_s(hi)} | {c} | {'█' * max(1 if c else 0, round(24 * c / top))} |")
        L.append("")

    cov = s["coverage"]
    if cov["tasks_known"]:
        L += ["## Coverage", "",
              f"Test assertions read: {cov['assertions_read']} of {cov['assertions_total']} over "
              f"{cov['tasks_known']} task(s); description examples read: {cov['examples_read']} of "
              f"{cov['examples_seen']}; other description statements read: {cov['statements_read']} of "
              f"{cov['statements_seen']}. Tasks by the share of their test assertions read:", "",
              "| assertions read | tasks | |", "|---|---:|---|"]
        top = max(cov["bins"].values()) or 1
        for b, c in cov["bins"].items():
            if c or b not in ("nothing to read", "not known"):
                L.append(f"| {b} | {c} | {'█' * max(1 if c else 0, round(24 * c / top))} |")
        L += ["", "`specguard report DIR --sort coverage` lists the tasks least read first.", ""]

    L += [f"## Tasks ({len(rows)})", ""]
    has_cov = bool(cov["tasks_known"])
    head = "| # | task | verdict | evidence |" + (" read |" if has_cov else "") + " seconds |"
    sep = "|---:|---|---|---|" + ("---:|" if has_cov else "") + "---:|"
    if has_cost:
        head += " cost (USD) |"
        sep += "---:|"
    head += " labels | bundle | reason |"
    sep += "---|---|---|"
    L += [head, sep]
    for r in sort_rows(rows, sort):
        verdict = "error" if r.error else r.verdict.value
        line = (f"| {r.index} | {_md_cell(r.key)} | {verdict} | {r.evidence.value} |"
                + (f" {coverage_cell(r)} |" if has_cov else "") + f" {r.seconds:.2f} |")
        if has_cost:
            line += f" {'' if r.cost_usd is None else f'{r.cost_usd:.4f}'} |"
        bl = f"[bundle]({_rel_link(data.out_dir / r.bundle, base)}/)" if r.bundle else ""
        line += f" {_md_cell(_labels_str(r.labels))} | {bl} | {_md_cell(' '.join(r.reason.split()))} |"
        L.append(line)
    L.append("")
    return "\n".join(L)


# =====================================================================================
# HTML
# =====================================================================================

_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;
--conflict:#cf222e;--clean:#1a7f37;--inc:#9a6700;--err:#8250df}
*{box-sizing:border-box}
body{font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg);
margin:0 auto;max-width:1180px;padding:24px}
h1{font-size:24px;margin:0 0 8px}h2{font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin:0 0 6px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft)}td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px;margin:4px 0;
white-space:pre-wrap;word-break:break-word}
.facts{color:var(--muted);margin:0 0 12px;padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:4px 18px}
.facts b{color:var(--fg);font-weight:600}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 16px;min-width:130px}
.card .v{font-size:24px;font-weight:600}.card .k{color:var(--muted);font-size:12px}
.conflict{color:var(--conflict)}.no-conflict{color:var(--clean)}.inconclusive{color:var(--inc)}.error{color:var(--err)}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap}
.b-conflict{background:var(--conflict)}.b-no-conflict{background:var(--clean)}.b-inconclusive{background:var(--inc)}
.b-error{background:var(--err)}
.finding{border:1px solid var(--line);border-left:4px solid var(--conflict);border-radius:6px;padding:10px 14px;margin:10px 0}
.finding.uncertified{border-left-color:var(--inc)}
.finding .side{margin:6px 0}.finding .lbl{font-weight:600}.muted{color:var(--muted)}
.warn{border:1px solid var(--conflict);background:#ffebe9;border-radius:6px;padding:8px 12px}
svg text{font:11px sans-serif;fill:#1f2328}
.tasks{width:100%}.tasks td.reason{color:var(--muted);min-width:16em}
td,th,li,.side,.why,h3{overflow-wrap:break-word}
th,.lbl,.card .k,.nowrap{white-space:nowrap}
code.name{white-space:normal;word-break:normal;overflow-wrap:normal}
.scroll{overflow-x:auto;max-width:100%}
.side code.stmt,.side code.loc,.why code,td.reason code,pre{overflow-wrap:anywhere}
details summary{cursor:pointer}details[open] summary{color:var(--muted)}
.finding h3{display:flex;flex-wrap:wrap;gap:2px 10px;align-items:baseline}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
"""

_COLORS = {"conflict": "#cf222e", "no-conflict": "#1a7f37", "inconclusive": "#9a6700", "error": "#8250df"}


def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


def _svg_verdict_bar(counts: dict[str, int], errors: int, width: int = 640) -> str:
    parts = [("conflict", counts.get("conflict", 0)), ("no-conflict", counts.get("no-conflict", 0)),
             ("inconclusive", counts.get("inconclusive", 0)), ("error", errors)]
    total = sum(c for _, c in parts) or 1
    x = 0.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="46" role="img" '
           f'aria-label="verdicts">']
    for name, c in parts:
        if c <= 0:
            continue
        w = width * c / total
        out.append(f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="22" fill="{_COLORS[name]}">'
                   f'<title>{_e(name)}: {c}</title></rect>')
        x += w
    lx = 0
    for name, c in parts:
        if c <= 0:
            continue
        out.append(f'<rect x="{lx}" y="30" width="10" height="10" fill="{_COLORS[name]}"/>'
                   f'<text x="{lx + 14}" y="39">{_e(name)} {c}</text>')
        lx += 28 + 7 * len(f"{name} {c}")
    out.append("</svg>")
    return "".join(out)


def _svg_histogram(values: Sequence[float], width: int = 640, height: int = 220) -> str:
    hist = _histogram(values)
    if not hist:
        return '<p class="muted">no tasks</p>'
    left, bottom, top_pad, right = 40, 34, 12, 10
    ph = height - bottom - top_pad
    pw = width - left - right
    top = max(c for _, _, c in hist) or 1
    bw = pw / len(hist)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
           f'aria-label="timing histogram">']
    # y axis ticks
    step = max(1, math.ceil(top / 4))
    for t in range(0, top + 1, step):
        y = top_pad + ph - ph * t / top
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#eaeef2"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{t}</text>')
    for i, (lo, hi, c) in enumerate(hist):
        h = ph * c / top
        x = left + i * bw
        out.append(f'<rect x="{x + 1:.1f}" y="{top_pad + ph - h:.1f}" width="{max(bw - 2, 1):.1f}" height="{h:.1f}" '
                   f'fill="#0969da"><title>{_fmt_s(lo)}-{_fmt_s(hi)} s: {c} task(s)</title></rect>')
        if c:
            out.append(f'<text x="{x + bw / 2:.1f}" y="{top_pad + ph - h - 3:.1f}" text-anchor="middle">{c}</text>')
    every = max(1, math.ceil(len(hist) / 8))
    for i in range(0, len(hist) + 1, every):
        x = left + i * bw
        lo = hist[0][0] + i * (hist[0][1] - hist[0][0])
        out.append(f'<line x1="{x:.1f}" y1="{top_pad + ph}" x2="{x:.1f}" y2="{top_pad + ph + 4}" stroke="#59636e"/>'
                   f'<text x="{x:.1f}" y="{top_pad + ph + 16}" text-anchor="middle">{_fmt_s(lo)}</text>')
    out.append(f'<line x1="{left}" y1="{top_pad + ph}" x2="{width - right}" y2="{top_pad + ph}" stroke="#59636e"/>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 4}" text-anchor="middle">seconds per task</text>')
    out.append("</svg>")
    return "".join(out)


_TICKS = re.compile(r"`([^`\n]+)`")


def _inline(s: str) -> str:
    """Escaped text with `code` spans rendered as <code> (never shown as backticks)."""
    return _TICKS.sub(lambda m: f"<code>{m.group(1)}</code>", _e(s))


_NAME_BREAK = re.compile(r"(?<=[_\-./:])")


def _name_html(name: str, short: int = 24) -> str:
    """A task name that may wrap only after its separators (_ - . / :), never inside a word; a
    name of at most ``short`` characters does not wrap at all."""
    if len(name) <= short:
        return f'<span class="nowrap">{_e(name)}</span>'
    return "<wbr>".join(_e(x) for x in _NAME_BREAK.split(name))


def _path_html(p: str) -> str:
    """A file path: wraps after its separators like a name (not inside a folder or file name,
    unless one piece alone is wider than the page)."""
    return _name_html(p)


def _long(s: str, n: int = 200) -> str:
    """Text with inline code; when longer than ``n`` characters, the start as a summary and the
    whole text one click away (<details>), never cut for good."""
    flat = " ".join(s.split())
    if len(flat) <= n:
        return _inline(flat)
    head = flat[:n - 1]
    if head.count("`") % 2:   # cut inside a code span: end the summary before it
        head = head[:head.rindex("`")].rstrip()
    return f'<details><summary>{_inline(head)}…</summary>{_inline(s)}</details>'


def _svg_bins(bins: Sequence[tuple[str, int]], label: str, width: int = 640, height: int = 200) -> str:
    """A bar chart of labelled counts (inline SVG)."""
    left, bottom, top_pad, right = 40, 40, 14, 10
    ph, pw = height - bottom - top_pad, width - left - right
    top = max((c for _, c in bins), default=0) or 1
    bw = pw / max(1, len(bins))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
           f'aria-label="{_e(label)}">']
    for i, (name, c) in enumerate(bins):
        h = ph * c / top
        x = left + i * bw
        out.append(f'<rect x="{x + 2:.1f}" y="{top_pad + ph - h:.1f}" width="{max(bw - 4, 1):.1f}" height="{h:.1f}" '
                   f'fill="#0969da"><title>{_e(name)}: {c} task(s)</title></rect>'
                   f'<text x="{x + bw / 2:.1f}" y="{top_pad + ph - h - 3:.1f}" text-anchor="middle">{c}</text>'
                   f'<text x="{x + bw / 2:.1f}" y="{top_pad + ph + 16}" text-anchor="middle">{_e(name)}</text>')
    out.append(f'<line x1="{left}" y1="{top_pad + ph}" x2="{width - right}" y2="{top_pad + ph}" stroke="#59636e"/>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 4}" text-anchor="middle">{_e(label)}</text></svg>')
    return "".join(out)


def _badge(r: BatchRow) -> str:
    name = "error" if r.error else r.verdict.value
    return f'<span class="badge b-{name}">{_e(name)}</span>'


def render_html(data: BatchData, report_path: Path | None = None, sort: str = "index") -> str:
    """A self-contained HTML page (inline CSS and SVG; no script, no network asset); links are
    relative to ``report_path``'s folder (default: the batch folder); the task table in the order
    ``sort`` (see :func:`sort_rows`)."""
    base = (report_path.parent if report_path else data.out_dir)
    s = summary(data)
    rows = data.rows
    has_cost = s["cost_usd"] is not None
    H: list[str] = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
                    '<meta name="viewport" content="width=device-width, initial-scale=1">',
                    f'<title>SpecGuard batch report: {_e(data.out_dir.name)}</title>',
                    f'<style>{_CSS}</style></head><body>', '<h1>SpecGuard batch report</h1>', '<ul class="facts">']
    for k, v in _header_facts(data):
        H.append(f'<li><b>{_e(k)}</b> {_e(v)}</li>')
    H.append('</ul>')
    v = s["verdicts"]
    cert = s["verdict_evidence"]["conflict"]["certified"]
    H.append('<div class="cards">')
    for label, val, cls in (("tasks", len(rows), ""), ("conflicts", v["conflict"], "conflict"),
                            ("certified conflicts", cert, "conflict"), ("no conflict", v["no-conflict"], "no-conflict"),
                            ("inconclusive", v["inconclusive"], "inconclusive"), ("errors", s["errors"], "error")):
        H.append(f'<div class="card"><div class="v {cls}">{val}</div><div class="k">{_e(label)}</div></div>')
    if has_cost:
        H.append(f'<div class="card"><div class="v">${s["cost_usd"]:.2f}</div><div class="k">model cost</div></div>')
    H.append('</div>')
    H.append(_svg_verdict_bar(v, s["errors"]))

    H.append('<h2>Verdicts &times; evidence</h2><div class="scroll"><table><tr><th>verdict</th>'
             + "".join(f'<th>{_e(e)}</th>' for e in EVIDENCES) + '<th>total</th></tr>')
    for vv in VERDICTS:
        H.append(f'<tr><td class="{vv}">{_e(vv)}</td>'
                 + "".join(f'<td class="n">{s["verdict_evidence"][vv][e]}</td>' for e in EVIDENCES)
                 + f'<td class="n"><b>{v[vv]}</b></td></tr>')
    H.append('<tr><th>total</th>' + "".join(
        f'<th class="n">{sum(s["verdict_evidence"][vv][e] for vv in VERDICTS)}</th>' for e in EVIDENCES)
        + f'<th class="n">{len(rows) - s["errors"]}</th></tr></table></div>')
    if s["errors"]:
        H.append(f'<p class="muted">{s["errors"]} task(s) could not be checked (errors, not counted in the table '
                 'above); see <a href="#errors">Errors</a>.</p>')

    sc = s["score"]
    if sc:
        H.append('<h2>Scoring against ground-truth labels</h2>')
        H.append(f'<p>{sc["n"]} labelled task(s): {sc["conflicted"]} conflicted, {sc["clean"]} clean control(s)'
                 + (f'; {sc["unlabelled"]} without a label (not scored)' if sc["unlabelled"] else "")
                 + '. Fractions are of the labelled task count.</p>')
        if sc["certified_false_positives"]:
            H.append(f'<p class="warn"><b>{sc["certified_false_positives"]} certified false positive(s)</b>: '
                     'a kernel-checked conflict on a clean control. Please report it.</p>')
        cols, tasks, metric_rows = _score_table(sc)
        H.append('<div class="scroll"><table><tr><th>metric</th>' + "".join(f'<th>{_e(g)}</th>' for g in cols) + '</tr>')
        H.append('<tr><td>tasks</td>' + "".join(f'<td class="n">{n}</td>' for n in tasks) + '</tr>')
        for label, cells in metric_rows:
            H.append(f'<tr><td>{_e(label)}</td>' + "".join(
                f'<td class="n nowrap">{n} <span class="muted">({f})</span></td>' for n, f in cells) + '</tr>')
        H.append('</table></div>')

    for title, findings, empty, intro in _finding_sections(data):
        H.append(f'<h2>{_e(title)} ({len(findings)})</h2>')
        if intro:
            H.append(f'<p class="muted">{_inline(intro)}</p>')
        if not findings:
            H.append(f'<p class="muted">{_inline(empty)}</p>')
        for f in findings:
            r = f.row
            link = (f' &middot; <a href="{_rel_link(data.out_dir / r.bundle, base)}/">bundle</a>'
                    f' &middot; <a href="{_rel_link(data.out_dir / r.bundle / "result.json", base)}">result.json</a>'
                    if r.bundle else "")
            cls = "finding" if r.verdict.value == "conflict" else "finding uncertified"
            H.append(f'<div class="{cls}" id="c-{_e(r.index)}" data-key="{_e(r.key)}"><h3><code class="name">'
                     f'{_name_html(r.task_id)}</code> <span class="muted nowrap">{_e(f.kind)}, evidence '
                     f'{_e(r.evidence.value)}</span><span class="nowrap">{link}</span></h3>')
            if r.key != r.task_id:
                H.append(f'<div class="muted">task <code class="name">{_name_html(r.key)}</code> from '
                         f'{_path_html(str(r.input))}</div>')
            for it in f.items:
                what = "Test" if it["source"] == "test" else "Description"
                text = it["text"].strip()
                H.append(f'<div class="side"><span class="lbl">{what}</span> <code class="loc">'
                         f'{_path_html(_loc_str(it["loc"]))}</code>')
                if text:
                    H.append(f'<pre>{_e(text)}</pre>')
                if not text or not _same_text(it["statement"], text):
                    H.append(f'<span class="muted">read as</span> <code class="stmt">{_e(it["statement"])}</code>')
                H.append('</div>')
            why = _why(f, f.explanation) if r.verdict.value == "conflict" or intro == _NEAR else r.reason
            H.append(f'<div class="muted why">{_long(why, 400)}</div></div>')

    flagged, ta, tb, nt = _flagged(data)
    if flagged:
        H.append(f'<h2>Contradicted and over-specified tests</h2><p class="muted">{ta} contradicted and {tb} '
                 f'over-specified test(s) in {nt} task(s), outside conflict cores: tests the description '
                 'contradicts, or over-specifies: a description (or --spec) statement about the same call allows '
                 'an implementation that fails the test (a witness). Tests that what was formalized does not speak '
                 'about are not counted (finding: not-covered).'
                 + (f' The {len(flagged)} tasks with the most are listed.' if nt > len(flagged) else '') + '</p>')
        H.append('<div class="scroll"><table><tr><th>task</th><th>contradicted</th><th>over-specified</th></tr>')
        for key, a, b in flagged:
            H.append(f'<tr><td><code class="name">{_name_html(key)}</code></td><td class="n">{a}</td><td class="n">{b}</td></tr>')
        H.append('</table></div>')

    errs = [r for r in rows if r.error]
    if errs:
        H.append(f'<h2 id="errors">Errors ({len(errs)})</h2><div class="scroll"><table><tr><th>task</th><th>input</th>'
                 '<th>error</th></tr>')
        for r in errs:
            H.append(f'<tr><td><code class="name">{_name_html(r.key)}</code></td><td>{_path_html(str(r.input))}</td>'
                     f'<td><pre>{_e(r.error or "")}</pre></td></tr>')
        H.append('</table></div>')

    H.append('<h2>Timing</h2>')
    H.append(f'<p class="muted">Per task: mean {s["seconds"]["mean"]:.2f} s, max {s["seconds"]["max"]:.2f} s, '
             f'total {s["seconds"]["total"]:.1f} s.</p>')
    H.append(_svg_histogram([r.seconds for r in rows]))

    cov = s["coverage"]
    if cov["tasks_known"]:
        H.append('<h2 id="coverage">Coverage</h2>')
        H.append(f'<p>Test assertions read: <b>{cov["assertions_read"]} of {cov["assertions_total"]}</b> over '
                 f'{cov["tasks_known"]} task(s); description examples read: {cov["examples_read"]} of '
                 f'{cov["examples_seen"]}; other description statements read: {cov["statements_read"]} of '
                 f'{cov["statements_seen"]}.</p>')
        H.append(_svg_bins([(b, c) for b, c in cov["bins"].items()
                            if c or b not in ("nothing to read", "not known")], "tasks by the share of their test "
                                                                                 "assertions read"))
        H.append('<p class="muted">Sort the task table by it: <code>specguard report DIR --html FILE --sort '
                 'coverage</code> (least read first).</p>')

    has_cov = bool(cov["tasks_known"])
    order = {"index": "input order", "coverage": "least read first", "verdict": "conflicts first",
             "seconds": "slowest first"}[sort]
    H.append(f'<h2 id="tasks">Tasks ({len(rows)}, {_e(order)})</h2><div class="scroll"><table class="tasks"><tr>'
             '<th>#</th><th>task</th><th>verdict</th><th>evidence</th>' + ('<th>read</th>' if has_cov else '')
             + '<th>seconds</th>'
             + ('<th>cost (USD)</th>' if has_cost else '') + '<th>labels</th><th>bundle</th><th>reason</th></tr>')
    for r in sort_rows(rows, sort):
        bl = f'<a href="{_rel_link(data.out_dir / r.bundle, base)}/">bundle</a>' if r.bundle else ''
        cost = (f'<td class="n">{"" if r.cost_usd is None else f"{r.cost_usd:.4f}"}</td>' if has_cost else '')
        H.append(f'<tr><td class="n">{r.index}</td><td><code class="name">{_name_html(r.key)}</code></td><td>{_badge(r)}</td>'
                 f'<td class="nowrap">{_e(r.evidence.value)}</td>'
                 + (f'<td class="n nowrap">{_e(coverage_cell(r))}</td>' if has_cov else '') +
                 f'<td class="n">{r.seconds:.2f}</td>{cost}'
                 f'<td>{_e(_labels_str(r.labels))}</td><td>{bl}</td>'
                 f'<td class="reason">{_long(r.reason, 200)}</td></tr>')
    H.append('</table></div>')
    H.append(f'<p class="muted">Generated by SpecGuard {_e(__version__)} from <code>{_e(RESULTS)}</code>.</p>')
    H.append('</body></html>\n')
    return "\n".join(H)


# =====================================================================================
# SARIF
# =====================================================================================

_PTR_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


class _JsonPositions:
    """Line numbers of values inside a JSON file, by pointer (``tasks[3].modified_tests[18]``),
    from one pass of a tokenizer over the text (depth <= 4).  JSONL pointers ``lineN...`` are
    line N."""

    def __init__(self, text: str, max_depth: int = 4) -> None:
        self.text = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.pos: dict[tuple, int] = {}
        stack: list[list[Any]] = []   # [kind 'o'|'a', key or index, expecting a key]

        def record(at: int) -> None:
            if len(stack) <= max_depth:
                self.pos[tuple(s[1] for s in stack)] = at

        for m in _PTR_TOKEN.finditer(text):
            t = m.group()
            c = t[0]
            if c == '"':
                if stack and stack[-1][0] == "o" and stack[-1][2]:
                    try:
                        stack[-1][1] = json.loads(t)
                    except ValueError:
                        stack[-1][1] = t[1:-1]
                    stack[-1][2] = False
            elif c == "{":
                stack.append(["o", None, True])
            elif c == "[":
                stack.append(["a", 0, False])
                record(m.end())
            elif c in "}]":
                if stack:
                    stack.pop()
            elif c == ":":
                record(m.end())
            elif c == ",":
                if stack:
                    top = stack[-1]
                    if top[0] == "a":
                        top[1] += 1
                        record(m.end())
                    else:
                        top[2] = True

    def line(self, pointer: str) -> int | None:
        m = re.match(r"line(\d+)(?:$|[.\[])", pointer)
        if m:
            return int(m.group(1))
        steps: list[Any] = []
        for name, idx in re.findall(r"([^.\[\]]+)|\[(\d+)\]", pointer):
            steps.append(int(idx) if idx else name)
        at = self.pos.get(tuple(steps))
        if at is None:
            return None
        while at < len(self.text) and self.text[at] in " \t\r\n":
            at += 1
        return bisect.bisect_right(self.newlines, at - 1) + 1


class _Locator:
    """Turns SpecGuard locations into SARIF physical locations (URIs relative to the batch's
    working folder, the ``SRCROOT`` base)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._json: dict[str, _JsonPositions | None] = {}

    def _positions(self, path: Path) -> _JsonPositions | None:
        key = str(path)
        if key not in self._json:
            try:
                self._json[key] = _JsonPositions(path.read_text(encoding="utf-8-sig"))
            except (OSError, UnicodeDecodeError):
                self._json[key] = None
        return self._json[key]

    def artifact(self, file: str, *, repo_relative: bool = False) -> tuple[dict[str, Any], Path]:
        p = Path(file)
        if repo_relative and not p.is_absolute():
            # a path inside the task's repository (a SWE-bench test patch): relative to the repository
            # root, which is where code hosts resolve relative SARIF URIs
            return {"uri": urllib.parse.quote(p.as_posix())}, self.root / p
        absolute = p if p.is_absolute() else (self.root / p)
        try:
            rel = absolute.resolve().relative_to(self.root.resolve()).as_posix() if p.is_absolute() else p.as_posix()
            return {"uri": urllib.parse.quote(rel), "uriBaseId": "SRCROOT"}, absolute
        except ValueError:
            return {"uri": absolute.resolve().as_uri()}, absolute

    def physical(self, loc: Any, *, record_pointer: str | None = None,
                 row: BatchRow | None = None) -> tuple[dict[str, Any], str]:
        """(physicalLocation, a note for the message: the JSON pointer / field, if any)."""
        file, frag = loc.file, None
        if "#" in file:
            head, tail = file.split("#", 1)
            if head.lower().endswith((".json", ".jsonl", ".toml")):
                file, frag = head, tail
        repo_relative = (row is not None and row.input.kind == "swebench" and frag is None
                         and file != row.input.path)
        art, absolute = self.artifact(file, repo_relative=repo_relative)
        phys: dict[str, Any] = {"artifactLocation": art}
        line = None
        note = ""
        is_json = file.lower().endswith((".json", ".jsonl"))
        if loc.pointer and is_json:
            pos = self._positions(absolute)
            line = pos.line(loc.pointer) if pos else None
            note = loc.pointer
        elif frag is not None and is_json:
            field_name = frag.split(".", 1)[1] if "." in frag else frag
            if record_pointer:
                pos = self._positions(absolute)
                ptr = record_pointer if record_pointer.startswith("line") else f"{record_pointer}.{field_name}"
                line = pos.line(ptr) if pos else None
            note = f"{frag}" + (f", line {loc.line} of the text" if loc.line else "")
        elif loc.line:
            line = loc.line
        if line:
            phys["region"] = {"startLine": int(line)}
        return phys, note


_RULES = {
    "conflict-description-vs-test": ("A test contradicts the task description",
                                     "No implementation can satisfy both this test assertion and the task description."),
    "conflict-test-vs-test": ("Two tests contradict each other",
                              "No implementation can pass both test assertions (same input, incompatible expectations)."),
    "conflict-description-internal": ("The description contradicts itself",
                                      "Two statements of the task description cannot both hold."),
    "contradicted-test": ("A test is contradicted by the description",
                          "The description decides this call differently from the test."),
    "overspecified-test": ("A test demands more than the description",
                           "A description (or --spec) statement about this very call allows an implementation "
                           "that fails this test (a witness is given)."),
    "near-conflict": ("A conflict SpecGuard cannot certify",
                      "A conflict under a stated condition (tuple and list arguments treated alike; duplicated "
                      "code independent of test order, state, time and randomness)."),
}


def _rule_list() -> list[dict[str, Any]]:
    out = []
    for rid, (short, full) in _RULES.items():
        level = "error" if rid.startswith("conflict") else "warning"
        out.append({"id": f"specguard/{rid}", "name": "".join(w.title() for w in rid.split("-")),
                    "shortDescription": {"text": short}, "fullDescription": {"text": full},
                    "defaultConfiguration": {"level": level}})
    return out


def render_sarif(data: BatchData, *, overspecified: str = "none") -> dict[str, Any]:
    """The SARIF 2.1.0 log of a batch (``overspecified``: 'warning', 'note' or 'none')."""
    root = Path(data.meta.cwd) if data.meta else Path.cwd()
    locate = _Locator(root)
    rules = _rule_list()
    index = {r["id"]: i for i, r in enumerate(rules)}
    results: list[dict[str, Any]] = []

    def fingerprint(*parts: str) -> str:
        import hashlib
        return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]

    for f in _conflicts(data):
        r = f.row
        if r.verdict.value != "conflict":
            continue
        items = sorted(f.items, key=lambda it: 0 if it["source"] == "test" else 1)
        main, others = items[0], items[1:]
        rid = f"specguard/conflict-{f.kind}"
        phys, note = locate.physical(main["loc"], record_pointer=r.input.pointer, row=r)
        loc_entry: dict[str, Any] = {"physicalLocation": phys,
                                     "message": {"text": f"{main['source']} {main['id']}: {main['statement']}"}}
        related = []
        for k, o in enumerate(others, 1):
            ph, nt = locate.physical(o["loc"], record_pointer=r.input.pointer, row=r)
            text = f"{o['source']} {o['id']}"
            if nt:
                text += f" ({nt})"
            text += f": {o['statement']}"
            if o["text"] and o["source"] == "description":
                text += f" - {_one_line(o['text'], 200)}"
            related.append({"id": k, "physicalLocation": ph, "message": {"text": text}})
        where = f" [{note}]" if note else ""
        msg = f"{r.task_id}: {f.kind} conflict ({r.evidence.value}){where}: {f.explanation.rstrip('.')}."
        if related:
            msg += " See " + ", ".join(f"[{o['source']} {o['id']}]({k})" for k, o in enumerate(others, 1)) + "."
        res: dict[str, Any] = {
            "ruleId": rid, "level": "error", "message": {"text": msg},
            "locations": [loc_entry], "relatedLocations": related,
            "partialFingerprints": {"specguardConflict/v1": fingerprint(r.task_id, f.kind, *sorted(
                it["statement"] for it in f.items))},
            "properties": {"task": r.key, "task_id": r.task_id, "evidence": r.evidence.value,
                           "bundle": r.bundle, "input": str(r.input)}}
        if rid in index:
            res["ruleIndex"] = index[rid]
        if not related:
            del res["relatedLocations"]
        results.append(res)

    for r, t, kind in _test_findings(data):
        if kind == "over-specified" and overspecified == "none":
            continue
        rid = "specguard/contradicted-test" if kind == "contradicted" else "specguard/overspecified-test"
        level = "warning" if kind == "contradicted" else overspecified
        phys, note = locate.physical(t.loc, record_pointer=r.input.pointer, row=r)
        where = f" [{note}]" if note else ""
        if kind == "contradicted":
            msg = f"{r.task_id}: test {t.id}{where} `{t.statement}` is contradicted by the description" + \
                  (f" ({t.by})" if t.by else "") + "."
        else:
            msg = (f"{r.task_id}: test {t.id}{where} `{t.statement}` is over-specified: the description allows an "
                   f"implementation that {t.witness}.")
        results.append({"ruleId": rid, "ruleIndex": index[rid], "level": level, "message": {"text": msg},
                        "locations": [{"physicalLocation": phys}],
                        "partialFingerprints": {"specguardTest/v1": fingerprint(r.task_id, kind, t.statement)},
                        "properties": {"task": r.key, "task_id": r.task_id, "bundle": r.bundle,
                                       "witness": t.witness, "by": t.by}})

    for f in _near_conflicts(data):
        r = f.row
        main, others = f.items[0], f.items[1:]
        phys, note = locate.physical(main["loc"], record_pointer=r.input.pointer, row=r)
        related = []
        for k, o in enumerate(others, 1):
            ph, _ = locate.physical(o["loc"], record_pointer=r.input.pointer, row=r)
            related.append({"id": k, "physicalLocation": ph, "message": {"text": f"{o['source']}: {o['statement']}"}})
        rid = "specguard/near-conflict"
        res = {"ruleId": rid, "ruleIndex": index[rid], "level": "warning",
               "message": {"text": f"{r.task_id}: {f.kind} near-conflict (not certified): {f.explanation}"},
               "locations": [{"physicalLocation": phys}], "relatedLocations": related,
               "partialFingerprints": {"specguardNear/v1": fingerprint(r.task_id, f.kind, *sorted(
                   it["statement"] for it in f.items))},
               "properties": {"task": r.key, "task_id": r.task_id, "bundle": r.bundle}}
        if not related:
            del res["relatedLocations"]
        results.append(res)

    notes = [{"level": "error", "message": {"text": f"{r.key}: {_one_line(r.error or '', 400)}"},
              "descriptor": {"id": "specguard/task-error"}} for r in data.rows if r.error]
    root_uri = root.resolve().as_uri().rstrip("/") + "/"
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "SpecGuard", "version": __version__, "semanticVersion": __version__,
                                "rules": rules}},
            "originalUriBaseIds": {"SRCROOT": {"uri": root_uri}},
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}],
            "results": results,
            "properties": {"tasks": len(data.rows),
                           "verdicts": summary(data)["verdicts"]},
        }],
    }


# =====================================================================================
# writing
# =====================================================================================

def write_sarif(out_dir: str | Path, path: str | Path | None = None, *, overspecified: str = "none") -> Path:
    data = load_batch(out_dir)
    p = Path(path) if path else Path(out_dir) / SARIF
    atomic_write(p, json.dumps(render_sarif(data, overspecified=overspecified), indent=2, ensure_ascii=False) + "\n")
    return p


def write_report(out_dir: str | Path, *, md: str | Path | None = None, html_path: str | Path | None = None,
                 sarif: str | Path | None = None, overspecified: str = "none", sort: str = "index") -> list[Path]:
    """Write the requested reports atomically (all three to the batch folder when none is given:
    ``report.md``, ``report.html`` and ``results.sarif``)."""
    if sort not in SORTS:
        raise ReportError(f"unknown sort order {sort!r}", hint=f"one of {', '.join(SORTS)}")
    data = load_batch(out_dir)
    out = Path(out_dir)
    if md is None and html_path is None and sarif is None:
        md, html_path, sarif = out / "report.md", out / "report.html", out / SARIF
    written = []
    if md is not None:
        p = Path(md)
        atomic_write(p, render_markdown(data, p, sort))
        written.append(p)
    if html_path is not None:
        p = Path(html_path)
        atomic_write(p, render_html(data, p, sort))
        written.append(p)
    if sarif is not None:
        p = Path(sarif)
        atomic_write(p, json.dumps(render_sarif(data, overspecified=overspecified), indent=2,
                                   ensure_ascii=False) + "\n")
        written.append(p)
    return written


__all__ = ["BatchData", "ReportError", "load_batch", "ground_truth", "score", "summary", "render_markdown",
           "render_html", "render_sarif", "write_report", "write_sarif"]
