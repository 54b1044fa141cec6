"""Evidence that calls of the function under test keep state, beyond the words of
:data:`~specguard.formalize.assumptions.STATE_WORDS` (read from the task's text, never run).

:func:`~specguard.formalize.assumptions.documented_state` asks here after its own rules.  Each
piece of evidence says that one call may legitimately give different results at different
moments, so no conflict may rest on two observations of the same call (the caller sets those
apart); everything else stays read.  Evidence, first found wins:

* **history words** (:data:`HISTORY_WORDS`): the description speaks of what happened before
  the call ("requests so far", "seen before", "values received", "the next ticket", "handed
  out", "how many times it was called", "the history", "registered").  Measured on the bundled
  benchmarks (LiveCodeBench, HumanEval, reallib docstrings): no hit among their descriptions
  but two running statistics of an iterator ("values seen so far").
* **no arguments**: the description's ``def`` of the function takes no parameter; a function of
  nothing is a constant, so different expected results can only come from state.
* **a call made for its effect**: the tests call the function under test, or another function
  the description defines (or that the tests import alongside it), and discard the result
  (outside a ``raises`` context), unless its effect is what it leaves in a list, dict or set the
  test built once from a display and a later assertion shows changed (``l = [3, 1]; f(l); assert
  l == [1, 3]``: an input of its own, ``specguard.formalize.argstate``), with no later call of
  the function in that test (:func:`_reads_argument_after`).  In a real test run, pytest and unittest run every test of a
  module in one process, so the effect reaches every later test, not only the statements after
  it in the same test.
* **a lasting change of the environment**: a test stores into an attribute or item of an imported
  module or object (``desc.FACTOR = 3``, ``os.environ["LANG"] = "fr"``), or calls for its effect
  a method of one (``os.environ.update(...)``, ``desc.CACHE.clear()``): unlike ``monkeypatch``,
  that change stays for the tests after it.
* **a related function**: the function's own docstring names another function the description
  defines or the tests import alongside it, and the tests call that function (``lookup``: "the
  value stored by :func:`store`", with ``store(...)`` in a test).

Detection errs towards "state" (a lost certificate, never a false one).
"""

from __future__ import annotations

import ast
import re

from specguard.formalize.tests import _root_name
from specguard.models import Task

HISTORY_WORDS = re.compile(
    r"\b(?:so far|up (?:to|until) now|until now|till now|thus far|"
    r"(?:seen|used|returned|given|issued|handed out|requested|registered|stored|recorded|called|visited|added|"
    r"passed|logged|received) (?:before|already|previously|earlier|in (?:a |an )?(?:previous|earlier|prior) call)|"
    r"already (?:been )?(?:seen|used|returned|given|issued|handed|requested|registered|stored|recorded|called|"
    r"visited|added|taken|logged|received|processed)|"
    r"(?:handed|given|dealt|doled|passed|issued) out|"
    r"(?:values?|items?|arguments?|inputs?|numbers?|requests?|messages?|events?|data|calls?) (?:it |that it |the "
    r"function )?(?:has |have )?(?:received|seen|been given|been passed)|"
    r"(?:has|have|had|was|were) (?:been )?(?:called|invoked)|"
    r"(?:how many|number of) times (?:\S+ ){0,3}(?:has been|have been|was|were|is|are) (?:called|invoked|requested|"
    r"seen|used|asked|given|passed|fetched|visited)|number of (?:calls|requests|invocations)|"
    r"(?:call|request|invocation)s? (?:history|log|count)|history|"
    r"the first time (?:it|the function|\S+) is called|"
    r"toggl(?:e|es|ed|ing)|alternat(?:es|ing) between|"
    r"(?:next|new|fresh|unique|unused|available) (?:id|ids|identifier|identifiers|ticket|tickets|serial|token|tokens|"
    r"handle|handles|sequence number)s?\b|serial numbers?|sequence numbers?|"
    r"registr(?:y|ies)|register(?:s|ed)?|stor(?:e|es|ed) (?:by|under|with) |the store\b|resets?\b|"
    r"clears? (?:the|all|its)|log of|appends? (?:\S+ ){0,3}to (?:the|its|a) (?:log|history|list of)|"
    r"most recently (?:used|seen|added|called|returned|stored|requested|given)|"
    r"(?:the|a) (?:previous|prior) (?:value|result|argument|input|request))", re.I)

# modules whose calls made for their effect change nothing a function under test sees
_QUIET = frozenset("print logging log logger warnings pytest unittest self cls".split())
# functions of a module whose call for its effect changes what later calls see (``os.chdir``,
# ``random.seed``, ``lib.register(...)``); other functions of a module called as a statement
# (``mi.take(10, it)`` advancing an iterator) change only their arguments
_MUTATOR = re.compile(r"^(?:set|reset|clear|register|unregister|add|append|extend|insert|remove|discard|pop|push|put|"
                      r"store|save|update|record|remember|cache|seed|setlocale|chdir|putenv|unsetenv|reload|enable|"
                      r"disable|activate|deactivate|configure|install|uninstall|init|initialize|load|use|start|stop)"
                      r"(?:_|$)", re.I)
# where imports are looked up (a conftest's `sys.path.insert(0, ROOT)`): changes which module an
# import finds, before any test runs, not what a function returns
_IMPORT_PATHS = frozenset({"sys.path", "sys.path_hooks", "sys.path_importer_cache"})
# calls made to check, not to change (``np.testing.assert_equal(...)``, ``pytest.fail(...)``)
_CHECKING = re.compile(r"(?:assert|check|expect|verify|fail|skip|xfail|importorskip|raises|warns|approx)", re.I)
# context managers inside which a call is made to see it raise or warn, not for its effect
_RAISING_CONTEXTS = frozenset("raises warns deprecated_call assertRaises assertRaisesRegex assertRaisesRegexp "
                              "assertWarns assertWarnsRegex".split())


def history_words(task: Task, text: str) -> str | None:
    m = HISTORY_WORDS.search(text)
    if m is None:
        return None
    line = text.count("\n", 0, m.start()) + 1
    return f"{task.description_path}:{line + task.description_line_offset} says {m.group(0).strip()!r}"


def no_arguments(defs: list, target: str) -> str | None:
    """The description's top-level ``def target()`` takes no parameter."""
    for d in defs:
        node, owner = d.node, getattr(d, "owner", None)
        a = node.args
        if owner is None and not (a.posonlyargs or a.args or a.kwonlyargs or a.vararg or a.kwarg):
            return f"`{target}` takes no arguments, so what it returns can vary only with state"
    return None


def _test_trees(task: Task) -> list[tuple[str, ast.Module]]:
    out = []
    for src in task.tests:
        if src.kind != "python" or not src.text:
            continue
        try:
            out.append((src.path, ast.parse(src.text)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return out


def _related_names(task_defs: set[str], tree: ast.Module, target: str
                   ) -> tuple[set[str], set[str], set[str], set[str]]:
    """Names in one test module that denote the function under test (``mine``), the other
    functions of its module (``others``), modules it may be reached through (``mods``), and
    every name an import binds (``imported``)."""
    mine, others, mods, imported = {target}, set(task_defs) - {target}, set(), set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            names = [a.name for a in n.names]
            imported.update(a.asname or a.name for a in n.names)
            if target in names:
                for a in n.names:
                    (mine if a.name == target else others).add(a.asname or a.name)
        elif isinstance(n, ast.Import):
            mods.update((a.asname or a.name).split(".")[0] for a in n.names)
    return mine, others - mine, mods, imported | mods


def _changed_object(n: ast.AST) -> str | None:
    """The object a change statement acts on, as source text (``desc.FACTOR``, ``inflection.UNCOUNTABLES``)."""
    if isinstance(n, (ast.Assign, ast.Delete)) and len(n.targets) == 1:
        return ast.unparse(n.targets[0])
    if isinstance(n, (ast.AugAssign, ast.AnnAssign)):
        return ast.unparse(n.target)
    if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
        f = n.value.func
        if isinstance(f, ast.Attribute):
            return ast.unparse(f.value)
        if isinstance(f, ast.Name) and f.id in ("setattr", "delattr") and len(n.value.args) >= 2:
            return f"{ast.unparse(n.value.args[0])}.{ast.unparse(n.value.args[1])}"
    return None


def _undone_in_finally(tree: ast.Module) -> set[int]:
    """Changes made in a ``try`` body, or by the statement right before it, whose ``finally``
    block acts on the same object (``X.add(w)`` / ``try: ... finally: X.remove(w)``), and those
    undoing statements: that change ends with its test and is read there (what follows it in the
    test is not)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, st in enumerate(block):
                if not isinstance(st, ast.Try) or not st.finalbody:
                    continue
                undo = "\n".join(ast.unparse(x) for x in st.finalbody)
                done = "\n".join(ast.unparse(x) for x in st.body + block[i - 1:i])
                for stmts, other in ((st.body + block[i - 1:i], undo), (st.finalbody, done)):
                    for n in (n for x in stmts for n in ast.walk(x)):
                        obj = _changed_object(n)
                        if obj is not None and obj in other:
                            out.add(id(n))
    return out


def _environment_change(tree: ast.Module, imported: set[str], mine: set[str]) -> ast.AST | None:
    """A change that outlives the test it is made in: a store into (or ``del`` of) an attribute or
    item of an imported module or object (``desc.FACTOR = 3``, ``os.environ["LANG"] = "fr"``),
    ``setattr``/``delattr`` on one, a call made for its effect of a method of an object one holds
    (``os.environ.update(...)``, ``desc.CACHE.clear()``) or of one of its functions named as a
    change (``random.seed(0)``, ``os.chdir(d)``, ``lib.register(...)``).  ``monkeypatch`` and
    ``mock.patch`` contexts undo themselves and are not counted."""
    roots = imported - mine
    undone = _undone_in_finally(tree)
    for n in ast.walk(tree):
        if id(n) in undone or (_changed_object(n) or "").split("[")[0] in _IMPORT_PATHS:
            continue
        targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else \
            [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, (ast.Attribute, ast.Subscript)) and _root_name(t) in roots:
                return t
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr") \
                and n.args and _root_name(n.args[0]) in roots:
            return n
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute) \
                and _root_name(n.value.func) in roots and _root_name(n.value.func) not in _QUIET \
                and not _CHECKING.match(n.value.func.attr) \
                and (not isinstance(n.value.func.value, ast.Name) or _MUTATOR.match(n.value.func.attr)):
            return n
    return None


def _callee(call: ast.Call, names: set[str], mods: set[str]) -> str | None:
    f = call.func
    if isinstance(f, ast.Name) and f.id in names:
        return f.id
    if isinstance(f, ast.Attribute) and f.attr in names:
        root = f.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in mods:
            return f.attr
    return None


def _effect_calls(tree: ast.Module, names: set[str], mods: set[str]) -> list[ast.Call]:
    """Calls of ``names`` whose result is discarded, outside ``with pytest.raises(...)`` and alike."""
    found: list[ast.Call] = []

    def raising(w: ast.With | ast.AsyncWith) -> bool:
        for item in w.items:
            e = item.context_expr
            f = e.func if isinstance(e, ast.Call) else e
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name in _RAISING_CONTEXTS:
                return True
        return False

    def visit(node: ast.AST, fn: ast.AST | None) -> None:
        if isinstance(node, (ast.With, ast.AsyncWith)) and raising(node):
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _callee(node.value, names, mods) \
                and not (fn is not None and _reads_argument_after(fn, node.value, names, mods)):
            found.append(node.value)
        for child in ast.iter_child_nodes(node):
            visit(child, node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else fn)

    visit(tree, None)
    return found


def _reads_argument_after(fn: ast.AST, call: ast.Call, names: set[str], mods: set[str]) -> bool:
    """``l = [3, 1]; f(l); assert l == [1, 3]``: the call's effect is what it leaves in a list,
    dict or set the test function built from a literal display, and a later assertion shows that
    effect (it compares the name with ``==`` to a literal other than the one it was built from),
    which the test reader observes as an input of its own (``specguard.formalize.argstate``),
    under the assumption stated there.  Such a call is not evidence of state kept between calls.
    It stays evidence when the assertions show no change of the argument (``f(cfg); assert cfg ==
    {...}`` as built: the call is made for another effect, a mode perhaps), when the test calls
    one of ``names`` again after it (``f(cfg); f(l)``), or ``global``/``nonlocal`` is used."""
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
        return False
    end = getattr(call, "end_lineno", call.lineno)
    if any(isinstance(n, ast.Call) and n is not call and n.lineno > end and _callee(n, names, mods)
           for n in ast.walk(fn)):
        return False
    stores: dict[str, int] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    built: dict[str, object] = {}          # names bound once in the test, by a display before the call
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.Dict, ast.Set)) \
                and n.lineno < call.lineno:
            for t in n.targets:
                if isinstance(t, ast.Name) and stores.get(t.id) == 1:
                    built[t.id] = _literal(n.value)
    given = {a.id for a in [*call.args, *(k.value for k in call.keywords)]
             if isinstance(a, ast.Name) and built.get(a.id, _NONE) is not _NONE}
    for st in ast.walk(fn):
        if not isinstance(st, ast.stmt) or st.lineno <= end:
            continue
        pair = _equality(st)
        if pair is None:
            continue
        for name_side, other in (pair, pair[::-1]):
            if isinstance(name_side, ast.Name) and name_side.id in given:
                want = _literal(other)
                try:
                    if want is not _NONE and want != built[name_side.id]:
                        return True
                except Exception:       # pragma: no cover - literals compare
                    pass
    return False


_NONE = object()


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NONE


def _equality(st: ast.stmt) -> tuple[ast.expr, ast.expr] | None:
    """The two sides of ``assert a == b`` or ``self.assertEqual(a, b)``."""
    if isinstance(st, ast.Assert) and isinstance(st.test, ast.Compare) and len(st.test.ops) == 1 \
            and isinstance(st.test.ops[0], ast.Eq):
        return st.test.left, st.test.comparators[0]
    c = st.value if isinstance(st, ast.Expr) else None
    if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in ("assertEqual", "assertEquals") \
            and len(c.args) >= 2:
        return c.args[0], c.args[1]
    return None


def tested_state(task: Task, target: str, defs: list, task_defs: set[str]) -> str | None:
    """Why the tests (with the description) show that calls of ``target`` keep state, or None.
    ``defs``: the description's defs of ``target``; ``task_defs``: names of every function the
    description defines."""
    doc = next((ast.get_docstring(d.node) or "" for d in defs), "")
    for path, tree in _test_trees(task):
        mine, others, mods, imported = _related_names(task_defs, tree, target)
        for call in _effect_calls(tree, mine | others, mods):
            name = _callee(call, mine | others, mods)
            return f"{path}:{call.lineno} calls `{name}` for its effect (its result discarded); a test run " \
                   f"keeps that effect for every later call of `{target}`"
        change = _environment_change(tree, imported, mine)
        if change is not None:
            return f"{path}:{change.lineno} changes `{ast.unparse(change)[:40]}`, which outlives its test: a " \
                   f"test run keeps it for every later call of `{target}`"
        if not doc:
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                name = _callee(n, others, mods)
                if name is not None and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", doc):
                    return f"the description of `{target}` names `{name}`, which {path}:{n.lineno} calls: " \
                           f"what `{target}` returns may depend on those calls"
    return None


__all__ = ["HISTORY_WORDS", "history_words", "no_arguments", "tested_state"]
