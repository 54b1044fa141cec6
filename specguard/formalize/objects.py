"""Objects and call histories: observations of fresh objects of the class under test.

The implementation model stays ``impl : Val → Outcome`` over exact inputs.  An observation of a
*fresh* object (built in the test, in ``setUp``, by a function-scoped fixture, or in a doctest
session) is an input of its own: the class, the constructor's arguments, every earlier
interaction with that object in order (method calls, attribute and item reads and writes,
membership tests, builtins applied to it) and the observation itself.  Two such inputs are equal
exactly when the histories are the same, so the assumption the model needs is
:data:`ASSUMPTION`, stated in ``result.json``.  The Lean input is
``Val.pair (Val.pair (Val.str "<object>") <history>) (Val.str <class>)``, which no argument tuple
of a function can produce (those are ``Val.pair (Val.tuple ..) ..`` or
``Val.pair (Val.pair (Val.tuple ..) (Val.dict ..)) ..``).

Soundness rules (a history SpecGuard cannot see completely is no history):

* every interaction is an event, observations included (``len(s)`` may run any code), in
  Python's order; a statement that touches one object twice, conditionally (``or``, ``if``-
  expressions, an assertion's message, a comprehension, a lambda, a loop that is not unrolled,
  ``if``/``try``/``with`` blocks), through an argument that is not an exact value, or in any way
  not listed (passed to a function, aliased ``t = s``, stored in a container, returned, a call on
  the result of a method ``s.child().x()``, a bound method passed around) makes the object
  unsupported from there on, with the reason;
* a mutable value the test still holds that was given to the object (``SortedList(data)``) or
  that a method returned (``r = s.items()``): a later statement that may change it makes the
  object unsupported;
* only fresh objects: module-level objects, class attributes, ``setUpClass`` and fixtures of
  another scope (or requested by another fixture, autouse, parametrized) are never tracked;
  ``self.X`` only when the test class's own ``setUp``/``setup_method`` builds it (and nothing in
  the test may reach ``self`` otherwise);
* the class itself changed or called in the test file (``C.limit = 3``, ``C.reset()``), or a
  test file using time, randomness, threads or the environment (``import time``...), or a
  description that says results vary (time, randomness, shared or global state): unsupported or
  set apart (see :func:`state_problem`).

Arguments and readings that are not plain literals:

* a sentinel ``d = object()`` (the builtin, unshadowed) is an argument of its own, one value per
  evaluation (:meth:`Tracker._opaque_value`, as a lambda's named constant): two tests', two runs'
  or two objects' sentinels are never one input (a class may tell them apart by ``id``), one
  sentinel is the same value wherever the test uses it while that binding lasts;
* a ``try`` whose body is one call statement and whose handlers only ``pass`` (no ``as``, no
  ``else``/``finally``): the call is an event whether it returned or raised what is caught;
* module-level data stays exact only where no code may have changed it (the test reader's rule:
  a mutable module constant handed to any call, the constructor included, loses its value);
  unknown arguments are never given an identity of their own (every observation is itself an
  event, so two observations of one object never share a history: such a key could never meet
  another, and no conflict rests on one);
* what the function under test returns when it is not a class (:attr:`Tracker.fn_mode`,
  :data:`RETURNED_FUNCTION_ASSUMPTION`): ``g = f(2)`` then ``g(3)``; ``f(1)(2)(3)`` (the earlier
  calls are events marked :data:`RESULT_KW`: the rest of the history acts on their result, an
  object only that expression reaches; a named ``g`` whose result is called is not followed
  after it); ``@f`` / ``@f(a)`` on a closed ``def`` in a test's body (``f(F)`` / ``f(a)(F)``,
  ``F`` a new function value per evaluation; never a module-level decorated function, one object
  for all tests); an iterator: ``next(it)`` / ``next(it, d)`` (the builtin, unshadowed), and
  ``list(it)`` / ``tuple(it)`` only once ``next`` advanced it (before that ``list(f(x))`` is the
  walker's term over the call); ``next(f(x))`` reads the first item without reading the rest
  (an infinite iterator is fine);
* a term input (:func:`term_call`): ``len(T) == N`` of an observation in the same expression
  (``len(list(s.elements())) == 11``), and the size ``F(T) == D`` implies (``F`` list, sorted,
  tuple, set, frozenset or dict, ``D`` a display of that kind), is an input of its own: the
  history, the observation and the term ``len(T)`` (:data:`TERM_KW`), whose outcome is an int;
  never for a result bound to a name earlier (something may have read it in between), nor for a
  builtin the test module or the session rebinds (:data:`TERM_ASSUMPTION`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from specguard.python.literals import NotLiteral, eval_literal
from specguard.models import Call, ObjectKey, ObjEvent
from specguard.python.values import V

if TYPE_CHECKING:      # pragma: no cover
    from specguard.models import Task

MARKER = "<object>"
# the keyword of an observation event that names the term applied to its result (a term input,
# see term_inputs); not an identifier, so no call written in a test or a session passes it
TERM_KW = "<term>"
# the keyword of a call event whose result is what the rest of the history acts on (`f(1)(2)(3)`: the
# object `f(1)`, called with 2, its result called with 3); not an identifier, so no call passes it
RESULT_KW = "<result>"
ASSUMPTION = ("a method call's outcome is determined by the class, the constructor arguments and the earlier "
              "calls on that fresh object (no shared state, no time/randomness/environment)")

RETURNED_FUNCTION_ASSUMPTION = (
    "a function or iterator returned by the function under test is a fresh object: the outcome of a call of it "
    "(or of `next` on it) is determined by the arguments it was built with and the earlier calls on it (it shares "
    "no state with other objects the function under test returns)")

# builtins applied to an object: an event (they run the object's code); observed exactly for those
# whose result type Python fixes (len: int, bool: bool) or whose result is a fresh container
_OBSERVING_BUILTINS = frozenset({"len", "list", "tuple", "sorted", "set", "frozenset", "bool"})
_EVENT_BUILTINS = _OBSERVING_BUILTINS | frozenset({"str", "repr", "min", "max", "sum", "any", "all", "dict"})
EXACT_OBSERVATIONS = frozenset({"len", "bool", "isinstance"})      # Python's own result type: int, bool
# comparisons of an object (on the left) with an exact value: an interaction (its class's `__eq__`/`__ne__`
# runs, then Python's fallbacks, all fixed by the object and the value), observed like a method's result
_OP_DUNDER = {"==": "__eq__", "!=": "__ne__"}
_OPS = {ast.Eq: "==", ast.NotEq: "!="}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
_UNITTEST_OPS = {"self.assertEqual": "==", "self.assertEquals": "==", "self.assertNotEqual": "!=",
                 "self.assertNotEquals": "!="}
# test-file modules whose use means the object's results may depend on time, randomness, the
# environment or other threads
_NONDETERMINISTIC_MODULES = frozenset(
    "time random datetime threading multiprocessing concurrent asyncio freezegun uuid secrets tempfile "
    "socket subprocess signal gc weakref sched timeit fcntl select selectors queue".split())
_MAYBE_OBJECT_METHODS = re.compile(r"^(?:copy|__copy__|__deepcopy__|deepcopy|clone|keys|values|items|view\w*|"
                                   r"iter\w*|__iter__|__reversed__|\w*_view|\w*iter)$")


def object_value(k: ObjectKey) -> V:
    """The exact input of an observation, as a value (see the module docstring)."""
    def kw(pairs) -> V:
        return V("tuple", tuple(V("tuple", (V("str", n), v)) for n, v in pairs))

    def ev(e: ObjEvent) -> V:
        return V("tuple", (V("str", e.kind), V("str", e.name), V("tuple", tuple(e.args)), kw(e.kwargs)))
    return V("tuple", (V("str", k.cls), V("tuple", tuple(k.args)), kw(k.kwargs),
                       V("tuple", tuple(ev(e) for e in k.history)), ev(k.obs)))


def lean_object_input(k: ObjectKey) -> str:
    from specguard.kernel.emit import lean_str, lean_val
    return f"(Val.pair (Val.pair (Val.str {lean_str(MARKER)}) {lean_val(object_value(k))}) (Val.str {lean_str(k.cls)}))"


def class_like(name: str | None) -> bool:
    """Whether the entry point is read as a class (CapWords, as ``assumptions.object_results``
    reads it): only then are its results tracked as fresh objects (a function's result bound to
    a name stays a result)."""
    return bool(name) and name.isidentifier() and name[0].isupper() and len(name) > 1 \
        and not name.endswith(("Error", "Exception", "Warning"))


def target_of(cls: str, e: ObjEvent) -> str:
    """How an observation's target reads in reports (``Stack.pop``, ``len(Stack)``; a term input
    ``len(list(Stack.items))``, see :func:`term_inputs`)."""
    term = dict(e.kwargs).get(TERM_KW)
    if term is not None:
        return _term_text(term.val, target_of(cls, _untermed(e)))
    if e.kind in ("call", "attr", "setattr"):
        return f"{cls}.{e.name}"
    if e.kind == "builtin":
        return f"{e.name}({cls})"
    if e.kind == "op":
        return f"{cls}.{_OP_DUNDER.get(e.name, e.name)}"
    owner = f"{cls}.{e.name}" if e.name else cls      # `s.inv[k]`: an item of the attribute
    if e.kind == "getitem" and e.args[:1] == (V("str", "<slice>"),):
        return f"{owner}.__getitem__(slice)"      # its own target: a slice may be an object (method_objects)
    return f"{owner}.__{e.kind}__"


def _untermed(e: ObjEvent) -> ObjEvent:
    return e.model_copy(update={"kwargs": tuple(kv for kv in e.kwargs if kv[0] != TERM_KW)})


def _term_text(term: str, inner: str) -> str:
    """``term`` (over ``result``) with the result spelled ``inner``."""
    from specguard.formalize.speclang import OBS_VAR
    tree = ast.parse(term, mode="eval")
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == OBS_VAR:
            n.id = inner
    return ast.unparse(tree)


def make_call(cls: str, args, kwargs, history, e: ObjEvent) -> Call:
    return Call(target=target_of(cls, e), args=e.args, kwargs=e.kwargs,
                obj=ObjectKey(cls=cls, args=tuple(args), kwargs=tuple(kwargs), history=tuple(history), obs=e))


def is_object_call(call: Call | None) -> bool:
    return call is not None and call.obj is not None


# =====================================================================================
# the test side: one tracker per walker (one run of one test)
# =====================================================================================

@dataclass
class _Obj:
    cls: str
    args: tuple = ()
    kwargs: tuple = ()
    history: list = field(default_factory=list)
    why: str | None = None                  # unsupported from here on (the reason)
    groups: frozenset = frozenset()         # mutable objects the test still holds that it may keep


@dataclass
class _Use:
    key: str | None                         # receiver ("s", "self.s"); None: a fresh construction
    node: ast.AST                           # the receiver expression
    obs: ast.AST | None = None              # the node an assertion reads (None: no observation)
    event: ObjEvent | None = None
    why: str | None = None                  # the use is not understood (the object becomes unsupported)
    fresh: _Obj | None = None               # key None: the constructed object
    contains: bool = False                  # `x in s`: the observation is read at the Compare
    groups: frozenset = frozenset()         # mutable values of the test handed to the object here
    prefix: tuple = ()                      # `g(1)(2)`: calls before the observation whose result is called


class Tracker:
    """Fresh objects of the class under test in one walker (see the module docstring)."""

    def __init__(self, walker: Any) -> None:
        self.w = walker
        self.objs: dict[str, _Obj] = {}
        self.derived: dict[str, str] = {}            # a name bound to a method's result -> receiver
        self.nodes: dict[int, Call | str] = {}       # observation node -> its input (or why not)
        self.contains: dict[int, Call | str] = {}    # receiver node of `x in s` -> its input
        self.uses: list[_Use] = []
        self._class_why: str | None | bool = False   # file-level reason (computed once)
        self._built: tuple[str, _Obj] | None = None   # the statement builds a fresh object
        self._nd: dict[str, str] | None = None        # names of nondeterministic modules in the file
        self.closures: dict[str, ast.FunctionDef] = {}  # functions defined in the test (see closure_effect)
        self.sentinels: dict[str, tuple[Any, V]] = {}     # `d = object()`: name -> (its binding, its value)

    # -- what the walker asks ---------------------------------------------------------
    def active(self) -> bool:
        return bool(self.objs or self.nodes)

    def lookup(self, node: ast.AST) -> Call | str | None:
        return self.nodes.get(id(node))

    def compared(self, expr: ast.Compare) -> Call | str | None:
        """The input a one-operator comparison reads as a whole (``x in s`` and ``x not in s``: one
        input, ``__contains__``; ``s == v``, ``s != v``: the comparison's own result)."""
        op = expr.ops[0]
        if isinstance(op, (ast.In, ast.NotIn)):
            return self.contains.get(id(expr.comparators[0]))
        o = self.contains.get(id(expr.left)) if type(op) in _OPS else None
        if isinstance(o, Call) and not (o.obj.obs.kind == "op" and o.obj.obs.name == _OPS[type(op)]):
            return None
        return o

    def observes(self, node: ast.AST) -> bool:
        return id(node) in self.nodes or (isinstance(node, ast.Call) and id(node.func) in self.nodes)

    def observation(self, node: ast.AST) -> Call | str | None:
        """The input an assertion reads at ``node`` (or why it cannot be read); None: not an object's."""
        o = self.nodes.get(id(node))
        if o is None and isinstance(node, ast.Call):
            o = self.nodes.get(id(node.func))     # `assertRaises(E, s.pop)`: the walker's synthesized call
        if o is None and not self.fn_mode:      # a function's result itself: the walker reads it
            k = self.holds(node)
            if k is not None:
                o = (f"the object `{k}` itself is compared (`==` on it is its class's "
                     "own `__eq__`, and it may be changed by the comparison)")
        return o

    def displays(self, left: ast.expr, op: ast.cmpop, right: ast.expr) -> list[tuple[ast.expr, ast.expr]] | None:
        """``(s.pop(), s.pop()) == (2, 1)``: a tuple (list) display of observations compared with a
        display of the same kind and length, no ``*``; the pairs to compare.  The displays are
        equal exactly when every pair is (tuple and list ``==`` compare lengths, then the items in
        order: ``x is y or x == y``, the same as ``==`` on plain data), and the observations run
        left to right (:func:`_disjoint` decided that they can be read so).  None: not such a
        comparison, or no item is an observation of an object."""
        if not isinstance(op, ast.Eq) or not isinstance(left, (ast.Tuple, ast.List)) or type(right) is not type(left):
            return None
        if len(left.elts) != len(right.elts) or any(isinstance(x, ast.Starred) for x in left.elts + right.elts):
            return None
        if not any(self.observes(x) for x in left.elts):
            return None
        return list(zip(left.elts, right.elts))

    def holds(self, node: ast.AST) -> str | None:
        """The receiver key when ``node`` is a tracked object itself (not an observation of it)."""
        k = _receiver_key(node)
        return k if k is not None and k in self.objs else None

    # -- per statement ------------------------------------------------------------------
    def before(self, stmt: ast.stmt, raises: bool = False) -> None:
        """``raises``: ``stmt`` is a ``pytest.raises`` block the walker reads (its one statement runs)."""
        self.nodes.clear()
        self.contains.clear()
        self.uses = []
        self._built = None
        if self.w.mode != "module" and (class_like(self.w.ctx.target) or self._returns_function(stmt)):
            region = [stmt] if raises else self._region(stmt)
            if region:
                self._scan(stmt, region)
            built = _construction(stmt)
            if built is not None and self._constructs(built[1]):
                self._built = (built[0], self._fresh(built[1]))     # its arguments as they are before the call
            elif self.fn_mode and isinstance(stmt, ast.FunctionDef):
                self._built = self._decorated(stmt)

    @property
    def fn_mode(self) -> bool:
        """The target is a function: the objects tracked are functions it returned (``g = f(2)``,
        then ``g(3)``), observed only through their calls."""
        return not class_like(self.w.ctx.target)

    def _returns_function(self, stmt: ast.stmt) -> bool:
        """A function target: the statement may build or call a function it returned."""
        if not self.w.ctx.target:
            return False
        if self.objs or (isinstance(stmt, ast.FunctionDef) and len(stmt.decorator_list) == 1):
            return True
        return _construction(stmt) is not None or any(
            isinstance(n, ast.Call) and (isinstance(n.func, ast.Call) or (isinstance(n.func, ast.Name) and n.func.id == "next"
                                                                         and n.args and isinstance(n.args[0], ast.Call)))
            for n in ast.walk(stmt))

    def after(self, stmt: ast.stmt) -> None:
        if self.objs or self.derived:
            self._hazards(stmt)
            self._nondeterminism(stmt)
        for u in self.uses:
            if u.key is None:
                continue
            o = self.objs.get(u.key)
            if o is None or o.why is not None:
                continue
            if u.why is not None:
                o.why = u.why
            elif u.prefix:
                # `g(1)(2)`: `g` was called, then its result: what that may do to `g` is not followed
                o.why = f"had the result of a call of it called (line {stmt.lineno}): what that does to it is not followed"
            elif u.event is not None:
                o.history.append(u.event)
                o.groups = o.groups | u.groups
                if self.fn_mode and u.key in self.w.scope.locals:
                    # called: a function, not plain data; the name no longer reads as the result
                    from specguard.formalize.tests import _opaque
                    how = "advanced by `next`" if u.event.kind == "builtin" else "called"
                    self.w.scope.bind(u.key, _opaque(f"{'an object' if how != 'called' else 'a function'} returned by "
                                                     f"`{self.w.ctx.target}`, {how} at line {stmt.lineno}"))
        if self.objs or self.derived:
            self._rebinds(stmt)
        self._construct(stmt)
        self._sentinel(stmt)
        self.uses = []          # applied once (a statement read inside another one is not applied again)
        self._built = None

    def opaque(self, stmt: ast.stmt, where: str) -> None:
        """A statement the walker does not follow (a branch, a loop it does not unroll, a block):
        an object it mentions has an unknown history from there on.  Except a ``try`` that only
        swallows exceptions of one call (:func:`_swallowing_try`): its call is an event either way."""
        body = _swallowing_try(stmt) if self.objs else None
        if body is not None and self._mentioned(body) and not (self._mentioned(stmt) - self._mentioned(body)):
            self.before(body)
            self.after(body)
            return
        for k in self._mentioned(stmt):
            o = self.objs.get(k)
            if o is not None and o.why is None:
                o.why = f"is used in {where}, whose effect is not followed"

    def closure_effect(self, call: ast.Call) -> bool:
        """``ck(...)`` called for its effect, ``ck`` a function defined in this test that reaches
        nothing but its parameters, its locals, pure builtins and the test's own names (no
        ``global``/``nonlocal``, no module or imported name, no yield, lambda or nested class):
        it cannot change shared state, only what the test holds.  So it does not block what
        follows: every test name it reaches loses its value, every object it reaches its
        history (from ``opaque`` at its definition).  False: not such a call."""
        from specguard.formalize.tests import _builtin_unshadowed, _opaque
        from specguard.python.purity import PURE_BUILTINS
        f = call.func
        fn = self.closures.get(f.id) if isinstance(f, ast.Name) else None
        b = self.w.scope.locals.get(f.id) if fn is not None else None
        if fn is None or b is None or b.origin != "def" or not self.objects_target() or fn.decorator_list \
                or fn.args.defaults or any(d is not None for d in fn.args.kw_defaults):
            return False
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return False
        try:
            self._args(call.args, call.keywords)
        except _NotExact:
            return False
        args = fn.args
        bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a}
        loads: set[str] = set()
        for n in ast.walk(ast.Module(body=fn.body, type_ignores=[])):
            if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.ClassDef,
                              ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom)):
                return False
            if isinstance(n, ast.Name):
                (loads if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        reached = set()
        for x in loads - bound:
            if x in self.w.scope.locals:
                reached.add(x)
            elif not (x in PURE_BUILTINS and _builtin_unshadowed(self.w, x)):
                return False
        for x in sorted(reached):
            o = self.objs.get(x)
            if o is not None and o.why is None:
                o.why = f"is reached by the local function `{f.id}` called at line {call.lineno}"
            why = f"may be changed by the local function `{f.id}` called at line {call.lineno}"
            old = self.w.scope.locals[x]      # the same object: it keeps what it may share (aliasing.py)
            self.w.scope.bind(x, replace(old.invalid(why), mutable=True) if old.groups else _opaque(why))
        return True

    def objects_target(self) -> bool:
        return self.w.mode != "module" and class_like(self.w.ctx.target)

    # -- seeding (setUp, fixtures) ------------------------------------------------------
    def seed(self, key: str, obj: _Obj) -> None:
        self.objs[key] = obj

    # ------------------------------------------------------------------------------------
    def _cls_problem(self) -> str | None:
        if self._class_why is False:
            self._class_why = class_problem(self.w.ctx.file.tree, self.w.ctx.target)
        return self._class_why or None

    def _region(self, stmt: ast.stmt) -> list[ast.AST]:
        from specguard.formalize import tests as ft
        if isinstance(stmt, ast.For):
            return [stmt.iter, stmt.target]
        if isinstance(stmt, ast.With):
            cms = [i.context_expr for i in stmt.items]
            quals = [self.w.ctx.qual(c.func) if isinstance(c, ast.Call) else None for c in cms]
            if len(cms) == 1 and quals[0] in ft._RAISES_APIS:
                return [stmt]
            if all(q in ft._INLINE_CMS for q in quals):
                return list(cms)
            return []       # opaque: the walker calls opaque()
        if isinstance(stmt, (ast.If, ast.While, ast.Try, ast.Match, ast.AsyncFor, ast.AsyncWith)) or \
                type(stmt).__name__ == "TryStar":
            return []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.opaque(stmt, f"the nested `{stmt.name}` at line {stmt.lineno}")
            if isinstance(stmt, ast.FunctionDef):
                self.closures[stmt.name] = stmt
            return []
        return [stmt]

    def _mentioned(self, node: ast.AST) -> set[str]:
        out: set[str] = set()
        for n in ast.walk(node):
            k = _receiver_key(n)
            if k is not None and k in self.objs:
                out.add(k)
            elif isinstance(n, ast.Name) and n.id in self.derived:
                out.add(self.derived[n.id])
            elif isinstance(n, ast.Name) and n.id == "self":
                out |= {k for k in self.objs if k.startswith("self.")}
        return out

    def _scan(self, stmt: ast.stmt, region: list[ast.AST]) -> None:
        parents: dict[int, ast.AST] = {}
        found: list[ast.AST] = []
        fresh: list[ast.Call] = []
        selfs: list[ast.Name] = []
        for top in region:
            for n in ast.walk(top):
                for c in ast.iter_child_nodes(n):
                    parents[id(c)] = n
                k = _receiver_key(n)
                if k is not None and k in self.objs:
                    if isinstance(getattr(n, "ctx", None), ast.Load):
                        found.append(n)
                elif isinstance(n, ast.Call) and self._constructs(n):
                    fresh.append(n)
                elif isinstance(n, ast.Name) and n.id == "self" and any(k.startswith("self.") for k in self.objs):
                    selfs.append(n)
        if not (found or fresh or selfs):
            return
        assertion = isinstance(stmt, ast.Assert) or (isinstance(stmt, ast.Expr)
                                                     and self.w.ctx.is_assertion_call(stmt.value))
        inner = {id(n.value) for n in found if isinstance(n, ast.Attribute)}    # `self` of `self.s`
        for n in selfs:
            if id(n) in inner:
                continue
            p = parents.get(id(n))
            if isinstance(p, ast.Attribute) and isinstance(parents.get(id(p)), ast.Call) and \
                    parents[id(p)].func is p and (self.w.ctx.is_assertion_call(parents[id(p)])
                                                  or (self.w.ctx.qual(p) or "") in ("self.subTest",)):
                continue
            if isinstance(p, ast.Attribute) and not isinstance(parents.get(id(p)), ast.Call) \
                    and _receiver_key(p) is not None:
                continue        # `self.x` read (another attribute)
            for k in self.objs:
                if k.startswith("self."):
                    self.uses.append(_Use(k, n, why=f"may be reached through `self` (`{_src(p or n)}` at line "
                                                     f"{n.lineno})"))
        counts: dict[str, int] = {}
        for n in found:
            k = _receiver_key(n)
            counts[k] = counts.get(k, 0) + 1
        found.sort(key=lambda n: (n.lineno, n.col_offset))       # Python's order where uses are disjoint
        classified = [(n, self._classify(stmt, n, parents, assertion, _receiver_key(n))) for n in found]
        earlier: dict[str, list[ObjEvent]] = {}
        for n, u in classified:
            k = _receiver_key(n)
            o = self.objs[k]
            if counts[k] > 1 and u.why is None and not (isinstance(stmt, ast.Assert)
                                                        and _disjoint([x for x, _ in classified if _receiver_key(x) == k],
                                                                      [v for x, v in classified if _receiver_key(x) == k],
                                                                      parents)):
                u.why = f"is used more than once in one statement (line {stmt.lineno}): the order of the calls is " \
                        "not followed"
            self._record(u, o, earlier.setdefault(k, []))
            if u.event is not None:
                earlier[k].append(u.event)
        for n in fresh:
            u = self._classify(stmt, n, parents, assertion, None)
            if u.event is None and u.why is None:
                continue        # a construction that is not observed here (`s = C()`, `C() == x`)
            o = self._fresh(n)
            self._record(u, o)

    def _record(self, u: _Use, o: _Obj, earlier: list | None = None) -> None:
        """``earlier``: events of this statement that run before this use (an assertion's
        operands, left to right)."""
        why = o.why or u.why or (self._cls_problem() if u.event is not None else None)
        if u.obs is not None:
            value: Call | str = f"the object `{_src(u.node)}` {why}" if why else \
                make_call(o.cls, o.args, o.kwargs, list(o.history) + list(earlier or ()) + list(u.prefix), u.event)
            self.nodes[id(u.obs)] = value
            if u.contains:
                self.contains[id(u.node)] = value
        self.uses.append(u)

    def _fresh(self, call: ast.Call) -> _Obj:
        o = _Obj(cls=self.w.ctx.target)
        try:
            o.args, o.kwargs, o.groups = self._args(call.args, call.keywords)
        except _NotExact as e:
            o.why = f"is built with {e.reason}"
        return o

    def _constructs(self, n: ast.Call) -> bool:
        """A call of the class under test (its construction), as the walker names it."""
        f = n.func
        if not isinstance(f, ast.Name) or f.id not in self.w.ctx.target_names:
            b = self.w.scope.binding(f.id) if isinstance(f, ast.Name) else None
            if not (b is not None and b.origin == "entry"):
                return False
        return self.w.receiver_problem(f) is None

    # -- one use of a receiver ------------------------------------------------------------
    def _classify(self, stmt: ast.stmt, n: ast.AST, parents: dict[int, ast.AST], assertion: bool,
                  key: str | None) -> _Use:
        line = getattr(n, "lineno", stmt.lineno)
        u = _Use(key, n)
        why = self._context_problem(stmt, n, parents, assertion)
        p = parents.get(id(n))
        g = parents.get(id(p)) if p is not None else None
        if self.fn_mode:
            return self._classify_returned(stmt, n, p, parents, key, u, why)
        try:
            if why is not None:
                pass
            elif isinstance(p, ast.Attribute) and p.value is n and isinstance(p.ctx, ast.Load):
                if isinstance(g, ast.Call) and g.func is p:
                    args, kwargs, groups = self._args(g.args, g.keywords)
                    u.event, u.obs = ObjEvent(kind="call", name=p.attr, args=args, kwargs=kwargs), g
                    why = self._result_problem(g, parents)
                    u.groups = groups
                elif isinstance(g, ast.Call) and self._raises_callable(g, p):
                    at = 2 if (self.w.ctx.qual(g.func) or "").endswith("Regex") else 1
                    args, kwargs, groups = self._args(g.args[at + 1:], [k for k in g.keywords if k.arg != "msg"])
                    u.event, u.obs = ObjEvent(kind="call", name=p.attr, args=args, kwargs=kwargs), p
                    u.groups = groups
                elif isinstance(g, ast.Call) and p in g.args and not (
                        g.args == [p] and not g.keywords and isinstance(g.func, ast.Name)
                        and g.func.id in _OBSERVING_BUILTINS and g.func.id not in self.w.scope):
                    why = f"hands its bound method `{_src(p)}` to other code (line {line})"
                elif isinstance(g, ast.Subscript) and g.value is p:
                    # `s.inv[k]`, `del s.inv[k]`: the attribute's value is reached only through the object
                    # here, so reading it and using its item is one interaction of the object
                    why = self._item(stmt, g, p.attr, parents, u)
                else:
                    u.event, u.obs = ObjEvent(kind="attr", name=p.attr), p
                    why = self._result_problem(p, parents)
            elif isinstance(p, ast.Attribute) and p.value is n and isinstance(p.ctx, ast.Store):
                value = _assigned_value(stmt, p)
                if value is None:
                    why = f"has its attribute set in a form that is not followed (line {line})"
                else:
                    args, _, groups = self._args([value], [])
                    u.event = ObjEvent(kind="setattr", name=p.attr, args=args)
                    u.groups = groups
            elif isinstance(p, ast.Subscript) and p.value is n:
                why = self._item(stmt, p, "", parents, u)
            elif isinstance(p, ast.Call) and p.args == [n] and not p.keywords and isinstance(p.func, ast.Name) \
                    and p.func.id in _EVENT_BUILTINS and p.func.id not in self.w.scope:
                u.event = ObjEvent(kind="builtin", name=p.func.id)
                if p.func.id in _OBSERVING_BUILTINS:
                    u.obs = p
                    why = self._result_problem(p, parents)
            elif isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id == "isinstance" \
                    and "isinstance" not in self.w.scope and len(p.args) == 2 and p.args[0] is n and not p.keywords:
                u.event, u.obs = _isinstance_event(p.args[1]), p
            elif isinstance(p, ast.Compare) and len(p.ops) == 1 and isinstance(p.ops[0], (ast.In, ast.NotIn)) \
                    and p.comparators[0] is n:
                args, _, groups = self._args([p.left], [])
                u.event, u.obs, u.contains = ObjEvent(kind="contains", args=args), p, True
                u.groups = groups
            elif isinstance(p, ast.Compare) and len(p.ops) == 1 and type(p.ops[0]) in _OPS and p.left is n \
                    and key is not None:
                # (an unnamed `C(1, 2) == v` stays the walker's: the construction's result, compared,
                # whose raising is seen by `pytest.raises(E): C(1, 2)` too)
                # `s == v`: read at the Compare (`assert s == v`) or as a value (`(s == v) == False`)
                args, _, groups = self._args(p.comparators, [])
                u.event, u.obs, u.contains = ObjEvent(kind="op", name=_OPS[type(p.ops[0])], args=args), p, True
                u.groups = groups
                why = self._result_problem(p, parents)
            elif isinstance(p, ast.Call) and (self.w.ctx.qual(p.func) or "") in _UNITTEST_OPS and len(p.args) == 2 \
                    and not p.keywords and p.args[0] is n and key is not None:
                # `assertEqual(s, v)` runs `s == v` (`assertNotEqual`: `s != v`); the types differ, so no
                # type-specific comparison is used
                args, _, groups = self._args(p.args[1:], [])
                op = _UNITTEST_OPS[self.w.ctx.qual(p.func) or ""]
                u.event, u.obs, u.contains = ObjEvent(kind="op", name=op, args=args), p, True
                u.groups = groups
            elif isinstance(p, ast.BinOp) and p.left is n and type(p.op) in _BINOPS:
                why = self._binop(p, parents, u)
            elif isinstance(p, ast.Call) and self._assert_in(p, n):
                args, _, groups = self._args([p.args[0]], [])
                u.event, u.obs, u.contains = ObjEvent(kind="contains", args=args), p, True
                u.groups = groups
            elif self._truth(stmt, n, p, parents):
                u.event, u.obs = ObjEvent(kind="builtin", name="bool"), n
            elif isinstance(p, ast.Expr):
                pass            # `s` alone: evaluating a name does nothing
            elif key is None:
                return u        # a construction not observed here
            else:
                why = f"is used in a way that may change or share it (`{_src(p or n)}` at line {line})"
        except _NotExact as e:
            why = f"is called with {e.reason} (line {line})"
        if why is not None:
            u.why = why
            if u.obs is None and key is None:
                u.obs = p
        return u

    def _classify_returned(self, stmt: ast.stmt, n: ast.AST, p: ast.AST | None, parents: dict[int, ast.AST],
                           key: str | None, u: _Use, why: str | None) -> _Use:
        """A function the function under test returned: a call of it (``g(3)``, ``f(2)(3)``) is an
        observation; any other use leaves the name to the walker (the result as plain data) and ends
        the history (it may change what later calls see)."""
        line = getattr(n, "lineno", stmt.lineno)
        advanced = self._next_of(p, n)
        listed = key is not None and self._listed_after_next(p, n, key)
        if not (isinstance(p, ast.Call) and p.func is n) and not advanced and not listed:
            if key is not None:
                u.why = f"is used otherwise than called (`{_src(p or n)}` at line {line})"
            return u
        try:
            if why is not None:
                pass
            elif advanced:
                # `next(it)` / `next(it, d)`: the builtin calls the object's `__next__` (a TypeError
                # when it has none, `d` returned on StopIteration): one interaction, observed
                args, _, u.groups = self._args(p.args[1:], [])
                u.event, u.obs = ObjEvent(kind="builtin", name="next", args=args), p
                why = self._result_problem(p, parents)
            elif listed:
                # `list(it)` after `next(it)`: what is left of the iterator, read to its end (one
                # interaction of the object, its result a fresh list or tuple)
                assert isinstance(p, ast.Call) and isinstance(p.func, ast.Name)
                u.event, u.obs = ObjEvent(kind="builtin", name=p.func.id), p
                why = self._result_problem(p, parents)
            else:
                args, kwargs, u.groups = self._args(p.args, p.keywords)
                u.event, u.obs = ObjEvent(kind="call", name="__call__", args=args, kwargs=kwargs), p
                prefix, top = [], p
                while isinstance(g := parents.get(id(top)), ast.Call) and g.func is top and len(prefix) < 8:
                    # `f(1)(2)(3)`: the result of a call called in turn; the earlier calls are events
                    # marked `RESULT_KW` (what is observed from there on is that call's result, an
                    # object of its own that only this expression reaches)
                    prefix.append(u.event.model_copy(update={"kwargs": u.event.kwargs + ((RESULT_KW, V("bool", True)),)}))
                    args, kwargs, groups = self._args(g.args, g.keywords)
                    u.event, u.obs, u.groups, top = (ObjEvent(kind="call", name="__call__", args=args, kwargs=kwargs),
                                                     g, u.groups | groups, g)
                u.prefix = tuple(prefix)
                why = self._result_problem(top, parents)
        except _NotExact as e:
            why = f"is called with {e.reason} (line {line})"
        if why is not None:
            u.why = why
            u.obs = u.obs or p
        return u

    def _decorated(self, fn: ast.FunctionDef) -> tuple[str, _Obj] | None:
        """``@f`` / ``@f(a, k=v)`` on a ``def`` in the test (its only decorator), the function
        closed and plain (:func:`specguard.formalize.tests.function_value`'s rule: it reads nothing
        but its parameters, its locals and pure builtins): the name is bound to ``f(F)`` /
        ``f(a, k=v)(F)``, a function the function under test returned, ``F`` a new function value
        at every evaluation of the ``def``.  Only in a test's body: a decorated function of the
        module is one object for all its tests (its state, a cache, is shared)."""
        from specguard.formalize.tests import _closed_function
        from specguard.python.values import FUNCTION
        d = fn.decorator_list[0] if len(fn.decorator_list) == 1 else None
        call = d if isinstance(d, ast.Call) else None
        head = call.func if call is not None else d
        if head is None or not self.w.denotes_entry(head) or not _closed_function(self.w, fn.args, fn.body):
            return None
        n = self.w.ctx.__dict__.get("_lambda_evaluations", 0) + 1
        self.w.ctx._lambda_evaluations = n
        fv = V(FUNCTION, (f"def:{self.w.ctx.file.path}:{fn.name}:{fn.lineno}#{n}", fn.name))
        if call is None:
            return fn.name, _Obj(cls=self.w.ctx.target, args=(fv,))
        o = self._fresh(call)
        o.history.append(ObjEvent(kind="call", name="__call__", args=(fv,), kwargs=((RESULT_KW, V("bool", True)),)))
        return fn.name, o

    def _next_of(self, p: ast.AST | None, n: ast.AST) -> bool:
        """``p`` is ``next(n)`` or ``next(n, d)``, ``next`` surely the builtin."""
        from specguard.formalize.tests import _builtin_unshadowed
        return isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id == "next" \
            and 1 <= len(p.args) <= 2 and p.args[0] is n and not p.keywords \
            and not any(isinstance(a, ast.Starred) for a in p.args) and _builtin_unshadowed(self.w, "next")

    def _listed_after_next(self, p: ast.AST | None, n: ast.AST, key: str) -> bool:
        """``list(it)`` / ``tuple(it)`` of a returned object already advanced by ``next`` (only then:
        ``list(f(x))`` of an untouched result stays the walker's term over the call)."""
        from specguard.formalize.tests import _builtin_unshadowed
        o = self.objs.get(key)
        return o is not None and any(e.kind == "builtin" and e.name == "next" for e in o.history) \
            and isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id in ("list", "tuple") \
            and p.args == [n] and not p.keywords and _builtin_unshadowed(self.w, p.func.id)

    def _binop(self, p: ast.BinOp, parents: dict[int, ast.AST], u: _Use) -> str | None:
        """``s - v`` (``+ - * & | ^``) with an exact ``v``, its result discarded or only shown
        (``repr(s - v)`` as a statement): an event (the operator's method runs); how the result
        was used is part of it (its repr may run code of the object).  A result used otherwise
        (bound, observed, handed on) is another object: not followed."""
        args, _, u.groups = self._args([p.right], [])
        top = parents.get(id(p))
        then = ""
        if isinstance(top, ast.Call) and top.args == [p] and not top.keywords and isinstance(top.func, ast.Name) \
                and top.func.id in ("repr", "str") and top.func.id not in self.w.scope:
            then, top = top.func.id, parents.get(id(top))
        if not isinstance(top, ast.Expr):
            return f"has the result of `{_src(p)}` used (line {p.lineno}): objects an operator builds are not followed"
        u.event = ObjEvent(kind="op", name=_BINOPS[type(p.op)], args=args,
                           kwargs=((("then", V("str", then)),) if then else ()))
        return None

    def _item(self, stmt: ast.stmt, p: ast.Subscript, attr: str, parents: dict[int, ast.AST], u: _Use) -> str | None:
        """``s[k]`` (``attr`` empty) or ``s.attr[k]``: read, set or deleted; the event (and the
        observation of a read) into ``u``; returns why it is not followed, or None."""
        k = self._slice(p.slice)
        if isinstance(p.ctx, ast.Load):
            u.event, u.obs = ObjEvent(kind="getitem", name=attr, args=k), p
            return self._result_problem(p, parents)
        if isinstance(p.ctx, ast.Store):
            value = _assigned_value(stmt, p)
            if value is None:
                return f"has an item set in a form that is not followed (line {getattr(p, 'lineno', stmt.lineno)})"
            args, _, u.groups = self._args([value], [])
            u.event = ObjEvent(kind="setitem", name=attr, args=k + args)
            return None
        u.event = ObjEvent(kind="delitem", name=attr, args=k)
        return None

    def _context_problem(self, stmt: ast.stmt, n: ast.AST, parents: dict[int, ast.AST], assertion: bool) -> str | None:
        """A use whose execution is conditional or deferred."""
        line = getattr(n, "lineno", stmt.lineno)
        cur = n
        while id(cur) in parents:
            p = parents[id(cur)]
            if isinstance(p, ast.BoolOp) and not (assertion and isinstance(p.op, ast.And)):
                return f"is used under `{'or' if isinstance(p.op, ast.Or) else 'and'}` (line {line}): the call may " \
                       "not run"
            if isinstance(p, ast.IfExp):
                return f"is used in a conditional expression (line {line})"
            if isinstance(p, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.FunctionDef,
                              ast.AsyncFunctionDef, ast.ClassDef)):
                return f"is used in a comprehension or nested function (line {line})"
            if isinstance(p, ast.Lambda) and not self._raises_lambda(p, parents):
                return f"is used in a lambda (line {line}): when it runs is not followed"
            if isinstance(p, ast.Assert) and cur is p.msg:
                return f"is used in an assertion's message (line {line}), which runs only on failure"
            if isinstance(p, ast.NamedExpr):
                return f"is used in `:=` (line {line})"
            if isinstance(p, ast.Starred):
                return f"is unpacked with `*` (line {line})"
            cur = p
        return None

    def _raises_callable(self, g: ast.Call, p: ast.AST) -> bool:
        q = self.w.ctx.qual(g.func) or ""
        method = q.rsplit(".", 1)[-1]
        at = 2 if method.endswith("Regex") else 1
        return (q == "pytest.raises" or (q.startswith("self.") and method.startswith("assertRaises"))) \
            and len(g.args) > at and g.args[at] is p

    def _raises_lambda(self, lam: ast.Lambda, parents: dict[int, ast.AST]) -> bool:
        g = parents.get(id(lam))
        return isinstance(g, ast.Call) and self._raises_callable(g, lam) and isinstance(lam.body, ast.Call)

    def _assert_in(self, p: ast.Call, n: ast.AST) -> bool:
        q = self.w.ctx.qual(p.func) or ""
        return q in ("self.assertIn", "self.assertNotIn") and len(p.args) >= 2 and p.args[1] is n

    def _truth(self, stmt: ast.stmt, n: ast.AST, p: ast.AST | None, parents: dict[int, ast.AST]) -> bool:
        if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not):
            return self._truth(stmt, p, parents.get(id(p)), parents) or False
        if isinstance(p, ast.Assert) and p.test is n:
            return True
        if isinstance(p, ast.BoolOp) and isinstance(p.op, ast.And):
            return isinstance(stmt, ast.Assert)
        if isinstance(p, ast.Call) and (self.w.ctx.qual(p.func) or "") in ("self.assertTrue", "self.assertFalse") \
                and p.args[:1] == [n]:
            return True
        return False

    def _result_problem(self, obs: ast.AST, parents: dict[int, ast.AST]) -> str | None:
        """The result of an observation used as an object (``s.child().x()``) or handed to code that
        may change it (it may be the object's own internal value)."""
        p = parents.get(id(obs))
        line = getattr(obs, "lineno", 0)
        if isinstance(p, ast.Attribute) and p.value is obs:
            return f"has a method or attribute of a result used (`{_src(p)}` at line {line}): calls on results " \
                   "of method calls are not followed"
        if isinstance(p, ast.Call) and p.func is obs:
            return f"has a result called (`{_src(p)}` at line {line})"
        if isinstance(p, ast.Subscript) and p.value is obs and not isinstance(p.ctx, ast.Load):
            return f"has a result changed in place (line {line})"
        if isinstance(p, ast.Call) and not self.w.ctx.is_assertion_call(p) and not self.w.safe_call(p):
            return f"has a result handed to `{_src(p.func)}` (line {line}), which may change it"
        return None

    def _slice(self, s: ast.expr) -> tuple:
        if isinstance(s, ast.Slice):
            parts = []
            for x in (s.lower, s.upper, s.step):
                parts.append(V("none") if x is None else self._exact(x))
            return (V("str", "<slice>"), *parts)
        return (self._exact(s),)

    def _sentinel(self, stmt: ast.stmt) -> None:
        """``d = object()`` in the test: ``d`` holds one plain sentinel from here on (while that
        binding lasts), an argument of its own (:meth:`_opaque_value`)."""
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and self._is_sentinel(stmt.value):
            name = stmt.targets[0].id
            b = self.w.scope.locals.get(name)
            if b is not None:
                self.sentinels[name] = (b, self._opaque_value(stmt.value))

    def _is_sentinel(self, node: ast.expr) -> bool:
        from specguard.formalize.tests import _builtin_unshadowed
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "object" \
            and not node.args and not node.keywords and _builtin_unshadowed(self.w, "object")

    def _opaque_value(self, node: ast.expr) -> V:
        """The value an evaluation of ``object()`` is as an argument: one key per evaluation
        (per test, per run of a loop or a parametrized row: a new object every time, as a
        lambda's, :func:`specguard.formalize.tests.function_value`), so no two tests, runs or
        objects share it and no conflict rests on two sentinels being alike (a class may tell
        them apart by ``id``).  A plain ``object()`` has no state a call could change."""
        from specguard.python.values import FUNCTION
        n = self.w.ctx.__dict__.get("_object_evaluations", 0) + 1
        self.w.ctx._object_evaluations = n
        return V(FUNCTION, (f"object:{self.w.ctx.file.path}:{node.lineno}:{node.col_offset}#{n}",
                            f"<object() at line {node.lineno}>"))

    def _exact(self, node: ast.expr) -> V:
        from specguard.formalize.tests import function_value
        if isinstance(node, ast.Name) and node.id in self.sentinels:
            b, v = self.sentinels[node.id]
            if self.w.scope.locals.get(node.id) is b:
                return v
        if self._is_sentinel(node):
            return self._opaque_value(node)
        try:
            return eval_literal(node, self.w.scope)
        except NotLiteral as e:
            fn = function_value(self.w, node)     # `key=neg`, `key=len`, a closed lambda: a named constant
            if fn is not None:
                return fn
            raise _NotExact(f"an argument that is not an exact value ({e.reason})") from None

    def is_sentinel(self, name: str) -> bool:
        """``name`` still holds the plain ``object()`` bound to it (which can hold no reference)."""
        return name in self.sentinels and self.sentinels[name][0] is self.w.scope.binding(name)

    def _args(self, args: list[ast.expr], keywords: list[ast.keyword]) -> tuple[tuple, tuple, frozenset]:
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
            raise _NotExact("`*`/`**` arguments")
        vals = tuple(self._exact(a) for a in args)
        kw = tuple((k.arg, self._exact(k.value)) for k in keywords)
        groups: set = set()
        for e in list(args) + [k.value for k in keywords]:
            for name in {x.id for x in ast.walk(e) if isinstance(x, ast.Name)}:
                b = self.w.scope.binding(name)
                if name in self.sentinels and self.sentinels[name][0] is b:
                    continue        # a plain `object()`: nothing can change it
                if b is not None and b.mutable:
                    groups |= set(b.groups)
        return vals, kw, frozenset(groups)


    # -- after a statement ------------------------------------------------------------
    def _hazards(self, stmt: ast.stmt) -> None:
        names = {name for name, _ in self.w.hazards(stmt) if name}
        if not names:
            return
        for name in names:
            if name in self.derived:
                o = self.objs.get(self.derived[name])
                if o is not None and o.why is None:
                    o.why = f"returned `{name}`, which may be changed at line {stmt.lineno} (it may be the " \
                            "object's own value)"
            b = self.w.scope.binding(name)
            if b is None:
                continue
            for k, o in self.objs.items():
                if o.why is None and o.groups & b.groups and name != k:
                    o.why = f"was given `{name}`, which may be changed at line {stmt.lineno}"

    def _nondeterminism(self, stmt: ast.stmt) -> None:
        """A statement using time, randomness, threads (``time.sleep(2)``): what the objects do from
        here on may depend on more than their histories."""
        if self._nd is None:
            self._nd = nondeterministic_names(self.w.ctx.file.tree)
        if not self._nd:
            return
        used = sorted({n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)} & set(self._nd))
        if used:
            for o in self.objs.values():
                if o.why is None:
                    o.why = f"follows a use of `{used[0]}` (line {stmt.lineno}): what it does may depend on time, " \
                            "randomness, threads or the environment"

    def _rebinds(self, stmt: ast.stmt) -> None:
        stored: set[str] = set()
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                stored.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
                k = _receiver_key(n)
                if k is not None:
                    stored.add(k)
        if isinstance(stmt, (ast.For, ast.With, ast.If, ast.While, ast.Try)):
            stored |= set(self.w.ctx.stored_names(stmt))
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(stmt.name)               # `def g(...)` rebinds `g` (a decorated one is built again below)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            stored |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        for k in stored:
            self.objs.pop(k, None)
            self.derived.pop(k, None)

    def _construct(self, stmt: ast.stmt) -> None:
        if self.w.mode == "module":
            return
        if self._built is not None:
            k, o = self._built
            if not (self.fn_mode and k.startswith("self.")):
                self.objs[k] = o
                self.derived.pop(k, None)
            return
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            t, v = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            t, v = stmt.target, stmt.value
        else:
            return
        if _receiver_key(t) is None:
            return
        for u in self.uses:
            if u.obs is v and u.key is not None and isinstance(t, ast.Name):
                self.derived[t.id] = u.key


def _construction(stmt: ast.stmt) -> tuple[str, ast.Call] | None:
    """``s = C(...)`` / ``self.s = C(...)``: (receiver, call); the caller checks that C is the class."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t, v = stmt.targets[0], stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        t, v = stmt.target, stmt.value
    else:
        return None
    k = _receiver_key(t)
    return (k, v) if k is not None and isinstance(v, ast.Call) else None


def _swallowing_try(stmt: ast.stmt) -> ast.Expr | None:
    """``try: s.discard(5) / except KeyError: pass`` (handlers that only ``pass``, bind no name;
    no ``else``, no ``finally``): the one call statement of its body, or None.  Whether the call
    returned or raised one of the exceptions caught, it ran, the test goes on, and what the object
    does next is fixed by its history with that call in it (the call's outcome is not read; an
    exception not caught ends the test)."""
    if not isinstance(stmt, ast.Try) or stmt.orelse or stmt.finalbody or len(stmt.body) != 1:
        return None
    body = stmt.body[0]
    if not (isinstance(body, ast.Expr) and isinstance(body.value, ast.Call)):
        return None
    for h in stmt.handlers:
        if h.name is not None or not all(isinstance(b, ast.Pass) or (isinstance(b, ast.Expr) and
                                         isinstance(b.value, ast.Constant)) for b in h.body):
            return None
        if h.type is not None and not all(isinstance(t, (ast.Name, ast.Attribute)) for t in
                                          (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])):
            return None
    return body


def _disjoint(nodes: list[ast.AST], uses: list[_Use], parents: dict[int, ast.AST]) -> bool:
    """Uses of one object in one ``assert`` that run left to right, each once: none lies inside
    another's expression (``s.m(s.n())`` runs ``n`` first), and every one sits under operands
    Python always evaluates when the assertion passes (comparisons, ``and``, calls' arguments,
    containers; never ``or``, ``if``-expressions, lambdas or comprehensions: _context_problem)."""
    tops = []
    for n, u in zip(nodes, uses):
        if u.event is None:
            return False
        top = u.obs if u.obs is not None else parents.get(id(n), n)
        tops.append({id(x) for x in ast.walk(top)})
    return all(id(n) not in t for i, n in enumerate(nodes) for j, t in enumerate(tops) if i != j)


class _NotExact(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _isinstance_event(types: ast.expr) -> ObjEvent:
    """``isinstance(s, T)``: an event (``__class__`` may be looked up on the object) whose result is
    an exact bool; ``T`` is kept as written (two spellings of one type are two inputs)."""
    return ObjEvent(kind="builtin", name="isinstance", args=(V("str", _src(types, 200)),))


def _receiver_key(n: ast.AST) -> str | None:
    if isinstance(n, ast.Name):
        return n.id
    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
        return f"self.{n.attr}"
    return None


def _assigned_value(stmt: ast.stmt, target: ast.AST) -> ast.expr | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is target:
        return stmt.value
    if isinstance(stmt, ast.AnnAssign) and stmt.target is target and stmt.value is not None:
        return stmt.value
    return None


def _src(node: ast.AST, limit: int = 50) -> str:
    try:
        s = ast.unparse(node)
    except Exception:        # pragma: no cover - unparse of a synthesized node
        s = type(node).__name__
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


# =====================================================================================
# file-level facts: the class itself changed or called, nondeterminism
# =====================================================================================

def class_problem(tree: ast.Module, cls: str | None) -> str | None:
    """Why no observation of an object of ``cls`` in this test file can be trusted, or None."""
    if not cls:
        return None
    names = nondeterministic_names(tree)
    for st in tree.body:        # module-level code using time, randomness, threads (`random.seed(0)`)
        if isinstance(st, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(st, ast.If) and _main_guard(st.test):
            continue        # `if __name__ == '__main__':` does not run under pytest
        used = sorted({x.id for x in ast.walk(st) if isinstance(x, ast.Name)} & set(names))
        if used:
            return f"is in a test file whose module-level code uses `{used[0]}` (line {st.lineno}): its results may " \
                   "depend on time, randomness, threads or the environment"
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == cls:
            if isinstance(n.ctx, (ast.Store, ast.Del)):
                return f"has its class changed (`{cls}.{n.attr}` set at line {n.lineno}): state shared by its objects"
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == cls:
            return f"has its class's own method called (`{cls}.{n.func.attr}(...)` at line {n.lineno}), which may " \
                   "change state shared by its objects"
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == cls
                                           for a in list(n.args) + [k.value for k in n.keywords]) \
                and not (isinstance(n.func, ast.Name) and n.func.id in ("isinstance", "issubclass", "type", "id")):
            return f"has its class handed to `{_src(n.func)}` at line {n.lineno} (which may change it: a patch, " \
                   "a registry)"
        if isinstance(n, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == cls for b in n.bases):
            return f"has its class subclassed at line {n.lineno} (class-level hooks may change it)"
    return None


def _main_guard(test: ast.expr) -> bool:
    from specguard.formalize.tests import _is_main_guard
    return _is_main_guard(test)


def nondeterministic_names(tree: ast.Module) -> dict[str, str]:
    """Names the file binds to modules (or their members) of time, randomness, threads, the
    environment: name -> module."""
    out: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name.split(".")[0] in _NONDETERMINISTIC_MODULES:
                    out[(a.asname or a.name).split(".")[0]] = a.name
        elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in _NONDETERMINISTIC_MODULES:
            for a in n.names:
                out[a.asname or a.name] = n.module or ""
    return out


# =====================================================================================
# seeding: setUp and function-scoped fixtures
# =====================================================================================

def seed(walker: Any, test: Any) -> None:
    """Objects a test starts with: ``self.X`` built by its class's own ``setUp`` (or
    ``setup_method``), and parameters that name a function-scoped fixture of the file returning a
    fresh construction."""
    ctx = walker.ctx
    if not class_like(ctx.target) or walker.block is not None or _reaching_fixtures(ctx, test):
        return
    # an inherited test method (`Mixin.test_x` run as `Sub::test_x`) reads `self.__x` mangled with
    # `Mixin`'s name, not `Sub`'s: no setup objects are seeded for it
    if test.method and test.classes and any(st is test.node for st in test.classes[-1].body):
        _seed_setup(walker, test.classes[-1])
    params = [a.arg for a in test.node.args.posonlyargs + test.node.args.args + test.node.args.kwonlyargs]
    if test.method:
        params = params[1:]
    if params:
        for name in params:
            fx = _fixture(ctx, name, test)
            if fx is not None:
                _seed_fixture(walker, name, fx)


def _reaching_fixtures(ctx: Any, test: Any) -> bool:
    """A fixture of the file or the test's classes that may reach the test object or other fixtures'
    values (``self``, ``request``, ``getfixturevalue``): nothing is seeded."""
    from specguard.formalize.tests import _fixture_decorator
    bodies = [ctx.file.tree.body] + [c.body for c in test.classes]
    for body in bodies:
        for fn in body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and _fixture_decorator(ctx, fn) is not None:
                names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | \
                        {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
                if names & {"self", "request", "getfixturevalue", "instance"}:
                    return True
    return False


def _mini(walker: Any) -> Any:
    """A walker over the module's names only, to read a setup's or fixture's statements."""
    from specguard.formalize.tests import _Scope, _Walker
    w = _Walker(walker.ctx, _Scope(walker.ctx.module), "test", None, "setup")
    return w


def _seed_setup(walker: Any, cls: ast.ClassDef) -> None:
    setups = [s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name in ("setUp", "setup_method")]
    if len(setups) != 1 or setups[0].decorator_list:
        return
    fn = setups[0]
    plain_bases = all(isinstance(b, (ast.Name, ast.Attribute)) and _src(b) in ("TestCase", "unittest.TestCase", "object")
                      for b in cls.bases)
    w = _mini(walker)
    tr = w.objects
    for st in fn.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            continue
        if isinstance(st, ast.Expr) and plain_bases and _src(st.value) in ("super().setUp()",
                                                                           "super().setup_method(method)"):
            continue
        mentions_self = any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(st))
        if not mentions_self:
            if isinstance(st, (ast.Pass,)):
                continue
            return              # local computations: not followed
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and _receiver_key(st.targets[0]) is not None \
                and isinstance(st.targets[0], ast.Attribute):
            if not (isinstance(st.value, ast.Call) and tr._constructs(st.value)):
                if any(_receiver_key(n) in tr.objs for n in ast.walk(st.value)):
                    return
                continue        # another attribute (plain values are another reader's business)
        elif not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)):
            return
        tr.before(st)
        if any(u.why for u in tr.uses):
            return
        tr.after(st)
    for k, o in tr.objs.items():
        if k.startswith("self."):
            walker.objects.seed(k, _Obj(o.cls, o.args, o.kwargs, list(o.history), o.why, frozenset()))


def _fixture(ctx: Any, name: str, test: Any) -> ast.FunctionDef | None:
    """The function-scoped fixture ``name`` of the file, when nothing else may touch its value in a
    test: not autouse, not parametrized, requested by no other fixture or setup of the file."""
    from specguard.formalize.tests import _fixture_decorator
    bodies = [ctx.file.tree.body] + [c.body for c in test.classes]
    found = [fn for body in bodies for fn in body if isinstance(fn, ast.FunctionDef) and fn.name == name]
    if len(found) != 1:
        return None
    fn = found[0]
    d = _fixture_decorator(ctx, fn)
    if d is None or len(fn.decorator_list) != 1:
        return None
    if isinstance(d, ast.Call):
        if d.args:
            return None
        for kw in d.keywords:
            if not (kw.arg == "scope" and isinstance(kw.value, ast.Constant) and kw.value.value == "function"):
                return None
    if fn.args.args or fn.args.posonlyargs or fn.args.kwonlyargs or fn.args.vararg or fn.args.kwarg:
        return None
    for body in bodies:
        for other in body:
            if isinstance(other, (ast.FunctionDef, ast.AsyncFunctionDef)) and other is not fn:
                ps = {a.arg for a in other.args.posonlyargs + other.args.args + other.args.kwonlyargs}
                if name in ps and (other.name.startswith("test") is False):
                    return None      # another fixture or setup requests it
    return fn


def _seed_fixture(walker: Any, name: str, fn: ast.FunctionDef) -> None:
    w = _mini(walker)
    tr = w.objects
    body = [st for st in fn.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    if not body:
        return
    last = body[-1]
    ret = last.value if isinstance(last, ast.Return) else \
        last.value.value if isinstance(last, ast.Expr) and isinstance(last.value, ast.Yield) else None
    if ret is None:
        return
    for st in body[:-1]:
        if not (isinstance(st, (ast.Assign, ast.AnnAssign)) or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call))):
            return
        tr.before(st)
        if any(u.why for u in tr.uses):
            return
        tr.after(st)
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and _receiver_key(getattr(st, "target", None) or st.targets[0]) \
                not in tr.objs:
            return          # only constructions are followed
    if isinstance(ret, ast.Call) and tr._constructs(ret):
        o = tr._fresh(ret)
    elif isinstance(ret, ast.Name) and ret.id in tr.objs:
        o = tr.objs[ret.id]
    else:
        return
    walker.objects.seed(name, _Obj(o.cls, o.args, o.kwargs, list(o.history), o.why, frozenset()))


# =====================================================================================
# which class is under test
# =====================================================================================

_CLASS_LINE = re.compile(r"^\s*(?:[`>*]\s*)*class\s+([A-Za-z_]\w*)\s*[(:]", re.M)


def class_entry(task: "Task") -> str | None:
    """The class under test when the task names no entry point: the one class the tests build
    (``s = C(...)``, ``self.s = C(...)``, a fixture returning ``C(...)``) and observe in assertions,
    if the description defines ``class C`` (or defines no function and mentions ``C``)."""
    desc = task.description if isinstance(task.description, str) else ""
    counts: dict[str, int] = {}
    all_built: list[str] = []
    for src in task.tests:
        if src.kind != "python" or not src.text:
            continue
        try:
            tree = ast.parse(src.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        built: dict[str, str] = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call) \
                    and isinstance(n.value.func, ast.Name):
                c = n.value.func.id
                k = _receiver_key(n.targets[0])
                if k and c[:1].isupper() and c not in defined and not hasattr(__builtins__, c) \
                        and c not in dir(__import__("builtins")):
                    built[k] = c
                    all_built.append(c)
        for n in ast.walk(tree):
            if isinstance(n, (ast.Assert, ast.Call)):
                for m in ast.walk(n.test if isinstance(n, ast.Assert) else n):
                    if isinstance(m, ast.Attribute) and _receiver_key(m.value) in built:
                        c = built[_receiver_key(m.value)]
                        counts[c] = counts.get(c, 0) + 1
                    elif isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id == "len" \
                            and m.args and _receiver_key(m.args[0]) in built:
                        c = built[_receiver_key(m.args[0])]
                        counts[c] = counts.get(c, 0) + 1
                    elif isinstance(m, ast.Compare) and len(m.ops) == 1 and type(m.ops[0]) in _OPS \
                            and _receiver_key(m.left) in built:      # `omd == {...}`: its `__eq__`
                        c = built[_receiver_key(m.left)]
                        counts[c] = counts.get(c, 0) + 1
    if not counts:
        counts = {c: 1 for c in set(all_built) if c in set(_CLASS_LINE.findall(desc))}
    if not counts:
        return None
    top = max(counts.values())
    best = [c for c, k in counts.items() if k == top]
    if len(best) != 1:
        return None
    c = best[0]
    classes = set(_CLASS_LINE.findall(desc))
    if c in classes:
        return c
    if not re.search(r"^\s*(?:[`>*]\s*)*def\s", desc, re.M) and re.search(rf"\b{re.escape(c)}\b", desc):
        return c
    return None


# =====================================================================================
# what the task says against the object model
# =====================================================================================

_VARY_WORDS = re.compile(
    r"\b((?:returns?|picks?|chooses?|gives?|yields?|selects?|draws?|in)\s+(?:an?\s+|the\s+)?random(?:ly)?\b|"
    r"random(?:ly)? (?:chosen|selected|ordered|order|element|item|value|choice|sample)|randomness|randomized|"
    r"shuffl\w*|uuid|nondetermin\w*|non-determin\w*|(?:current|system|wall[- ]clock) "
    r"(?:time|date)|time[- ]?(?:out|stamp|-to-live|to live)s?|ttl|expir\w*|sleep\w*|clock|now\(\)|today|"
    r"(?:\d+|in|after|of|for) seconds?|"
    r"thread(?:s|ed|ing)?|concurren\w*|asynchronous\w*|environment variables?|os\.environ|global (?:state|"
    r"variable|counter|registry|list|dict|cache)|shared (?:state|between (?:all )?instances)|class[- ]level "
    r"(?:state|cache|counter|registry)|singleton|weak[ -]?ref\w*|garbage[- ]collect\w*|results? (?:may )?var(?:y|ies)|"
    r"may (?:differ|vary|change) between (?:runs|calls)|(?:reads?|writes?) (?:from |to )?(?:a |the )?(?:file|disk|"
    r"network|socket|database))\b", re.I)


def state_problem(task: "Task", cls: str | None) -> str | None:
    """Why the description says an object's results may vary with more than its history (time,
    randomness, threads, the environment, state shared between objects), or None."""
    text = task.description if isinstance(task.description, str) else ""
    if not text:
        return None
    m = _VARY_WORDS.search(text)
    if m is not None:
        line = text.count("\n", 0, m.start()) + 1
        return f"{task.description_path}:{line + task.description_line_offset} says {m.group(0)!r}"
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is not None:
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
                bad = [x for x in mods if x.split(".")[0] in _NONDETERMINISTIC_MODULES]
                if bad:
                    return f"the description's code imports `{bad[0]}`"
            if isinstance(n, ast.ClassDef) and n.name == cls:
                for st in n.body:
                    if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None and \
                            isinstance(st.value, (ast.List, ast.Dict, ast.Set, ast.Call)):
                        return f"the class attribute of `{cls}` at line {st.lineno} (shared by its objects)"
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                return f"the description's code declares `{'global' if isinstance(n, ast.Global) else 'nonlocal'}`"
    return None


def method_objects(task: "Task", calls: Iterable[Call]) -> dict[str, str]:
    """Observation targets whose results may be objects rather than plain data (their
    assertions keep only "returns"), with the reason."""
    text = task.description if isinstance(task.description, str) else ""
    classes = {c.obj.cls for c in calls if c.obj is not None}
    custom_eq = _custom_equality(text, classes)
    annotated = _annotations(text)
    shown = _shown_plain(text, classes)
    out: dict[str, str] = {}
    for c in calls:
        if c.obj is None or c.target in out:
            continue
        e = c.obj.obs
        if e.kind == "contains" or (e.kind == "builtin" and e.name in EXACT_OBSERVATIONS) \
                or TERM_KW in dict(e.kwargs):
            continue       # Python fixes the type: int, bool (a term input: `len(...)`)
        if custom_eq:
            out[c.target] = "the description documents custom equality or identity (`__eq__`, `is`): no " \
                            "certificate rests on == with plain data"
        elif e.kind in ("call", "attr") and _MAYBE_OBJECT_METHODS.match(e.name) and e.name not in shown:
            out[c.target] = f"`{e.name}` may return an object or a view, not plain data"
        elif e.kind == "getitem" and e.args[:1] == (V("str", "<slice>"),) and "[:]" not in shown:
            out[c.target] = "a slice may be an object of the class itself, not plain data"
        elif e.kind in ("call", "attr") and e.name in annotated:
            out[c.target] = f"the description annotates `{e.name}` as returning `{annotated[e.name]}`, not plain data"
    return out


def _shown_plain(text: str, classes: set[str]) -> set[str]:
    """Methods (and ``"[:]"``, slices) whose result the description's doctest sessions show as a
    plain literal on an object of the class (``>>> tc = ThresholdCounter()`` ... ``>>> tc.items()`` /
    ``[(1, 1)]``), and never as something else: the description documents plain data there (a view
    or an object shows its own repr), so the name-based guess above does not apply."""
    import doctest
    from specguard.formalize import description as fd
    try:
        examples = doctest.DocTestParser().get_examples(text[:200_000])
    except ValueError:
        return set()
    built: set[str] = set()
    plain: set[str] = set()
    other: set[str] = set()
    for ex in examples:
        try:
            node = ast.parse(ex.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if len(node.body) != 1:
            continue
        st = node.body[0]
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            v = st.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in classes:
                built.add(st.targets[0].id)
            else:
                built.discard(st.targets[0].id)
            continue
        if not isinstance(st, ast.Expr):
            continue
        e = st.value
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name) \
                and e.func.value.id in built:
            what = e.func.attr
        elif isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice) and isinstance(e.value, ast.Name) \
                and e.value.id in built:
            what = "[:]"
        else:
            continue
        want = ex.want.strip()
        (plain if want and fd._literal_text(want) is not None else other).add(what)
    return plain - other


def _custom_equality(text: str, classes: set[str]) -> bool:
    """The description documents custom equality or identity of results: ``__eq__`` and friends, or
    identity, other than the class under test's own (``SortedDict.__eq__``, its own ``def __eq__``):
    an object compared itself is refused anyway, and its method results are other objects."""
    for cls in classes:
        text = re.sub(rf"\b{re.escape(cls)}\.__(?:eq|ne|hash|lt|le|gt|ge|cmp)__\b", "", text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is not None:
        lines = text.splitlines()
        for n in ast.walk(tree):
            if isinstance(n, ast.ClassDef) and n.name in classes:
                for m in n.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                            m.name in ("__eq__", "__ne__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__"):
                        lines[m.lineno - 1] = ""
        text = "\n".join(lines)
    text = _IDENTITY_FUNCTION.sub("", text)      # `key=identity`, "the identity function": not object identity
    return bool(re.search(r"__eq__|__hash__|__cmp__|__lt__|\bidentity\b|\bis\s+the\s+same\s+object", text))


# "identity" that names a function, not object identity: `key=identity`, `identity(x)`, "the identity function"
_IDENTITY_FUNCTION = re.compile(r"\bidentity\s+(?:function|map(?:ping)?|key)\b|[=(,]\s*identity\b(?!\s*(?:of|comparison|check))|"
                                r"\bidentity\s*(?=[(),])", re.I)


def _annotations(text: str) -> dict[str, str]:
    from specguard.formalize.assumptions import PLAIN_ANNOTATIONS, _annotation_names
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            odd = [x for x in _annotation_names(n.returns) if x not in PLAIN_ANNOTATIONS]
            if odd:
                out[n.name] = odd[0]
    return out


# =====================================================================================
# the description side: doctest sessions with objects
# =====================================================================================

# a doctest session's objects are tracked like a test's (:class:`_Obj`; `groups` stays empty there)
_DObj = _Obj


def doctest_sessions(examples: list, ctx: Any, out: Any) -> set[int]:
    """Claims of doctest sessions that build objects of the class under test (``>>> s = C()``,
    ``>>> s.push(1)``, ``>>> s.pop()`` / ``1``); returns the ids of the examples read here (the
    function reader skips them)."""
    from specguard.formalize import description as fd
    target = ctx.target
    consumed: set[int] = set()
    if not class_like(target) and not (ctx.stub and re.search(rf"^\s*class\s+{re.escape(target or '?')}\b",
                                                             "\n".join(out.lines), re.M)):
        return consumed
    sessions: dict[int, list] = {}
    for ex in examples:
        sessions.setdefault(ex.session, []).append(ex)
    for exs in sessions.values():
        objs: dict[str, _DObj] = {}
        env: dict[str, V] = {}
        stored: set[str] = set()        # names the session binds (a builtin it rebinds is not the builtin)
        for ex in exs:
            if fd._rebinding(ex.source, target) is not None:
                break
            stored |= _session_stored(ex.source)
            stmt, _ = fd._example_statement(ex)
            if stmt is None:
                for k, o in objs.items():
                    if re.search(rf"\b{re.escape(k)}\b", ex.source) and o.why is None:
                        o.why = f"a line that is not read uses it (line {ex.line + 1 + out.offset})"
                if re.search(rf"\b{re.escape(target)}\s*\(", ex.source):
                    pass
                continue
            if _doc_example(stmt, ex, ctx, out, objs, env, target, stored):
                consumed.add(id(ex))
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                try:
                    env[stmt.targets[0].id] = eval_literal(stmt.value, env)
                except NotLiteral:
                    env.pop(stmt.targets[0].id, None)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                env.update(_doc_imports(stmt))
    return consumed


def _doc_imports(stmt: ast.Import | ast.ImportFrom) -> dict[str, V]:
    """``>>> from operator import neg``: names a session binds to functions that are named
    constants (the test side's :func:`specguard.formalize.tests.function_value` keys), others
    unbound (a later use is then not an exact value)."""
    from specguard.formalize.tests import _STDLIB_FUNCTIONS
    from specguard.python.values import FUNCTION
    out: dict[str, V] = {}
    for a in stmt.names:
        name = (a.asname or a.name).split(".")[0]
        q = f"{stmt.module}.{a.name}" if isinstance(stmt, ast.ImportFrom) and not stmt.level else ""
        if q in _STDLIB_FUNCTIONS:
            out[name] = V(FUNCTION, (f"builtin:{q}", name))
    return out


def _session_stored(source: str) -> set[str]:
    """Names a doctest line may bind (assignments, ``def``, ``class``, imports, ``for`` targets);
    every name it mentions when it does not parse on its own."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(re.findall(r"[A-Za-z_]\w*", source))
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out |= set(n.names)
    return out


def _doc_example(stmt: ast.stmt, ex: Any, ctx: Any, out: Any, objs: dict, env: dict, target: str,
                 stored: set[str] = frozenset()) -> bool:
    from specguard.formalize import description as fd
    line = ex.line + 1 + out.offset
    # `>>> s = C(args)`: a fresh object
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Call) and _is_call_of(stmt.value, target):
        name = stmt.targets[0].id
        o = _DObj(target)
        try:
            o.args = tuple(eval_literal(a, env) for a in stmt.value.args)
            o.kwargs = tuple((k.arg, eval_literal(k.value, env)) for k in stmt.value.keywords if k.arg)
            if any(isinstance(a, ast.Starred) for a in stmt.value.args) or any(k.arg is None for k in stmt.value.keywords):
                o.why = "is built with `*`/`**` arguments"
        except NotLiteral as e:
            o.why = f"is built with an argument that is not an exact value ({e.reason})"
        objs[name] = o
        env.pop(name, None)
        return True
    names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    mine = [k for k in objs if k in names]
    fresh = [n for n in ast.walk(stmt) if isinstance(n, ast.Call) and _is_call_of(n, target)]
    if not mine and not fresh:
        return False
    if len(mine) + len(fresh) != 1:
        for k in mine:
            if objs[k].why is None:
                objs[k].why = f"is used with other objects in one line (line {line})"
        return bool(mine)
    if mine:
        k = mine[0]
        o = objs[k]
        recv = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == k]
    else:
        k, o, recv = None, _DObj(target), fresh
        try:
            o.args = tuple(eval_literal(a, env) for a in fresh[0].args)
            o.kwargs = tuple((kw.arg, eval_literal(kw.value, env)) for kw in fresh[0].keywords if kw.arg)
        except NotLiteral as e:
            o.why = f"is built with an argument that is not an exact value ({e.reason})"
    if len(recv) != 1:
        if o.why is None:
            o.why = f"is used twice in one line (line {line})"
        return True
    event, obs, why = _doc_event(stmt, recv[0], env)
    if k is None and event is not None and event.kind == "op":
        return False      # `>>> C(1, 2) == v`: the construction's result compared, as on the test side
    if why is not None or event is None:
        if o.why is None:
            o.why = why or f"is used in a line that is not read (line {line})"
        if k is None:
            return False
        return True
    history = tuple(o.history)
    o.history.append(event)
    if obs == "value" and not ex.want and ex.end in ("blank", "prompt", "docend", "eof"):
        return True       # `>>> s.push(1)` showing nothing: an event (its None result is not claimed)
    out.seen_example()
    if o.why is not None:
        out.note(ex.line, f"doctest example skipped: the object `{k or _src(recv[0])}` {o.why}")
        return True
    if event.kind == "builtin" and event.name == "repr" and obs is None:
        return True       # `>>> s` showing its repr: an event, the text is not read
    if obs is None:       # an event only (`>>> s.push(1)`); its output must be nothing or plain
        if ex.want and event.kind != "op" and (fd._literal_text("\n".join(ex.want)) is None and not fd._TRACEBACK.match(ex.want[0])):
            o.why = f"showed an output that is not a plain value at line {line} (an object?)"
        return True
    expect, why = _doc_term(stmt, obs, ex, env, stored) if isinstance(obs, ast.AST) else _doc_expect(ex, obs, stmt, ctx)
    if expect is None:
        out.note(ex.line, f"doctest example skipped: {why}")
        if why.startswith("output is not a plain value"):
            o.why = f"showed an output that is not a plain value at line {line} (an object?)"
        return True
    call = make_call(o.cls, o.args, o.kwargs, history, event)
    out.add(_example_kind(), ex.line, ex.src_lines + ex.want_lines, call=call, expect=expect)
    return True


def _example_kind():
    from specguard.models import ClaimKind
    return ClaimKind.example


def _is_call_of(n: ast.Call, target: str) -> bool:
    return isinstance(n.func, ast.Name) and n.func.id == target


def _doc_event(stmt: ast.stmt, r: ast.AST, env: dict) -> tuple[ObjEvent | None, str | None, str | None]:
    """The event of a doctest line on receiver ``r`` and how its output observes it: "value" (the
    output is the observation's repr), "eq"/"ne" (``obs == v`` shows True/False), None (no
    observation)."""
    parents: dict[int, ast.AST] = {}
    for n in ast.walk(stmt):
        for c in ast.iter_child_nodes(n):
            parents[id(c)] = n
    p = parents.get(id(r))
    g = parents.get(id(p)) if p is not None else None

    def exact(x: ast.expr) -> V:
        return eval_literal(x, env)
    try:
        if isinstance(p, ast.Attribute) and p.value is r and isinstance(g, ast.Call) and g.func is p:
            if any(isinstance(a, ast.Starred) for a in g.args) or any(k.arg is None for k in g.keywords):
                return None, None, "a call with `*`/`**` arguments"
            e = ObjEvent(kind="call", name=p.attr, args=tuple(exact(a) for a in g.args),
                         kwargs=tuple((k.arg, exact(k.value)) for k in g.keywords))
            node = g
        elif isinstance(p, ast.Attribute) and p.value is r and isinstance(p.ctx, ast.Load):
            e, node = ObjEvent(kind="attr", name=p.attr), p
        elif isinstance(p, ast.Call) and p.args == [r] and not p.keywords and isinstance(p.func, ast.Name) \
                and p.func.id in _EVENT_BUILTINS:
            e, node = ObjEvent(kind="builtin", name=p.func.id), p
            if p.func.id not in _OBSERVING_BUILTINS:
                return e, None, ("an observation through " + p.func.id) if parents.get(id(p)) is not stmt else None
        elif isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id == "isinstance" \
                and len(p.args) == 2 and p.args[0] is r and not p.keywords:
            e, node = _isinstance_event(p.args[1]), p
        elif isinstance(p, ast.Compare) and len(p.ops) == 1 and isinstance(p.ops[0], (ast.In, ast.NotIn)) \
                and p.comparators[0] is r:
            e, node = ObjEvent(kind="contains", args=(exact(p.left),)), p
            top = parents.get(id(p))
            return e, ("in" if isinstance(p.ops[0], ast.In) else "not_in") if top is stmt else None, \
                None if top is stmt else "a membership test inside another expression"
        elif isinstance(p, ast.Compare) and len(p.ops) == 1 and type(p.ops[0]) in _OPS and p.left is r:
            e, node = ObjEvent(kind="op", name=_OPS[type(p.ops[0])], args=(exact(p.comparators[0]),)), p
        elif isinstance(p, ast.BinOp) and p.left is r and type(p.op) in _BINOPS and g is stmt:
            # `>>> s - {0, 1}`: the session shows repr() of the result (as the test side's `repr(s - v)`);
            # the shown text is not read
            return ObjEvent(kind="op", name=_BINOPS[type(p.op)], args=(exact(p.right),),
                            kwargs=(("then", V("str", "repr")),)), None, None
        elif isinstance(p, ast.Subscript) and p.value is r and isinstance(p.ctx, ast.Load):
            sl = p.slice
            key = (V("str", "<slice>"), *(V("none") if x is None else exact(x) for x in (sl.lower, sl.upper, sl.step))) \
                if isinstance(sl, ast.Slice) else (exact(sl),)      # as the test side encodes it (Tracker._slice)
            e, node = ObjEvent(kind="getitem", args=key), p
        elif isinstance(p, ast.Expr):
            # `>>> s`: the session shows repr(s) (an interaction; its text is not read)
            return ObjEvent(kind="builtin", name="repr"), None, None
        else:
            return None, None, "a use that is not read"
    except NotLiteral as ex:
        return None, None, f"an argument that is not an exact value ({ex.reason})"
    top = parents.get(id(node))
    if top is stmt and isinstance(stmt, ast.Expr):
        return e, "value", None
    if isinstance(top, ast.Compare) and top.left is node and len(top.ops) == 1 and isinstance(top.ops[0], ast.Eq) \
            and parents.get(id(top)) is stmt:
        return e, "eq", None
    if isinstance(stmt, ast.Assign):
        return e, None, "the result is bound to a name" if top is stmt else "a use that is not read"
    if isinstance(top, ast.Call) and isinstance(top.func, ast.Name) and top.func.id == "print" \
            and parents.get(id(top)) is stmt:
        return e, None, None
    if isinstance(stmt, ast.Expr) and not (isinstance(top, ast.Compare) and top.left is node):
        return e, node, None      # `>>> len(list(s.items()))`: an observation term of the result (_doc_term)
    return None, None, "the observation is inside another expression"


def _doc_term(stmt: ast.Expr, node: ast.AST, ex: Any, env: dict, stored: set[str] = frozenset()):
    """``>>> len(list(s.elements()))`` / ``11``: the line's value, whose repr is the output, is ``==``
    to the output's literal, an observation of the one result at ``node`` (the term the test side
    builds for ``assert len(list(s.elements())) == 11``, :mod:`specguard.python.terms`)."""
    from specguard.formalize import description as fd
    from specguard.models import Expect, ExpectKind
    from specguard.python import terms
    if not ex.want or fd._TRACEBACK.match(ex.want[0]):
        return None, "no printed value of the observation"
    value = fd._literal_text("\n".join(ex.want))
    if value is None:
        return None, "output is not a plain value (printed text or an object repr?)"
    try:
        cmp = ast.Compare(left=stmt.value, ops=[ast.Eq()], comparators=[terms.value_ast(value)])
        built = terms.build(cmp, is_call=lambda n: n is node, literal=lambda n: eval_literal(n, env or None),
                            builtin=lambda name: name not in env and name not in stored)
    except terms.NotObservation as e:
        return None, e.reason
    if len(built.calls) != 1:
        return None, "the observation reads the object twice"
    return Expect(kind=ExpectKind.obs, expr=built.text), ""


def _doc_expect(ex: Any, how: str, stmt: ast.stmt, ctx: Any):
    from specguard.formalize import description as fd
    from specguard.models import Expect, ExpectKind
    text = "\n".join(ex.want)
    if ex.want and fd._TRACEBACK.match(ex.want[0]):
        if how != "value":
            return None, "a traceback of a comparison"
        return fd._traceback_expect(ex.want)
    if how in ("in", "not_in"):
        if ex.want not in (["True"], ["False"]):
            return None, "a membership test whose output is neither True nor False"
        truthy = (ex.want == ["True"]) == (how == "in")
        return Expect(kind=ExpectKind.truthy if truthy else ExpectKind.falsy), ""
    if how == "eq":
        if ex.want not in (["True"], ["False"]):
            return None, "comparison whose output is neither True nor False"
        rhs = stmt.value.comparators[0]
        if not fd._is_display(rhs, output=True):
            return None, "compared with something that is not a plain literal"
        try:
            v = fd._eval_literal(rhs)
        except Exception:
            return None, "compared with something that is not a literal"
        return Expect(kind=ExpectKind.ne if ex.want == ["False"] else ExpectKind.eq, value=v), ""
    if not ex.want:
        return None, "no output shown (the result is None or the line's value is not shown)"
    value = fd._literal_text(text)
    if value is None:
        return None, "output is not a plain value (printed text or an object repr?)"
    if fd._has_float(value) and ctx.tolerance:
        return None, "float output, and the description mentions a tolerance"
    return Expect(kind=ExpectKind.eq, value=value), ""


def class_docstring_owners(tree: ast.Module, entry: str | None) -> list[list[ast.stmt]]:
    """Bodies whose docstrings describe the class ``entry``: the class's and its methods'."""
    if not entry:
        return []
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef) and n.name == entry:
            return [n.body] + [m.body for m in n.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return []


def iter_object_calls(items: Iterable[Any]) -> Iterator[Call]:
    for x in items:
        c = getattr(x, "call", None)
        if c is not None and c.obj is not None:
            yield c


def observation_note(tf: Any, entry: str | None) -> str | None:
    """What the tests' objects gave (per task, e.g. per SWE-bench instance): observations read,
    and the objects whose histories could not be followed."""
    n = sum(1 for d in tf.demands if d.call.obj is not None)
    lost = sum(1 for u in tf.unsupported if u.reason.startswith("the object `"))
    if not n and not lost:
        return None
    files = len({d.loc.file for d in tf.demands if d.call.obj is not None})
    return (f"objects of `{entry}`: {n} assertion(s) read as observations of fresh objects (their histories) in "
            f"{files} test file(s); {lost} assertion(s) on objects whose history could not be followed")


# =====================================================================================
# term inputs: `len(<term of a method's result>) == N`
# =====================================================================================

TERM_ASSUMPTION = (
    "`len(...)` of an observation term applied to a fresh object's observation in the same expression "
    "(`len(list(s.elements()))`) is determined by the object's history, as the observation's own outcome is "
    "(what the observation returned is read by nothing else in between)")


def _one_equality(e: Any) -> tuple[ast.expr, ast.expr] | None:
    """The two sides of an ``obs`` expectation whose text is one ``==`` (the result not bound to a
    name before, not read through ``list``): None for any other expectation."""
    from specguard.models import ExpectKind
    if e is None or e.kind is not ExpectKind.obs or e.bound_result or e.through_list or not e.expr:
        return None
    try:
        tree = ast.parse(e.expr, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], ast.Eq)):
        return None
    return tree.left, tree.comparators[0]


def _len_term(e: Any) -> tuple[str, V] | None:
    """``len(T) == N`` over the result: an ``obs`` expectation whose text is one ``==`` of a
    ``len`` call (``T`` mentions the result) with an int literal, the result not bound to a name
    before (nothing else may have read it in between): (``len(T)``, N)."""
    from specguard.formalize.speclang import OBS_VAR
    sides = _one_equality(e)
    if sides is None:
        return None
    left, right = sides
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
            and len(left.args) == 1 and not left.keywords and isinstance(right, ast.Constant)
            and type(right.value) is int):
        return None
    if not any(isinstance(n, ast.Name) and n.id == OBS_VAR for n in ast.walk(left.args[0])):
        return None
    return ast.unparse(left), V("int", right.value)


# builtins whose result's `==` with a display of the same kind is False when the sizes differ
# (CPython's list, tuple, set/frozenset and dict comparisons check the sizes first): the kind of
# value each returns (as the display's value kinds)
_SIZED = {"list": ("list",), "sorted": ("list",), "tuple": ("tuple",), "set": ("set", "frozenset"),
          "frozenset": ("set", "frozenset"), "dict": ("dict",)}


def _implied_len(e: Any) -> tuple[str, V] | None:
    """``F(T) == D`` over the result, ``F`` one of :data:`_SIZED` (no keywords), ``D`` a display
    of the kind ``F`` returns: the assertion implies ``len(F(T)) == len(D)`` (``D``'s size as
    Python counts it: ``{1, True}`` has one element): (``len(F(T))``, ``len(D)``)."""
    from specguard.formalize.speclang import OBS_VAR
    sides = _one_equality(e)
    if sides is None:
        return None
    left, right = sides
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id in _SIZED
            and len(left.args) == 1 and not left.keywords and not isinstance(left.args[0], ast.Starred)):
        return None
    if not any(isinstance(n, ast.Name) and n.id == OBS_VAR for n in ast.walk(left.args[0])):
        return None
    if any(isinstance(n, ast.Name) and n.id == OBS_VAR for n in ast.walk(right)):
        return None
    try:
        d = eval_literal(right, {})
    except NotLiteral:
        return None
    if d.kind not in _SIZED[left.func.id]:
        return None
    return f"len({ast.unparse(left)})", V("int", len(d.val))


def term_call(call: Call | None, expect: Any, implied: bool = False) -> tuple[Call, Any] | None:
    """An observation of a fresh object read through ``len(T) == N`` (``assert
    len(list(s.elements())) == 11``, ``>>> len(list(s.elements()))`` / ``11``) as an input of its
    own: the history, the observation and the term ``len(T)`` (:data:`TERM_KW`), whose outcome is
    the term's value, an int (``len`` returns one), or what any part of it raised.  Two such
    readings of one history and one term then expect exact ints of one input, so different ones
    conflict; the ``obs`` predicate they replace cannot conflict with another one (it holds where
    the term is undefined in SpecGuard's model of plain data).  None: not such a reading."""
    from specguard.models import Expect, ExpectKind
    if call is None or call.obj is None or TERM_KW in dict(call.obj.obs.kwargs):
        return None
    t = _implied_len(expect) if implied else _len_term(expect)
    if t is None:
        return None
    term, n = t
    k = call.obj
    obs = k.obs.model_copy(update={"kwargs": tuple(k.obs.kwargs) + ((TERM_KW, V("str", term)),)})
    return make_call(k.cls, k.args, k.kwargs, k.history, obs), Expect(kind=ExpectKind.eq, value=n)


def term_inputs(tf: Any, df: Any) -> tuple[Any, Any, bool]:
    """The demands and the description's examples with :func:`term_call` applied; whether any was.
    ``F(T) == D`` (:func:`_implied_len`) is kept and its size added as a term input (``<id>L``).
    A reading whose observation is also read otherwise (``>>> list(s.elements())`` / ``[...]``
    against ``assert len(list(s.elements())) == 11``) is kept as well (its ``obs`` predicate meets
    the other reading at that input), the term input added under the id ``<id>L``."""
    items = list(tf.demands) + list(df.claims)
    terms = {id(x): term_call(x.call, x.expect) for x in items}
    implied = {id(x): term_call(x.call, x.expect, implied=True) for x in items}
    if not any(terms.values()) and not any(implied.values()):
        return tf, df, False
    shared = {x.call.key() for x in items if x.call is not None and x.call.obj is not None and terms[id(x)] is None}

    def conv(xs: tuple) -> tuple:
        out = []
        for x in xs:
            t = terms[id(x)]
            if t is None and implied[id(x)] is not None:
                # `set(s.items()) == {...}`: kept, and its size read as a term input beside it
                i = implied[id(x)]
                out += [x, x.model_copy(update={"id": f"{x.id}L", "call": i[0], "expect": i[1]})]
                continue
            if t is None:
                out.append(x)
                continue
            new = x.model_copy(update={"call": t[0], "expect": t[1]})
            if x.call.key() in shared:
                out += [x, new.model_copy(update={"id": f"{x.id}L"})]
            else:
                out.append(new)
        return tuple(out)
    return tf.model_copy(update={"demands": conv(tf.demands)}), df.model_copy(update={"claims": conv(df.claims)}), True


def is_term_call(call: Call | None) -> bool:
    return call is not None and call.obj is not None and TERM_KW in dict(call.obj.obs.kwargs)
