"""The LLM test agent: literal demands for the assertions the AST path left unsupported.

Information barrier: :func:`propose` sees the test files and the unsupported assertions, never the
task's description (its signature has no place for it), as the rule-based test formalizer.

The model answers with JSON proposals ``{file, lines, call, returns | raises}``.  The model is
trusted to read the cited lines faithfully, never to supply values: :func:`accept` (deterministic,
re-run by ``specguard verify --inputs``) keeps a proposal only when

* the cited file is one of the task's Python test files, in which the entry point's name denotes the
  function under test (imported from one module, never rebound: :mod:`specguard.python.bindings`), and no
  cited line lies in a function binding the name itself; every cited line lies in a test pytest
  runs (``test*``, ``Test*``, the final binding of its name; with ``only_tests``, a selected one), in
  a helper function holding an unsupported assertion that such a test calls by name, or in other
  top-level code holding one; and in none of: a test marked skip/xfail (or
  calling ``pytest.skip``/``xfail``/``fail``), an ``if``/``while``/``try``/``match``, a loop that
  may break or return, a ``with`` other than a raises/warns block (and, for ``returns``, not inside
  one), or a line the AST path rejected for its context;
* not every cited line is already read by the AST path (a model re-reading a formalized assertion
  could only add a misreading);
* the call is ``ENTRY(args...)`` with literal arguments, and the expectation is a literal
  (``returns``) or an exception class name (``raises``);
* **every literal appears in the cited lines' text**, token for token (whitespace and string quote
  style aside), as a whole operand (``5`` is not read out of ``n - 5``) and each at its own
  occurrence (``f(0) == 0`` is not read out of ``check(0, 1)``), as do the function's name and the
  exception's name;
* **all literals come from one run of one assertion**: one statement, and at most one row of each
  table the test iterates (a ``parametrize`` list, also through a module constant, or a loop's literal
  iterable); the rows of a table that is not iterated (a dict display, a list of tuples) are
  statements of their own.  ``count_vowels("hello") == 0`` is not read out of
  ``[("hello", 2), ("xyz", 0)]``; a literal outside every statement and row is not read at all;
* the cited lines hold nothing that makes a plain reading wrong: for ``returns``, no negation
  (``!=``, ``not``, ``assertNot…``, ``assertFalse``), no inequality, membership or approximate
  comparison, no ``raises``, and no transformation of the result (``sorted(…)``, ``len(…)``, an index
  or attribute after the call); for ``raises``, a ``raises``/``assertRaises`` marker.

Everything else is dropped with a reason.  Accepted demands are *added* to the AST path's: the
unsupported assertions stay reported, so a task is never cleared on the model's reading, only a
conflict can be found through it.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterator, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from specguard.python import literals
from specguard.model import llm
from specguard.python.bindings import Symbols, resolve_entry, scope_bindings
from specguard.errors import ModelBudgetExceeded, ModelError, NotInRecording
from specguard.model.llm import Client
from specguard.models import (Call, Demand, Expect, ExpectKind, Loc, Task, TestFormalization, TestSource,
                              Unsupported)
from specguard.formalize.twins import selected

FORMAT = "specguard-model-demands/1"
FILE_NAME = "model-demands.json"
_MAX_TEXT = 40_000
_MAX_LINES = 12
_MAX_PROPOSALS = 200


class Proposal(BaseModel):
    """One demand as the model proposed it (the raw claim, before SpecGuard's checks)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    lines: tuple[int, ...] = Field(min_length=1)
    call: str
    returns: str | None = None
    raises: str | None = None


class ModelDemands(BaseModel):
    """``model-demands.json``: what the test agent proposed; :func:`accept` re-derives the demands."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["specguard-model-demands/1"] = FORMAT
    model: str
    proposals: tuple[Proposal, ...] = ()

    def text(self) -> str:
        return self.model_dump_json(indent=2) + "\n"


@dataclass
class Accepted:
    demands: list[Demand] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)     # "proposal N (file:line): reason"


def build_prompt(sources: Sequence[TestSource], unsupported: Sequence[Unsupported], entry_point: str) -> str:
    listed = "\n".join(f"- {u.loc}: {u.text.strip()[:200]}  ({u.reason})" for u in unsupported[:60])
    files = []
    budget = _MAX_TEXT
    for s in sources:
        if s.kind != "python" or not s.text or not any(u.loc.file == s.path for u in unsupported):
            continue
        numbered = "\n".join(f"{i:5d}  {line}" for i, line in enumerate(s.text.splitlines(), start=1))
        piece = numbered[:budget]
        budget -= len(piece)
        files.append(f"<<<FILE {s.path}\n{piece}\nFILE>>>")
        if budget <= 0:
            break
    return llm.prompt("test_agent", entry_point=entry_point, unsupported=listed, tests="\n".join(files))


def parse_reply(reply: str) -> tuple[list[Proposal], str | None]:
    """The proposals in ``reply`` and, when it could not be read, why."""
    m = re.search(r"\{.*\}", reply or "", re.S)
    if m is None:
        return [], f"the reply is not a JSON object: {(reply or '')[:120]!r}"
    try:
        data = json.loads(m.group(0))
    except ValueError as e:
        return [], f"the reply is not valid JSON: {e}"
    raw = data.get("demands") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return [], "the reply has no \"demands\" list"
    out: list[Proposal] = []
    for i, d in enumerate(raw[:_MAX_PROPOSALS], start=1):
        try:
            if isinstance(d, dict) and isinstance(d.get("lines"), int):
                d = {**d, "lines": [d["lines"]]}
            out.append(Proposal.model_validate(d))
        except ValidationError:
            continue   # counted by the caller as not a proposal
    return out, None


@dataclass
class Proposed:
    demands: ModelDemands | None = None
    error: str | None = None        # why there are no proposals
    stopped: str | None = None      # a budget cap or provider failure: the model path stops


def propose(sources: Sequence[TestSource], unsupported: Sequence[Unsupported], entry_point: str,
            client: Client) -> Proposed:
    """Ask the model to read the unsupported assertions of ``sources`` (never the description)."""
    prompt = build_prompt(sources, unsupported, entry_point)
    try:
        reply, _ = client([{"role": "user", "content": prompt}], sample=0)
    except NotInRecording as e:            # a replay's miss: no proposals, the model path goes on
        return Proposed(error=e.message)
    except (ModelBudgetExceeded, ModelError) as e:
        return Proposed(error=e.message, stopped=e.message)
    props, why = parse_reply(reply)
    if why:
        return Proposed(error=why)
    return Proposed(demands=ModelDemands(model=client.settings.model, proposals=tuple(props)))


# -- the deterministic guard ---------------------------------------------------------------------

_NEGATIONS = {"not", "assertFalse", "raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
              "approx", "isclose", "allclose", "assertAlmostEqual", "assertAlmostEquals", "assertIn",
              "assertGreater", "assertLess", "assertGreaterEqual", "assertLessEqual", "assertCountEqual",
              "assertItemsEqual", "assertIsInstance", "assertRegex", "assertTrue", "sorted", "set", "frozenset",
              "len", "str", "repr", "int", "float", "round", "abs", "sum", "list", "tuple", "dict", "min", "max",
              "any", "all", "map", "filter", "reversed", "bool", "type", "isinstance", "in", "or", "and", "if",
              "else", "lambda", "for", "while"}
_NEGATION_OPS = {"!=", "<", ">", "<=", ">=", "~", "%"}
_RAISES = {"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"}


def _tokens(text: str) -> list[tuple[str, object]]:
    """Comparable tokens of ``text``: strings by value, numbers by value and type, names and
    operators by text; layout and comments ignored.  Tolerates unbalanced fragments."""
    return _tokens_at(text.splitlines())[0]


_Pos = tuple[int, int, int, int]   # (first line, first column, last line, end column), 1-based lines


def _tokens_at(lines: list[str], numbers: Sequence[int] | None = None) -> tuple[list[tuple[str, object]], list[_Pos]]:
    """:func:`_tokens` of ``lines`` (file lines ``numbers``, default 1, 2, ...) and where each
    token stands in the file (line, character column)."""
    numbers = list(numbers) if numbers is not None else list(range(1, len(lines) + 1))
    indents = [len(line) - len(line.lstrip()) for line in lines]
    text = "\n".join(line.lstrip() for line in lines)
    out: list[tuple[str, object]] = []
    pos: list[_Pos] = []

    def at(t: tokenize.TokenInfo) -> _Pos:
        (r1, c1), (r2, c2) = t.start, t.end
        r1, r2 = min(r1, len(numbers)), min(r2, len(numbers))
        return (numbers[r1 - 1], c1 + indents[r1 - 1], numbers[r2 - 1], c2 + indents[r2 - 1])

    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type in (tokenize.STRING, tokenize.NUMBER):
                try:
                    v = ast.literal_eval(t.string)
                    out.append(("s" if t.type == tokenize.STRING else "n", (type(v).__name__, v)))
                except (ValueError, SyntaxError):
                    out.append(("raw", t.string))
            elif t.type in (tokenize.NAME, tokenize.OP):
                out.append(("t", t.string))
            elif t.type == tokenize.NEWLINE:
                out.append(("nl", None))
            elif t.type == tokenize.ERRORTOKEN and t.string.strip():
                out.append(("raw", t.string))
            else:
                continue
            pos.append(at(t) if lines else (0, 0, 0, 0))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass   # an unbalanced fragment: the tokens read so far count
    return out, pos


def _contains(hay: list, needle: list) -> bool:
    needle = [t for t in needle if t[0] != "nl"]
    n = len(needle)
    if n == 0:
        return True
    return any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


_OPEN = {("nl", None)} | {("t", x) for x in ("(", "[", "{", ",", "==", "=", ":", "assert", "return")}
_CLOSE = {("nl", None)} | {("t", x) for x in (")", "]", "}", ",", "==", ":")}


def _operand_spans(hay: list, needle: list) -> list[tuple[int, int]]:
    """Where ``needle`` stands in ``hay`` as a whole operand: delimited by brackets, commas,
    ``==``, ``=``, ``assert`` or a line end, so ``5`` is not read out of ``n - 5`` or ``5 * k``."""
    needle = [t for t in needle if t[0] != "nl"]
    n = len(needle)
    if n == 0:
        return []
    return [(i, i + n) for i in range(len(hay) - n + 1)
            if hay[i:i + n] == needle and (i == 0 or hay[i - 1] in _OPEN)
            and (i + n == len(hay) or hay[i + n] in _CLOSE)]


def _distinct(options: list[list[tuple[tuple[int, int], frozenset[tuple[int, int]]]]], budget: int = 20_000) -> bool:
    """One span per literal, no two overlapping (each literal of a demand is its own occurrence
    in the lines: ``f(0) == 0`` is not read out of ``check(0, 1)``), and all from one run: one
    statement and at most one row of each table (each span carries its (family, key) places)."""
    order = sorted(range(len(options)), key=lambda i: len(options[i]))
    chosen: list[tuple[int, int]] = []
    keys: dict[int, list[int]] = {}
    steps = 0

    def fits(places: frozenset[tuple[int, int]]) -> bool:
        return all(not keys.get(f) or keys[f][-1] == k for f, k in places)

    def go(k: int) -> bool:
        nonlocal steps
        if k == len(order):
            return True
        for sp, places in options[order[k]][:64]:
            steps += 1
            if steps > budget:
                return False
            if all(sp[1] <= c[0] or c[1] <= sp[0] for c in chosen) and fits(places):
                chosen.append(sp)
                for f, key in places:
                    keys.setdefault(f, []).append(key)
                if go(k + 1):
                    return True
                chosen.pop()
                for f, _ in places:
                    keys[f].pop()
        return False
    return go(0)


# -- where the literals of one demand may come from together (issue 11, item 4) --------------------
# One demand is one run of one assertion: its literals come from one statement, and from at most one
# row of each table the test iterates (a parametrize list, a loop's literal iterable, a table of rows
# such as a module constant ``CASES = [(...), (...)]``, the entries of a dict display).  A literal
# inside a table's row belongs to that row (not to the statement around the table).

_DISPLAYS = (ast.List, ast.Tuple, ast.Set)
_ROWS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Call)


@dataclass(frozen=True)
class _Unit:
    family: int            # 0: statements (and rows of tables that are not iterated); else the id of a table
    key: int               # which statement or row (the id of its node)
    start: tuple[int, int]  # (line, character column)
    end: tuple[int, int]

    def holds(self, p: _Pos) -> bool:
        return self.start <= (p[0], p[1]) and (p[2], p[3]) <= self.end


def _char_col(lines: list[str], line: int, col: int) -> int:
    """An AST column (UTF-8 bytes) as a character column."""
    text = lines[line - 1] if 1 <= line <= len(lines) else ""
    return len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))


def _span_of(lines: list[str], a: ast.AST, b: ast.AST | None = None) -> tuple[tuple[int, int], tuple[int, int]]:
    b = b or a
    return ((a.lineno, _char_col(lines, a.lineno, a.col_offset)),
            (b.end_lineno, _char_col(lines, b.end_lineno, b.end_col_offset)))


_Range = tuple[tuple[int, int], tuple[int, int], str]
_DATA_METHODS = frozenset("get index count pop setdefault format format_map join split rsplit replace find rfind "
                          "strip lstrip rstrip startswith endswith keys values items copy upper lower".split())


def _not_compared(tree: ast.Module, lines: list[str]) -> list[_Range]:
    """Where a literal is not a value an assertion compares, whatever tokens surround it: the
    message of an ``assert`` or of an assertion method (``assertEqual(a, b, msg)``), an asserted
    tuple (always true), a container that is indexed or whose attribute is used (``{5: 1}[5]``,
    ``(5, 1)[1]``, ``{5: 1}.get(5)``) and an index.  (start, end, why), character columns."""
    out: list[_Range] = []

    def add(node: ast.AST, why: str) -> None:
        if getattr(node, "end_lineno", None) is not None:
            a, b = _span_of(lines, node)
            out.append((a, b, why))

    for n in ast.walk(tree):
        if isinstance(n, ast.Assert):
            if n.msg is not None:
                add(n.msg, "a literal is in the message of an assert, not in what it checks")
            if isinstance(n.test, ast.Tuple):
                add(n.test, "the assert checks a tuple (always true), not the call's result")
        elif isinstance(n, ast.Call) and _call_name(n).startswith(("assert", "fail")):
            for a in n.args[2:]:
                add(a, "a literal is in an assertion method's message (or later argument), not in what it compares")
            for k in n.keywords:
                if k.arg == "msg":
                    add(k.value, "a literal is in an assertion method's message, not in what it compares")
        elif isinstance(n, ast.Subscript):
            add(n.value, "a literal is in a container that is indexed, not itself the compared value")
            add(n.slice, "a literal is an index, not the compared value")
        elif isinstance(n, ast.Attribute) and literals.dotted_name(n.value) is None:
            add(n.value, "a literal is in a value whose attribute is used, not itself the compared value")
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                (literals.dotted_name(n.func.value) is None or n.func.attr in _DATA_METHODS):
            add(n, "a literal is an argument of a method of some data (`{5: 1}.get(5)`), not the compared value")
    return out


def _outside(span: list[tuple[int, int]], pos: list[_Pos], aside: list[_Range]) -> tuple[list[tuple[int, int]], str]:
    """The occurrences in ``span`` (token index ranges) of a literal that lie in none of the
    ``aside`` ranges, and why the first one left out is not usable."""
    rest, why = [], ""
    for i, j in span:
        a, b = (pos[i][0], pos[i][1]), (pos[j - 1][2], pos[j - 1][3])
        hit = next((w for s0, e0, w in aside if s0 <= a and b <= e0), None)
        if hit is None:
            rest.append((i, j))
        else:
            why = why or hit
    return rest, why


def _tables(tree: ast.Module) -> list[tuple[ast.expr, bool]]:
    """Displays whose elements are rows of separate runs, and whether each is iterated (a
    parametrize table, directly or through a module constant, or a loop's iterable).  The rows
    of a table that is not iterated (a dict display, a list of tuples) count as statements of
    their own: they combine with no other statement.  A loop over a call of several displays
    (``zip([...], [...])``) is one table whose row ``i`` is element ``i`` of every display (see
    :func:`_zipped`)."""
    out: list[tuple[ast.expr, bool]] = []
    nested: set[int] = set()
    constants: dict[str, ast.expr] = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            constants[n.targets[0].id] = n.value
    for n in ast.walk(tree):
        if isinstance(n, (*_DISPLAYS, ast.Dict)):
            nested.update(id(c) for c in ast.iter_child_nodes(n))
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and _call_name(n) == "parametrize":
            values = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == "argvalues"), None)
            if isinstance(values, ast.Name):
                values = constants.get(values.id)
            if isinstance(values, _DISPLAYS):
                out.append((values, True))
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            it = n.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):
                it = it.func.value        # {...}.items()
            if isinstance(it, (*_DISPLAYS, ast.Dict)):
                out.append((it, True))
            elif isinstance(it, ast.Call):
                out.append((it, True))    # zip([...], [...]), enumerate([...]), sorted([...])
        elif isinstance(n, ast.Dict) and len(n.keys) > 1:
            out.append((n, False))
        elif isinstance(n, _DISPLAYS) and id(n) not in nested and len(n.elts) > 1 \
                and all(isinstance(e, _ROWS) for e in n.elts):
            out.append((n, False))
    return out


def _zipped(call: ast.Call) -> Iterator[tuple[int, ast.AST]]:
    """(i, element i) of every display among a call's arguments: one row per index, whatever the
    call does (a cross product is read more strictly than it runs, never less)."""
    for a in call.args:
        if isinstance(a, _DISPLAYS):
            yield from enumerate(a.elts)
        elif isinstance(a, ast.Dict):
            yield from enumerate(a.values)
            yield from ((i, k) for i, k in enumerate(a.keys) if k is not None)


def _headers(n: ast.stmt) -> list[ast.AST]:
    """The parts of a compound statement outside its body (a loop's target and iterable, ...)."""
    if isinstance(n, (ast.For, ast.AsyncFor)):
        return [n.target, n.iter]
    if isinstance(n, (ast.With, ast.AsyncWith)):
        return [x for it in n.items for x in (it.context_expr, it.optional_vars) if x is not None]
    if isinstance(n, (ast.If, ast.While)):
        return [n.test]
    return []


def _units(tree: ast.Module, lines: list[str]) -> tuple[list[_Unit], list[_Unit]]:
    """(statement units, row units) of a file."""
    stmts: list[_Unit] = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.stmt):
            continue
        if not hasattr(n, "body"):
            stmts.append(_Unit(0, id(n), *_span_of(lines, n)))
        elif (head := _headers(n)):
            stmts.append(_Unit(0, id(n), *_span_of(lines, head[0], head[-1])))
    rows: list[_Unit] = []
    seen: set[int] = set()
    tables = _tables(tree)
    iterated = {id(t) for t, it in tables if it}
    for t, _ in tables:
        if id(t) in seen:
            continue
        seen.add(id(t))
        family = id(t) if id(t) in iterated else 0
        if isinstance(t, ast.Call):
            for i, e in _zipped(t):
                rows.append(_Unit(family, i, *_span_of(lines, e)))
        elif isinstance(t, ast.Dict):
            for k, v in zip(t.keys, t.values):
                rows.append(_Unit(family, id(v), *_span_of(lines, k if k is not None else v, v)))
        else:
            for e in t.elts:
                rows.append(_Unit(family, id(e), *_span_of(lines, e)))
    return stmts, rows


def _placed(spans: list[tuple[int, int]], pos: list[_Pos], units: tuple[list[_Unit], list[_Unit]]) \
        -> list[tuple[tuple[int, int], frozenset[tuple[int, int]]]]:
    """Each span with the (family, key) of the rows holding it, or else of its innermost statement;
    spans in neither are dropped (a literal outside every statement and row)."""
    stmts, rows = units
    out = []
    for a, b in spans:
        p = (pos[a][0], pos[a][1], pos[b - 1][2], pos[b - 1][3])
        inside = frozenset((u.family, u.key) for u in rows if u.holds(p))
        if not inside:
            holding = [u for u in stmts if u.holds(p)]
            if not holding:
                continue
            inner = max(holding, key=lambda u: (u.start, (-u.end[0], -u.end[1])))
            inside = frozenset({(0, inner.key)})
        out.append(((a, b), inside))
    return out


def _lines(node: ast.AST) -> range:
    """The lines of a statement, its decorators included."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
    return range(first, (node.end_lineno or node.lineno) + 1)


def _citable(source: TestSource, tree: ast.Module, hot: set[int]) -> list[tuple[int, int]]:
    """Spans a demand may cite: the tests pytest runs as the AST path collects them
    (:func:`specguard.formalize.tests.collected_tests`: the final binding of each name, classes
    pytest collects; with ``only_tests``, only the selected ones), top-level code holding an
    unsupported assertion (module-level assertions run at import), and helper functions holding
    one that such a test calls by name (a helper nobody calls asserts nothing, and neither does a
    test pytest does not collect: issue 11, item 10)."""
    from specguard.formalize.tests import collected_tests
    try:
        tests = collected_tests(source)
    except RecursionError:
        return []
    tests = [t for t in tests if selected(source, t.name) or selected(source, _class_of(tree, t))]
    called = {_call_name(c) for t in tests for c in ast.walk(t) if isinstance(c, ast.Call)}
    out = [(_lines(t).start, _lines(t).stop - 1) for t in tests]
    homes = {_class_of(tree, t) for t in tests} - {""}
    helpers = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] + \
        [m for c in tree.body if isinstance(c, ast.ClassDef) and c.name in homes
         for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for n in helpers + [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]:
        a, b = _lines(n).start, _lines(n).stop - 1
        if not any(a <= h <= b for h in hot):
            continue
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                (n.name in called and not n.name.startswith("test")):
            out.append((a, b))
    return out


def _class_of(tree: ast.Module, fn: ast.AST) -> str:
    """The name of the top-level class holding ``fn`` ('' if none)."""
    for n in tree.body:
        if isinstance(n, ast.ClassDef) and n.lineno <= fn.lineno <= (n.end_lineno or n.lineno):
            return n.name
    return ""


def unsupported_of(task: Task) -> tuple[str | None, TestFormalization]:
    """The function under test and the AST path's reading of ``task``'s tests."""
    from specguard.formalize.tests import formalize_tests, infer_entry_point
    return task.entry_point or infer_entry_point(task.tests), formalize_tests(task.tests, task.entry_point)


def accept_for(task: Task, md: ModelDemands) -> Accepted:
    """:func:`accept` of ``md``'s proposals against ``task`` (what ``verify --inputs`` re-runs)."""
    target, tf = unsupported_of(task)
    if target is None:
        return Accepted(dropped=["no function under test is known"])
    return accept(task.tests, target, md.proposals, tf.unsupported, tf.demands)


# where a reading would be wrong whatever the model says: skipped or xfail tests, conditional or
# guarded code, and (for "returns") the inside of a raises block; the AST path's context reasons
_CONTEXT_REASONS = ("inside ", "follows ", "marked skip/xfail", "may be skipped", "table is empty", "generator",
                    "fixture", "pytest does not run", "may replace or wrap it")
_SKIP_NAMES = ("skip", "xfail", "expectedFailure", "importorskip")
_RAISES_CTX = ("raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "warns", "assertWarns",
               "assertWarnsRegex", "deprecated_call")


def _blocked(tree: ast.Module, unsupported: Sequence[Unsupported], path: str) -> tuple[set[int], set[int]]:
    """Lines no demand may cite, and lines only a ``raises`` demand may cite (inside a raises or
    warns block)."""
    blocked = {u.loc.line for u in unsupported if u.loc.file == path
               and any(r in u.reason for r in _CONTEXT_REASONS)}
    raises_only: set[int] = set()

    def skip_marked(node: ast.AST) -> bool:
        for d in getattr(node, "decorator_list", ()):
            if any(k in ast.unparse(d) for k in _SKIP_NAMES):
                return True
        return False

    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _wrapped(n):
            blocked.update(_lines(n))             # a decorator may replace or wrap the test
    for top in tree.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if skip_marked(top) or any(skip_marked(n) for n in ast.walk(top) if n is not top):
                blocked.update(_lines(top))       # a skipped or expected-to-fail test, or one of its methods
                continue
            if any(isinstance(n, ast.Call) and _call_name(n) in _SKIP_NAMES + ("fail", "exit")
                   for n in ast.walk(top)):
                blocked.update(_lines(top))       # pytest.skip(...) / pytest.xfail(...) / pytest.fail(...)
                continue
        for n in ast.walk(top):
            if isinstance(n, (ast.If, ast.While, ast.Try, ast.Match, ast.AsyncFor, ast.AsyncWith, ast.Lambda)) \
                    or (hasattr(ast, "TryStar") and isinstance(n, ast.TryStar)):
                blocked.update(_lines(n))
            elif isinstance(n, (ast.For, ast.AsyncFor)) and any(isinstance(b, (ast.Break, ast.Continue, ast.Return))
                                                                 for b in ast.walk(n)):
                blocked.update(_lines(n))
            elif isinstance(n, ast.With):
                if any(isinstance(it.context_expr, ast.Call) and _call_name(it.context_expr) in _RAISES_CTX
                       for it in n.items):
                    raises_only.update(_lines(n))
                else:
                    blocked.update(_lines(n))     # a context manager may patch, catch or skip
    return blocked, raises_only - blocked


def _entry_problems(trees: dict[str, ast.Module], entry_point: str) -> dict[str, str]:
    """Files where the name ``entry_point`` may not denote the function under test (Python's
    binding and import semantics, :func:`specguard.python.bindings.resolve_entry`), and why: it is
    rebound, imported as another function, or the files import it from different modules."""
    out: dict[str, str] = {}
    modules: dict[str, str] = {}
    for path, tree in trees.items():
        try:
            e = resolve_entry(Symbols.of_module(tree), entry_point, entry_point)
        except RecursionError:
            out[path] = "the file is nested too deeply to be analysed"
            continue
        if e.problem:
            out[path] = e.problem
        elif e.module is not None:
            modules[path] = e.module
    if len(set(modules.values())) > 1:
        why = f"the test files import `{entry_point}` from different modules ({', '.join(sorted(set(modules.values())))})"
        out.update({path: why for path in modules})
    return out


def _rebinding_lines(tree: ast.Module, entry_point: str) -> set[int]:
    """Lines of functions (and lambdas) that bind ``entry_point`` in their own scope (a parameter,
    an assignment, a local import): there the name is a local, not the function under test."""
    out: set[int] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        a = fn.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | {x.arg for x in (a.vararg, a.kwarg) if x}
        body = fn.body if isinstance(fn.body, list) else [fn.body]
        if entry_point in params or any(name == entry_point for name, _ in scope_bindings(body)):
            out.update(_lines(fn))
    return out


_KNOWN_DECORATORS = ("pytest.mark.", "mark.", "unittest.")


def _wrapped(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """Decorated with something other than a pytest mark, a unittest decorator or a fixture
    declaration: what pytest runs is whatever the decorator returns."""
    for d in node.decorator_list:
        try:
            name = ast.unparse(d.func if isinstance(d, ast.Call) else d)
        except RecursionError:
            return True
        if not (name.startswith(_KNOWN_DECORATORS) or name in ("pytest.fixture", "fixture")):
            return True
    return False


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def accept(sources: Sequence[TestSource], entry_point: str, proposals: Sequence[Proposal],
           unsupported: Sequence[Unsupported], formalized: Sequence[Demand]) -> Accepted:
    """The demands of ``proposals`` that pass every check of the module docstring, with ids
    ``M1``, ``M2``, ... in proposal order; the rest are dropped with a reason."""
    files = {s.path: s for s in sources if s.kind == "python" and s.text is not None}
    done = {(d.loc.file, d.loc.line) for d in formalized}
    out = Accepted()
    trees: dict[str, tuple] = {}
    parsed: dict[str, ast.Module] = {}
    for path, s in files.items():
        try:
            tree = parsed[path] = ast.parse(s.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            trees[path] = (s.text.splitlines(), [], set(), set(), ([], []), set(), [])
            continue
        hot = {u.loc.line for u in unsupported if u.loc.file == path}
        lines = s.text.splitlines()
        trees[path] = (lines, _citable(s, tree, hot), *_blocked(tree, unsupported, path), _units(tree, lines),
                       _rebinding_lines(tree, entry_point), _not_compared(tree, lines))
    problems = _entry_problems(parsed, entry_point)
    for i, p in enumerate(proposals, start=1):
        where = f"{p.file}:{p.lines[0]}"
        try:
            if p.file in problems:
                raise _Drop(f"in this file `{entry_point}` may not be the function under test: {problems[p.file]}")
            call, expect, text = _read(p, files, trees, done, entry_point)
        except _Drop as e:
            out.dropped.append(f"proposal {i} ({where}): {e}")
            continue
        out.demands.append(Demand(id=f"M{len(out.demands) + 1}", call=call, expect=expect,
                                  loc=Loc(file=p.file, line=p.lines[0]), text=text, read_by="model"))
    return out


def _read(p: Proposal, files, trees, done, entry_point: str) -> tuple[Call, Expect, str]:
    """``p``'s ``(call, expect, text)``; raises :class:`_Drop` with the reason it is dropped."""
    if p.file not in files:
        raise _Drop("the cited file is not one of the task's Python test files")
    lines, spans, blocked, raises_only, units, rebound, aside = trees[p.file]
    if len(p.lines) > _MAX_LINES:
        raise _Drop(f"more than {_MAX_LINES} cited lines")
    if any(not 1 <= n <= len(lines) for n in p.lines):
        raise _Drop("a cited line is outside the file")
    if any(not any(a <= n <= b for a, b in spans) for n in p.lines):
        raise _Drop("a cited line is outside the tests pytest runs and the code holding an unsupported assertion")
    if all((p.file, n) in done for n in p.lines):
        raise _Drop("the cited lines are already formalized by the AST path")
    if any(n in blocked for n in p.lines):
        raise _Drop("a cited line is in a skipped or expected-to-fail test, or in conditional, guarded or "
                    "context-managed code (what it asserts may not be what must hold)")
    if any(n in rebound for n in p.lines):
        raise _Drop(f"a cited line is in a function that binds `{entry_point}` itself (there the name is not the "
                    "function under test)")
    if p.returns is not None and any(n in raises_only for n in p.lines):
        raise _Drop("a cited line is inside a raises/warns block: not a plain 'returns exactly' assertion")
    if (p.returns is None) == (p.raises is None):
        raise _Drop("a demand needs exactly one of `returns` and `raises`")
    numbers = sorted(set(p.lines))
    hay, pos = _tokens_at([lines[n - 1] for n in numbers], numbers)
    try:
        tree = ast.parse(p.call.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise _Drop(f"the call {p.call[:80]!r} is not a Python expression") from None
    node = tree.body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id != entry_point:
        raise _Drop(f"the call is not a call of {entry_point}(...)")
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise _Drop("star-arguments are not literal demands")
    if not _contains(hay, [("t", entry_point)]):
        raise _Drop(f"the cited lines do not mention {entry_point}")
    src = p.call.strip()
    read = [_literal(a, src, hay) for a in node.args]
    kw_read = [(k.arg, _literal(k.value, src, hay, k.arg)) for k in node.keywords]
    args = [v for v, _ in read]
    kwargs = [(k, v) for k, (v, _) in kw_read]
    spans = [sp for _, sp in read] + [sp for _, (_, sp) in kw_read]
    names = {v for k, v in hay if k == "t"}
    if p.returns is not None:
        bad = sorted((names & _NEGATIONS) | (names & _NEGATION_OPS) | {n for n in names if n.startswith("assertNot")
                                                                      or n.startswith("assertIsNot")})
        if bad:
            raise _Drop(f"the cited lines hold {bad[0]!r}: not a plain 'returns exactly' assertion")
        if _transformed(hay, entry_point):
            raise _Drop("the cited lines use the call's result other than by == (an index, attribute or operator)")
        value, sp = _literal_text(p.returns, hay)
        spans.append(sp)
        expect = Expect(kind=ExpectKind.eq, value=value)
    else:
        exc = p.raises.strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", exc):
            raise _Drop(f"{exc[:60]!r} is not an exception class name")
        if not _contains(hay, [("t", exc.rsplit(".", 1)[-1])]):
            raise _Drop(f"the exception {exc} does not appear in the cited lines")
        if not names & _RAISES:
            raise _Drop("the cited lines have no raises/assertRaises")
        expect = Expect(kind=ExpectKind.raises, exc=(exc.rsplit(".", 1)[-1],))
    kept = [_outside(sp, pos, aside) for sp in spans]
    for sp, (rest, why) in zip(spans, kept):
        if sp and not rest:
            raise _Drop(why)
    spans = [rest for rest, _ in kept]
    placed = [_placed(sp, pos, units) for sp in spans]
    if any(sp and not pl for sp, pl in zip(spans, placed)):
        raise _Drop("a literal stands in the cited lines outside every statement and table row")
    if not _distinct([[(sp, frozenset()) for sp, _ in pl] for pl in placed]):
        raise _Drop("the literals do not stand in the cited lines as separate occurrences (one literal read twice)")
    if not _distinct(placed):
        raise _Drop("the literals do not come from one run of one assertion (one statement, one row of a "
                    "parametrize table, one loop iteration): a table was read across its rows")
    call = Call(target=entry_point, args=tuple(args), kwargs=tuple(kwargs))
    text = " | ".join(lines[n - 1].strip() for n in sorted(set(p.lines)))[:300]
    return call, expect, text


class _Drop(Exception):
    pass


def _literal(node: ast.expr, src: str, hay, name: str | None = None):
    """The value of an argument literal and where it stands in the cited lines."""
    seg = ast.get_source_segment(src, node) or ""
    try:
        v = literals.eval_literal(node)
    except literals.NotLiteral as e:
        raise _Drop(f"the argument {seg[:60]!r} is not a literal ({e})") from None
    spans = _operand_spans(hay, _tokens(seg))
    if not spans:
        raise _Drop(f"the literal {seg[:60]!r} does not appear in the cited lines (as a whole operand)")
    if name is not None and not _contains(hay, [("t", name)]):
        raise _Drop(f"the keyword {name!r} does not appear in the cited lines")
    return v, spans


def _literal_text(text: str, hay):
    """The value of the expected literal and where it stands in the cited lines."""
    try:
        v = literals.eval_literal_text(text)
    except literals.NotLiteral as e:
        raise _Drop(f"the expected value {text[:60]!r} is not a literal ({e})") from None
    spans = _operand_spans(hay, _tokens(text.strip()))
    if not spans:
        raise _Drop(f"the expected value {text[:60]!r} does not appear in the cited lines (as a whole operand)")
    return v, spans


_BEFORE = {("nl", None), ("t", "assert"), ("t", "("), ("t", ","), ("t", "=="), ("t", "="), ("t", "return")}
_EQUAL_HELPERS = {("t", n) for n in ("assertEqual", "assertEquals", "assert_equal", "assertIs", "assertListEqual",
                                      "assertTupleEqual", "assertDictEqual", "assertSetEqual",
                                      "assertSequenceEqual", "assertMultiLineEqual", "assertIsNone")}
_AFTER = {("nl", None), ("t", "=="), ("t", ","), ("t", ")")}


def _transformed(hay, entry_point: str) -> bool:
    """A call of ``ENTRY`` in the cited tokens whose result is used by anything but ``==``, an
    argument list or an assignment (``ENTRY(...)[0]``, ``ENTRY(...).x``, ``ENTRY(...) + 1``, ...)."""
    for i, tok in enumerate(hay):
        if tok == ("t", entry_point) and i + 1 < len(hay) and hay[i + 1] == ("t", "("):
            if i > 0 and hay[i - 1] not in _BEFORE:
                return True
            if i > 1 and hay[i - 1] == ("t", "(") and hay[i - 2] not in _BEFORE \
                    and hay[i - 2] not in _EQUAL_HELPERS:
                return True       # wrapped in some function: f(ENTRY(...))
            depth = 0
            for j in range(i + 1, len(hay)):
                if hay[j] == ("t", "("):
                    depth += 1
                elif hay[j] == ("t", ")"):
                    depth -= 1
                    if depth == 0:
                        if j + 1 < len(hay) and hay[j + 1] not in _AFTER:
                            return True
                        break
    return False
