"""Which of the model's assumptions a task itself contradicts (read from its text, never run).

SpecGuard's model (``results.ASSUMPTIONS``) takes the function under test to return *plain
data* and to be a *function of its arguments*.  A task can say otherwise:

* **objects** (:func:`object_results`): the entry point is a class (``class Point`` in the
  description, ``isinstance(r, Point)``, ``Point(1, 2).x`` or ``class C(Point)`` in the tests, a
  CapWords name), its return annotation names a type that is not plain data (``-> Point``,
  ``-> Fraction``, ``-> Iterator[int]``), the description talks about ``__eq__``, shows an object
  repr as an example's output, or shows one call equal to values of different types.  Then
  ``==`` between the result and plain data says nothing the model can use: the assertions on
  such results keep only "the call returns" (:func:`returns_only`), so raises-vs-returns
  conflicts stand and nothing rests on ``==``.
* **state** (:func:`documented_state`): the description documents state between calls (a
  mutable default argument such as ``acc=[]``, ``global``/``nonlocal`` or a module-level name
  the stub's function uses, or words such as "accumulates", "remembers", "previous calls",
  "each call", "cache", "counter"; and the further evidence of :mod:`state_evidence`: words of
  history, no arguments, calls made for their effect).  Then one call may give different results in different
  assertions: no conflict may rest on two assertions about the same call
  (:func:`split_same_call`), and nothing is entailed by an example of the same call.

Detection is deterministic and errs towards "contradicted" (a lost certificate, never a false
one).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from specguard.formalize import state_evidence
from specguard.kernel import emit
from specguard.models import ClaimKind, DescFormalization, ExpectKind, Task, Unsupported
from specguard.python.values import canon

# Annotation names that denote plain data (or say nothing against it).
PLAIN_ANNOTATIONS = frozenset(
    "int float bool str bytes None NoneType list tuple dict set frozenset Optional Union Any object List "
    "Tuple Dict Set FrozenSet Literal typing t builtins typing_extensions".split())

# Attributes a plain value (or a function) may have: anything else read off a result marks an object.
_PLAIN_ATTRS = frozenset(a for t in (str, bytes, int, float, bool, list, tuple, dict, set, frozenset,
                                     type(None)) for a in dir(t))
_FUNCTION_ATTRS = frozenset(dir(lambda: None))
_CLASS_WORDS = r"(?:class|object|instance|dataclass|namedtuple)"


@dataclass
class Contradicted:
    """What the task says against the model's assumptions (empty: nothing)."""

    objects: dict[str, str] = field(default_factory=dict)    # call target -> why its results may be objects
    state: str | None = None                                 # why calls may keep state between them
    object_state: str | None = None     # observations of fresh objects: None (none), "" (the object model
    #                                     holds) or why their results may vary with more than their history

    def assumptions(self, base: tuple[str, ...]) -> tuple[str, ...]:
        """``base`` (``results.ASSUMPTIONS``) with the contradicted assumptions restated."""
        out = list(base)

        def put(prefix: str, text: str) -> None:      # replace the assumption starting with prefix
            i = next((i for i, a in enumerate(out) if a.startswith(prefix)), None)
            if i is None:
                out.append(text)
            else:
                out[i] = text
        if self.objects:
            said = "; ".join(f"`{t}`: {why}" for t, why in sorted(self.objects.items()))
            who = ", ".join(f"`{t}`" for t in sorted(self.objects))
            put("The implementation returns plain",
                f"Results of {who} may be objects, not plain data ({said}): their assertions were read only as "
                "'the call returns' (or raises), so no certificate rests on == between such a result and plain "
                "data. Other results are taken to be plain Python data (None, bool, int, float, str, bytes, list, "
                "tuple, dict, set, frozenset) or an exception.")
        if self.state is not None:
            put("The implementation is a function of its arguments",
                f"The description documents state between calls ({self.state}): the same call may give different "
                "results, so SpecGuard does NOT assume that the same arguments give the same outcome: assertions "
                "expecting different outcomes of one call were not formalized, and no test is taken as entailed "
                "by a description example of the same call.")
        return tuple(out)


# -- objects --------------------------------------------------------------------------------------

def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError):
        return None


def _annotation_names(node: ast.expr | None, depth: int = 0) -> list[str]:
    """Every name an annotation mentions (string annotations parsed)."""
    if node is None or depth > 10:
        return []
    out: list[str] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            sub = _parse(n.value)
            if sub is not None and len(sub.body) == 1 and isinstance(sub.body[0], ast.Expr):
                out += _annotation_names(sub.body[0].value, depth + 1)
            else:
                out.append(n.value)
    return out


def _defs(text: str, tree: ast.Module | None) -> list:
    """The description's defs (``formalize_desc._Def``: node, owner class)."""
    from specguard.formalize.description import _defs_from_prose, _defs_from_tree
    return _defs_from_tree(tree) if tree is not None else _defs_from_prose(text.splitlines())


def _defs_named(text: str, tree: ast.Module | None, name: str) -> list:
    return [d for d in _defs(text, tree) if d.node.name == name]


_RETURNS_OBJECT = re.compile(r"\b(?:returns?|returning|gives|yields?|produces?|creates?|constructs?)\s+(?:a |an |the |"
                             r"new )*(?:[\w`]+\s+){0,2}(?:objects?|instances?|iterators?|generators?)\b", re.I)
_CLASS_LINE = re.compile(r"^\s*(?:[`>*]\s*)*class\s+([A-Za-z_]\w*)\s*[(:]", re.M)


_ITERATOR_NOUN = re.compile(r"(?:iterators?|generators?)$", re.I)
_OBJECT_NOUN = re.compile(r"\b(?:objects?|instances?)\b", re.I)
_ITERATOR_ANNOTATIONS = frozenset("Iterator Iterable Generator".split())


def _description_objects(text: str, target: str, df: DescFormalization, iterated: bool = False) -> str | None:
    """Why the description suggests ``target``'s results are objects, or None.  ``iterated``:
    every reading consumes the result as an iterable (the ``list(f(...))`` model of
    :mod:`specguard.python.iterate`), so that it returns an iterator or is a generator function is
    no evidence (its items are what is compared); objects among the items still are."""
    tree = _parse(text)
    if tree is not None and any(isinstance(n, ast.ClassDef) and n.name == target for n in ast.walk(tree)):
        return f"the description defines `class {target}`"
    t = re.escape(target)
    if re.search(rf"^\s*(?:[`>*]\s*)*class\s+{t}\b", text, flags=re.M) \
            or re.search(rf"\b{_CLASS_WORDS}(?:\s+of)?\s+`?{t}`?(?!\w)|(?<!\w)`?{t}`?\s+{_CLASS_WORDS}s?\b", text):
        return f"the description names `{target}` as a class or object"
    defs = _defs_named(text, tree, target)
    for d in defs:
        if not iterated and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(d.node)):
            return f"`{target}` is a generator function (its result is a generator object)"
    for m in _RETURNS_OBJECT.finditer(text):
        if iterated and _ITERATOR_NOUN.search(m.group(0)) and not _OBJECT_NOUN.search(text, m.end(), m.end() + 80):
            continue        # "returns an iterator (of tuples)": the items are what is read
        return f"the description says {m.group(0)!r}"
    for d in defs:
        odd = [n for n in _annotation_names(d.node.returns) if n not in PLAIN_ANNOTATIONS
               and not (iterated and n in _ITERATOR_ANNOTATIONS)]
        if odd:
            return f"its return annotation names `{odd[0]}`, not a plain data type"
    # a class the description defines (other than one holding the function) may be what it
    # returns, unless its return annotation says plain data
    classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)} if tree is not None \
        else set(_CLASS_LINE.findall(text))
    others = sorted(classes - {d.owner.name for d in defs if d.owner is not None})
    if others and not any(d.node.returns is not None for d in defs):
        return f"the description defines `class {others[0]}` and does not annotate what `{target}` returns"
    if "__eq__" in text or "__hash__" in text:
        return "the description mentions `__eq__`/`__hash__` (objects with their own equality)"
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        # (a printed line shows str(result): a str result prints as `Name(...)` too)
        if re.match(rf"^\s*>>>.*\b{t}\s*\(", line) and not re.match(r"^\s*>>>\s*print\s*\(", line):
            want = lines[i + 1].strip()
            m = re.match(r"^<?([A-Za-z_][\w.]*)(?:\(|\s+object\b|>)", want)
            if m and m.group(1) not in ("set", "frozenset", "True", "False", "None"):
                return f"an example's output `{want[:40]}` is an object's repr"
    kinds: dict[str, set[str]] = {}
    from specguard.formalize.description import _literal_text, _scan_call_end, _value_end
    calls = re.finditer(rf"(?<![\w.]){t}\s*\(", text)
    for _, m in zip(range(200), calls):     # ``f(x) == v`` anywhere, dropped or not as examples
        end = _scan_call_end(text[:m.end() + 4000], m.end() - 1)
        eq = re.compile(r"\s*==\s*").match(text, end + 1) if end is not None else None
        if eq is None:
            continue
        v = _literal_text(text[eq.end():_value_end(text, eq.end())].strip())
        if v is not None:
            kinds.setdefault(re.sub(r"\s+", "", text[m.end():end]), set()).add(canon(v).kind)
    for c in df.claims:
        if c.kind is ClaimKind.example and c.call is not None and c.call.target == target and c.expect is not None \
                and c.expect.kind is ExpectKind.eq and c.expect.value is not None:
            kinds.setdefault(c.call.key(), set()).add(canon(c.expect.value).kind)
    if any(len(k) > 1 for k in kinds.values()):
        return "the description shows one call equal to values of different types"
    return None


def _result_names(tree: ast.Module, names: set[str]) -> dict[int, set[str]]:
    """For every node (by ``id``): the names that may hold a result of a call of ``names`` there.
    A name bound in a function (``r = f(x)``) is that function's local: it counts in the function
    and the functions nested in it; one bound at module level, or declared ``global``, everywhere."""
    def bound(scope) -> set[str]:
        out = set()
        for n in _scope_nodes(scope):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
                    and n.value.func.id in names:
                out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        return out
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    everywhere = bound(tree) | {g for f in funcs for n in _scope_nodes(f) if isinstance(n, ast.Global)
                                for g in n.names if g in bound(f)}
    out: dict[int, set[str]] = {}

    def visit(node, inherited: set[str]) -> None:
        here = inherited | bound(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
            else inherited
        out[id(node)] = here
        for ch in ast.iter_child_nodes(node):
            visit(ch, here)
    visit(tree, set(everywhere))
    return out


def _scope_nodes(scope):
    """The nodes of ``scope`` (a module or function) outside the functions nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(n))


def _test_objects(sources: list[tuple[str, str]], target: str) -> str | None:
    for path, text in sources:
        tree = _parse(text)
        if tree is None:
            continue
        names = {target}
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom):
                names |= {a.asname for a in n.names if a.name == target and a.asname}
        results = _result_names(tree, names)    # per node: names bound there to a call of the target
        for n in ast.walk(tree):
            where = f"{path}:{getattr(n, 'lineno', '?')}"
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance" \
                    and len(n.args) == 2:
                elts = n.args[1].elts if isinstance(n.args[1], ast.Tuple) else [n.args[1]]
                if any(isinstance(e, ast.Name) and e.id in names for e in elts):
                    return f"the tests use `{target}` as a class (isinstance, {where})"
            if isinstance(n, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id in names for b in n.bases):
                return f"the tests subclass `{target}` ({where})"
            if isinstance(n, ast.Attribute):
                v = n.value
                if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in names \
                        and n.attr not in _PLAIN_ATTRS:
                    return f"the tests read `.{n.attr}` off a result of `{target}` ({where})"
                if isinstance(v, ast.Name) and v.id in results.get(id(n), ()) and n.attr not in _PLAIN_ATTRS:
                    return f"the tests read `.{n.attr}` off a result of `{target}` ({where})"
                if isinstance(v, ast.Name) and v.id in names and n.attr not in _FUNCTION_ATTRS:
                    return f"the tests read `{target}.{n.attr}`, an attribute a function does not have ({where})"
    return None


def object_results(task: Task, df: DescFormalization, targets: set[str],
                   iterated: frozenset[str] = frozenset()) -> dict[str, str]:
    """The call targets whose results may be objects rather than plain data, with the reason
    (``iterated``: the targets observed through ``list(...)``, see :func:`_description_objects`)."""
    text = task.description if isinstance(task.description, str) else ""
    sources = [(s.path, s.text) for s in task.tests if s.kind == "python" and s.text]
    out: dict[str, str] = {}
    for target in sorted(targets):
        why = _description_objects(text, target, df, target in iterated) if text else None
        why = why or _test_objects(sources, target)
        if why is None and target.isidentifier() and target[0].isupper() and any(ch.islower() for ch in target):
            why = f"`{target}` is named like a class (CapWords), so calling it may construct an object"
        if why is not None:
            out[target] = why
    return out


def returns_only(c: emit.Clause) -> emit.Clause:
    """``c`` about a result that may be an object: only what holds whatever ``==`` means (the call
    returned, or raised); identity with None/True/False (``is``) and raises are kept as they are."""
    e = c.source.expect
    if e.kind is ExpectKind.raises and e.iterated and not e.through_list:
        # an object's iteration may raise anything: `list(f(x))` raising says nothing about f's outcome
        return emit.Clause(name=c.name, key=c.key, pred=emit.Pred("ifReturns", ("any",)), exact=False,
                           source=c.source, input_id=c.input_id, key_text=c.key_text)
    if e.kind in (ExpectKind.raises, ExpectKind.is_, ExpectKind.is_not):
        return c
    return emit.Clause(name=c.name, key=c.key, pred=emit.Pred("returns", ("any",)), exact=False, source=c.source,
                       input_id=c.input_id, key_text=c.key_text)


# -- state -----------------------------------------------------------------------------------------

STATE_WORDS = re.compile(
    r"\b(stateful|keeps? (?:its |an? |the )?(?:own |internal |hidden )?state|(?:internal|hidden|global|mutable|"
    r"persistent|shared) state|state (?:between|across) calls|remembers?|remembered|accumulat(?:e|es|ed|ing|ion)|"
    r"(?:previous|prior|earlier|past|successive|subsequent|repeated|consecutive|later|future|first|second|"
    r"next|last|nth|n-th) (?:calls?|invocations?)|(?:each|every) (?:call|time (?:it|the function) is called|"
    r"invocation)|between calls|across calls|(?:calls?|invocations?) so far|calls? counts?|counter(?!-)|"
    r"running (?:total|count|sum|tally|list|log)|cach(?:e|es|ed|ing)|memoi[sz](?:e|es|ed|ing|ation)|"
    r"increments? (?:a|an|the|its) (?:counter|count|total|tally)|global (?:variable|counter|list|dict|registry)|"
    r"side[- ]effects?|returns? (?:a |an |one )?(?:random|randomly|pseudo-?random)|current (?:time|date))\b", re.I)
# modules whose use makes a function's outcome vary between calls
_NONDETERMINISTIC = frozenset("random secrets time datetime uuid".split())
_MUTABLE_CALLS = frozenset("list dict set bytearray deque defaultdict Counter OrderedDict array".split())


def _mutable(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        return name in _MUTABLE_CALLS
    return False


def documented_state(task: Task, target: str | None) -> str | None:
    """Why the description says calls of ``target`` may keep state between them, or None."""
    text = task.description if isinstance(task.description, str) else ""
    if not text:
        return None
    tree = _parse(text)
    if tree is not None:
        mods = sorted({a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
                      | {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module})
        odd = [m for m in mods if m in _NONDETERMINISTIC]
        if odd:
            return f"the description's code imports `{odd[0]}` (time, randomness or I/O)"
    if target:
        defs = [x.node for x in _defs_named(text, tree, target)]
        if tree is not None:
            defs += [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.name == target and n not in defs]
            for c in ast.walk(tree):
                holds = isinstance(c, ast.ClassDef) and (c.name == target or any(
                    isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef)) and x.name == target for x in c.body))
                attrs = [t.id for st in c.body if isinstance(st, ast.Assign) for t in st.targets
                         if isinstance(t, ast.Name)] if holds else []
                if attrs:
                    return f"the class attribute `{c.name}.{attrs[0]}` (shared by every call)"
        for d in defs:
            for n in ast.walk(d):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) \
                        and n.value.id == target:
                    return f"`{target}` sets its own attribute `{target}.{n.attr}`"
        for d in defs:
            a = d.args
            for arg, dflt in list(zip((a.posonlyargs + a.args)[::-1], a.defaults[::-1])) + \
                    [(x, y) for x, y in zip(a.kwonlyargs, a.kw_defaults) if y is not None]:
                if _mutable(dflt):
                    return f"the mutable default argument `{arg.arg}={ast.unparse(dflt)[:30]}` of `{target}`"
            for n in ast.walk(d):
                if isinstance(n, (ast.Global, ast.Nonlocal)):
                    return f"`{target}` declares `{'global' if isinstance(n, ast.Global) else 'nonlocal'} " \
                           f"{', '.join(n.names)}`"
            if tree is not None:
                # a module-level mutable value (``_seen = set()``) the function uses
                module_names = {t.id for st in tree.body if isinstance(st, (ast.Assign, ast.AnnAssign))
                                and st.value is not None and _mutable(st.value)
                                for t in (st.targets if isinstance(st, ast.Assign) else [st.target])
                                if isinstance(t, ast.Name)}
                used = sorted({n.id for n in ast.walk(d) if isinstance(n, ast.Name) and n.id in module_names})
                if used:
                    return f"`{target}` uses the module-level mutable value `{used[0]}`"
    m = next((m for m in STATE_WORDS.finditer(text) if not _names_other_code(text, m, target)), None)
    if m is not None:
        line = text.count("\n", 0, m.start()) + 1
        return f"{task.description_path}:{line + task.description_line_offset} says {m.group(0)!r}"
    why = state_evidence.history_words(task, text)
    if why is None and target:
        everything = _defs(text, tree)
        defs = [d for d in everything if d.node.name == target]
        why = state_evidence.no_arguments(defs, target) or \
            state_evidence.tested_state(task, target, defs, {d.node.name for d in everything})
    return why


def _names_other_code(text: str, m: re.Match, target: str | None) -> bool:
    """The state word ``m`` is the name of *another* piece of code, not prose about the function:
    one identifier (``accumulate``, ``Counter``) that is called (``accumulate(...)``), an
    attribute (``itertools.accumulate``) or imported (``import Counter``), and is not the function
    under test's own name.  Prose (``accumulates the values seen so far``) always counts."""
    word = m.group(0)
    if not word.isidentifier() or (target is not None and word == target.rsplit(".", 1)[-1]):
        return False
    before = text[:m.start()]
    after = text[m.end():]
    return after.startswith("(") or before.endswith(".") or re.search(r"\bimport\s+(?:\w+\s*,\s*)*$", before) is not None


def split_same_call(clauses: list[emit.Clause], why: str) -> tuple[list[emit.Clause], list[emit.Clause], str]:
    """With documented state: the clauses about one call that expect different outcomes (by
    their source's expectation) are set apart -- a later call may legitimately differ."""
    groups: dict[str, set[str]] = {}
    for c in clauses:
        if c.key is not None and c.source is not None and getattr(c.source, "call", None) is not None:
            groups.setdefault(c.input_id, set()).add(c.source.expect.source())
    mixed = {k for k, v in groups.items() if len(v) > 1}
    keep = [c for c in clauses if c.key is None or c.input_id not in mixed]
    apart = [c for c in clauses if c.key is not None and c.input_id in mixed]
    reason = (f"the same call is expected to give different outcomes elsewhere, and the description documents "
              f"state between calls ({why}): a later call may legitimately give another result")
    return keep, apart, reason


def unsupported_of(clauses: list[emit.Clause], reason: str) -> list[Unsupported]:
    return [Unsupported(loc=c.source.loc, reason=reason, text=c.source.text) for c in clauses]


__all__ = ["Contradicted", "object_results", "returns_only", "documented_state", "split_same_call",
           "unsupported_of", "STATE_WORDS", "PLAIN_ANNOTATIONS"]
