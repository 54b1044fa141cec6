"""Near-conflicts between tests the AST path cannot formalize (reported, never certified)."""

import pytest

from specguard import load
from specguard.check import check_task
from specguard import models
from specguard.formalize.twins import find_twins

DUP = '''from pkg import Widget


def test_size():
    w = Widget(3)
    assert w.size() == 9


def test_size_again():
    w = Widget(3)
    assert w.size() == {other}
'''


def _twins(text, **kw):
    return find_twins([models.TestSource(kind="python", path="test_w.py", text=text, **kw)])


def test_duplicate_tests_with_another_expected_value():
    [t] = _twins(DUP.format(other="10"))
    assert t.kind == "duplicate tests" and (t.a.line, t.b.line) == (6, 11)
    assert t.expr == "w.size()" and (t.a_value, t.b_value) == ("9", "10")
    assert "not certified" in t.describe()


@pytest.mark.parametrize("other", ["9", "9.0", "True * 9"])
def test_equal_values_are_no_twins(other):
    assert _twins(DUP.format(other=other)) == []


def test_other_differences_are_no_twins():
    text = DUP.format(other="10").replace("    w = Widget(3)\n    assert w.size() == 10", "    w = Widget(4)\n"
                                                                                        "    assert w.size() == 10")
    assert _twins(text) == []


def test_repeated_assertion_and_unittest_form():
    text = ("import unittest\nfrom pkg import g\n\n\nclass TestG(unittest.TestCase):\n    def test_g(self):\n"
            "        self.assertEqual(g.value(), 'a')\n        self.assertEqual('b', g.value())\n")
    [t] = _twins(text)
    assert t.kind == "repeated assertion" and (t.a_value, t.b_value) == ("'a'", "'b'")
    # statements in between: no finding
    assert _twins(text.replace("        self.assertEqual('b'", "        g.reset()\n        self.assertEqual('b'")) == []


def test_only_selected_tests_count():
    text = DUP.format(other="10")
    assert _twins(text, only_tests=("test_w.py::test_size",)) == []
    assert len(_twins(text, only_tests=("test_w.py::test_size", "test_w.py::test_size_again"))) == 1


@pytest.mark.lean
def test_check_reports_twins_as_inconclusive(tmp_path):
    (tmp_path / "desc.md").write_text("A widget of side n has size n squared.\n")
    (tmp_path / "test_w.py").write_text(DUP.format(other="10"))
    task = load.load_from_parts(str(tmp_path / "desc.md"), [str(tmp_path / "test_w.py")], None)
    r = check_task(task).result
    assert r.verdict.value == "inconclusive" and r.evidence.value == "none"
    assert r.reason.startswith("duplicate tests at") and "not certified" in r.reason
    assert not r.certificate.accepted or "Conflict" not in r.certificate.claims


@pytest.mark.lean
def test_batch_report_and_sarif_show_near_conflicts(tmp_path):
    import json
    from specguard.outputs.batch import run_batch
    from specguard.outputs.report import write_report
    folder = tmp_path / "tasks" / "w"
    folder.mkdir(parents=True)
    (folder / "description.md").write_text("A widget of side n has size n squared.\n")
    (folder / "test_w.py").write_text(DUP.format(other="10"))
    (folder / "task.toml").write_text('id = "w"\ndescription = "description.md"\ntests = ["test_w.py"]\n')
    run_batch([str(tmp_path / "tasks")], tmp_path / "out", workers=1)
    md, html, sarif = tmp_path / "r.md", tmp_path / "r.html", tmp_path / "r.sarif"
    write_report(tmp_path / "out", md=md, html_path=html, sarif=sarif)
    assert "## Near-conflicts, not certified (1)" in md.read_text() and "w.size() == 10" in md.read_text()
    assert "Near-conflicts, not certified" in html.read_text()
    [res] = [x for x in json.loads(sarif.read_text())["runs"][0]["results"] if x["ruleId"] == "specguard/near-conflict"]
    assert res["level"] == "warning" and res["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
