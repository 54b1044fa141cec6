"""#14.7: the HTML report of a small real batch, laid out by a real browser (headless Chromium).

The report itself has no script; the test appends a measuring script to a copy of the page, lets
Chromium lay it out at a wide and a narrow window, and reads the measurements back from the dumped
DOM: no element overflows its container, badges / names / labels sit on one line, every conflict
has its card, inline code is rendered (no backticks), long reasons are kept whole in <details>.
A screenshot of the page is kept under tmp_path (its path is printed).
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
pytestmark = [pytest.mark.lean]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        p = shutil.which(name)
        if p:
            return p
    return None


CHROMIUM = _chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                    "(apt-get install -y chromium; .ci/run installs it)")

# runs at the end of <body>, after layout; writes its findings into <pre id="sg-measure">
MEASURE = r"""
<script>
(function () {
  const out = {overflow: [], wrapped: [], cards: [], certified_cards: [], backticks: 0, details: 0,
               details_full: 0, page_overflow: 0};
  const de = document.documentElement, body = document.body;
  out.page_overflow = de.scrollWidth - de.clientWidth;
  const bs = getComputedStyle(body);
  const bodyRight = body.getBoundingClientRect().right - parseFloat(bs.paddingRight);
  function clipper(el) {
    for (let p = el.parentElement; p && p !== body; p = p.parentElement) {
      if (["auto", "scroll", "hidden"].includes(getComputedStyle(p).overflowX)) return p;
    }
    return null;
  }
  function name(el) {
    return el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className : "")
      + ": " + (el.textContent || "").trim().slice(0, 60);
  }
  for (const el of body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    if (el.getClientRects().length === 0) continue;            // hidden (a closed <details>)
    const c = clipper(el);
    const right = c ? c.getBoundingClientRect().right : bodyRight;
    const rect = el.getBoundingClientRect();
    if (!c && rect.right > right + 1) out.overflow.push(name(el) + " right " + rect.right + " > " + right);
    const st = getComputedStyle(el);
    if (st.overflowX === "visible" && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1
        && st.display !== "inline") out.overflow.push(name(el) + " content " + el.scrollWidth + " > " + el.clientWidth);
  }
  // a badge, label or header is one line; a name may break only between its pieces (<wbr> after
  // a separator), so each of its text nodes is one line: nothing wraps inside a word
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const el = t.parentElement;
    if (!el || !el.closest(".badge, code.name, .lbl, .card .k, th") || !t.textContent.trim()) continue;
    if (el.getClientRects().length === 0) continue;
    const r = document.createRange(); r.selectNodeContents(t);
    const tops = [];
    for (const q of r.getClientRects()) {
      if (q.width > 0 && !tops.some(x => Math.abs(x - q.top) < 4)) tops.push(q.top);
    }
    if (tops.length > 1) out.wrapped.push(name(el) + " [" + t.textContent.slice(0, 40) + "]");
  }
  for (const el of body.querySelectorAll(".finding")) {
    out.cards.push(el.dataset.key);
    if (!el.classList.contains("uncertified")) out.certified_cards.push(el.dataset.key);
  }
  const copy = body.cloneNode(true);
  for (const p of copy.querySelectorAll("pre, script")) p.remove();
  out.backticks = (copy.textContent.match(/`/g) || []).length;
  out.details = body.querySelectorAll("details").length;
  for (const d of body.querySelectorAll("details")) {
    if (d.textContent.length > d.querySelector("summary").textContent.length) out.details_full += 1;
  }
  const pre = document.createElement("pre"); pre.id = "sg-measure"; pre.textContent = JSON.stringify(out);
  body.appendChild(pre);
})();
</script>
"""


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env)


def chromium(*args, timeout=120):
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--hide-scrollbars", "--no-first-run", "--disable-extensions", "--mute-audio"]
    return subprocess.run(base + list(args), capture_output=True, text=True, timeout=timeout)


def measure(page: Path, width: int, tmp: Path) -> dict:
    probe = tmp / f"probe-{width}.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    p = chromium(f"--user-data-dir={tmp / f'profile-{width}'}", f"--window-size={width},1000",
                 "--virtual-time-budget=3000", "--run-all-compositor-stages-before-draw", "--dump-dom",
                 probe.as_uri())
    m = re.search(r'<pre id="sg-measure">(.*?)</pre>', p.stdout, re.S)
    assert m, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    import html
    return json.loads(html.unescape(m.group(1)))


LONG = "a_task_folder_with_a_very_long_name_that_must_never_wrap_in_the_middle_of_a_word_0123456789"


@pytest.fixture(scope="module")
def batch_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    tasks = tmp / "tasks"
    shutil.copytree(EX / "conflict", tasks / LONG)
    shutil.copytree(EX / "clean", tasks / "b_clean")
    shutil.copytree(EX / "inconclusive", tasks / "c_inconclusive")
    (tasks / "d_broken").mkdir()
    (tasks / "d_broken" / "task.toml").write_text("not = = toml\n")
    out = tmp / "out"
    p = run("batch", tasks, "--out", out, "--workers", "2", "-q")
    assert p.returncode == 1, p.stdout + p.stderr
    # the coverage a check records (Result.coverage, copied into the row) is replaced by known
    # numbers, so the report's coverage parts are tested against fixed counts
    res = out / "results.jsonl"
    rows = [json.loads(x) for x in res.read_text().splitlines() if x.strip()]
    given = {LONG: (3, 3), "b_clean": (5, 5), "c_inconclusive": (2, 3)}
    for r in rows:
        if r["key"] in given:
            read, total = given[r["key"]]
            r["coverage"] = {"assertions_total": total, "assertions_read": read, "examples_seen": 1,
                             "examples_read": 1, "statements_seen": 0, "statements_read": 0}
    res.write_text("".join(json.dumps(r) + "\n" for r in rows))
    page = tmp / "report" / "report.html"
    p = run("report", out, "--html", page, "--out", tmp / "report" / "report.md", "--sort", "coverage")
    assert p.returncode == 0, p.stderr
    return tmp, page, rows


def test_report_html_is_self_contained_and_renders_code(batch_report):
    """#14.7: no script or network asset in the report itself; inline code as <code>, no backticks
    outside code blocks; the reason of the inconclusive task whole in <details>."""
    _tmp, page, rows = batch_report
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "https://" not in text
    assert "<code>datetime.date.today().isoformat()</code>" in text     # the unread argument, as code
    assert "<details><summary>" in text
    unsupported = next(r for r in rows if r["key"] == "c_inconclusive")["reason"]
    assert " ".join(unsupported.split())[-40:].replace("`", "") in re.sub(r"</?code>", "", text)
    assert 'id="coverage"' in text and 'aria-label="tasks by the share of their test assertions read"' in text


def test_report_coverage_distribution_and_sort(batch_report):
    """#14.7 / #14.1: the report shows the coverage distribution over the batch and sorts the task
    table by it (least read first, unknown last); error rows are errors, not inconclusive."""
    tmp, page, rows = batch_report
    md = (tmp / "report" / "report.md").read_text(encoding="utf-8")
    assert "Test assertions read: 10 of 11 over 3 task(s)" in md
    assert "| 50-74% | 1 |" in md and "| 75-99% | 0 |" in md and "| all read | 2 |" in md and "| none read | 0 |" in md
    order = [line.split("|")[2].strip() for line in md.split("## Tasks", 1)[1].splitlines()
             if line.startswith("| ") and line.split("|")[1].strip().isdigit()]
    assert order == ["c_inconclusive", LONG, "b_clean", "d_broken"], order
    assert "| d_broken | error |" in md and "| c_inconclusive | inconclusive | none | 2/3 |" in md
    p = run("report", tmp / "out", "--json")
    s = json.loads(p.stdout)
    assert s["errors"] == 1 and s["verdicts"]["inconclusive"] == 1
    assert s["coverage"]["assertions_read"] == 10 and s["coverage"]["bins"]["not known"] == 1


@needs_chromium
@pytest.mark.parametrize("width", [1280, 720])
def test_report_layout_in_chromium(batch_report, width):
    """#14.7: laid out by Chromium, nothing overflows, names/badges/labels do not wrap, every
    conflict has its card, no stray backticks, long reasons open whole."""
    tmp, page, rows = batch_report
    m = measure(page, width, tmp)
    assert m["page_overflow"] <= 0, m
    assert m["overflow"] == [], m["overflow"]
    assert m["wrapped"] == [], m["wrapped"]
    conflicts = sorted(r["key"] for r in rows if r["verdict"] == "conflict" and not r["error"])
    assert conflicts == [LONG]
    assert sorted(m["certified_cards"]) == conflicts and set(conflicts) <= set(m["cards"])
    assert m["backticks"] == 0, m
    assert m["details"] >= 1 and m["details_full"] == m["details"]


@needs_chromium
def test_report_screenshot_artifact(batch_report):
    """#14.7: a screenshot of the report, kept as a test artifact."""
    tmp, page, _rows = batch_report
    shot = tmp / "report.png"
    p = chromium(f"--user-data-dir={tmp / 'profile-shot'}", "--window-size=1280,2400", "--virtual-time-budget=3000",
                 "--run-all-compositor-stages-before-draw", f"--screenshot={shot}", page.as_uri())
    assert shot.is_file() and shot.stat().st_size > 10_000, (p.returncode, p.stderr[-2000:])
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"report screenshot: {shot}")
