"""Pydantic models shared by the pipeline stages (everything written to disk is one of these).

Values (:class:`specguard.python.values.V`) are embedded through :data:`Value`, which
serialises them to SpecGuard's lossless tagged JSON (see ``values.to_json``).
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator, WithJsonSchema

from specguard.python import values as _values
from specguard.python.values import V


def _validate_value(x: Any) -> V:
    if isinstance(x, V):
        return x
    return _values.from_json(x)


Value = Annotated[
    V,
    PlainValidator(_validate_value),
    PlainSerializer(_values.to_json, return_type=Any),
    WithJsonSchema({"type": "array", "description": "SpecGuard tagged value, e.g. [\"int\", \"5\"]"}),
]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# -- locations ------------------------------------------------------------------

class Loc(Frozen):
    """Where a demand or claim came from: a file and line, or a pointer into a JSON file."""

    file: str
    line: int | None = None
    pointer: str | None = Field(default=None, description="e.g. 'tasks[3].modified_tests[18]'")

    def __str__(self) -> str:
        s = self.file
        if self.line is not None:
            s += f":{self.line}"
        if self.pointer:
            s += f"#{self.pointer}"
        return s


# -- calls and expectations ------------------------------------------------------

class ObjEvent(Frozen):
    """One interaction with an object (see :mod:`specguard.formalize.objects`): a method call, an attribute
    read or write, an item read or write, a membership test, a comparison with a value (``op``: ``s == v``,
    ``s != v``, the object on the left), or a builtin applied to it."""

    kind: Literal["call", "attr", "setattr", "getitem", "setitem", "delitem", "contains", "builtin", "op"]
    name: str = Field(default="", description="the method, attribute or builtin name (`op`: the operator)")
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()

    def source(self, obj: str = "s") -> str:
        r = _values.py_repr
        term = dict(self.kwargs).get("<term>")       # a term input (specguard.formalize.objects.term_call)
        if term is not None:
            from specguard.formalize.objects import _term_text, _untermed
            return _term_text(term.val, _untermed(self).source(obj))
        if self.kind == "call" and any(k == "<result>" for k, _ in self.kwargs):   # `f(1)(2)`: objects.RESULT_KW
            plain = self.model_copy(update={"kwargs": tuple(kv for kv in self.kwargs if kv[0] != "<result>")})
            return f"{obj} = {plain.source(obj)}"
        a = ", ".join([r(x) for x in self.args] + [f"{k}={r(v)}" for k, v in self.kwargs])
        if self.kind == "call":
            return f"{obj}({a})" if self.name == "__call__" else f"{obj}.{self.name}({a})"
        if self.kind == "attr":
            return f"{obj}.{self.name}"
        if self.kind == "setattr":
            return f"{obj}.{self.name} = {a}"
        if self.kind in ("getitem", "setitem", "delitem") and self.name:
            obj = f"{obj}.{self.name}"           # `s.inv[k]`
        if self.kind == "getitem":
            if len(self.args) == 4 and self.args[0] == _values.V("str", "<slice>"):
                lo, hi, st = ("" if x == _values.V("none") else r(x) for x in self.args[1:])
                return f"{obj}[{lo}:{hi}" + (f":{st}]" if st else "]")
            return f"{obj}[{a}]"
        if self.kind == "setitem":
            return f"{obj}[{r(self.args[0])}] = {r(self.args[1])}" if len(self.args) == 2 else f"{obj}[...] = ..."
        if self.kind == "delitem":
            return f"del {obj}[{a}]"
        if self.kind == "contains":
            return f"{a} in {obj}"
        if self.kind == "op":
            then = dict(self.kwargs).get("then")
            text = f"{obj} {self.name} {', '.join(r(x) for x in self.args)}"
            return f"{then.val}({text})" if then is not None else f"({text})"
        if self.name == "next" and a:
            return f"next({obj}, {a})"          # `next(it, d)`
        return f"{self.name}({obj})"


class ObjectKey(Frozen):
    """The input of an observation of a fresh object: its class, its constructor arguments, every
    earlier interaction with it in order (``history``) and the observation itself (``obs``)."""

    cls: str
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()
    history: tuple[ObjEvent, ...] = ()
    obs: ObjEvent

    def source(self, limit: int = 120) -> str:
        r = _values.py_repr
        a = ", ".join([r(x) for x in self.args] + [f"{k}={r(v)}" for k, v in self.kwargs])
        parts = [f"s = {self.cls}({a})"] + [e.source() for e in self.history] + [self.obs.source()]
        s = "; ".join(parts)
        if len(s) <= limit:
            return s
        tail = parts[-1] if len(parts[-1]) <= limit // 2 else parts[-1][: limit // 2 - 3] + "..."
        return s[: max(limit - len(tail) - 7, 10)] + " ... ; " + tail


class Call(Frozen):
    """A call of the function under test with exact literal arguments; with ``obj``, an
    observation of a fresh object of the class under test (``target`` is ``Class.method``,
    ``args``/``kwargs`` the observation's own arguments, ``obj`` the whole input)."""

    target: str
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()
    obj: ObjectKey | None = Field(default=None, description="an observation of a fresh object: its class, "
                                  "construction, earlier calls and this observation (specguard.formalize.objects)")
    lib: str | None = Field(default=None, description="a call of another function of the library under test: its "
                            "resolved qualified name (specguard.formalize.library)")
    after: str | None = Field(default=None, description="the state of an argument after the call, not its outcome: "
                              "the argument's position ('0') or keyword (specguard.formalize.argstate)")

    def key(self) -> str:
        """Identity of the input: equal keys = the very same input (exact values)."""
        import json
        base = [self.target, [_values.to_json(a) for a in self.args],
                [[k, _values.to_json(v)] for k, v in self.kwargs]]
        if self.obj is not None:
            base.append(self.obj.model_dump(mode="json"))
        if self.lib is not None:
            base.append({"lib": self.lib})
        if self.after is not None:
            base.append({"after": self.after})
        return json.dumps(base, sort_keys=False)

    def source(self, limit: int = 120) -> str:
        if self.obj is not None:
            return self.obj.source(limit)
        if self.after is not None:
            from specguard.formalize.argstate import source
            return source(self, limit)
        parts = [_values.py_repr(a) for a in self.args] + [f"{k}={_values.py_repr(v)}" for k, v in self.kwargs]
        s = f"{self.target}({', '.join(parts)})"
        return s if len(s) <= limit else s[: limit - 3] + "..."


class ExpectKind(str, Enum):
    """What a demand expects of the call's outcome."""

    eq = "eq"                # result == value
    ne = "ne"                # result != value
    is_ = "is"               # result is value (value is None, True or False)
    is_not = "is_not"        # result is not value (None, True or False)
    truthy = "truthy"        # assert result
    falsy = "falsy"          # assert not result
    cmp = "cmp"              # result <op> value, op in <, <=, >, >=  (value numeric)
    in_ = "in"               # result in values (a literal container's elements, or dict keys)
    not_in = "not_in"        # result not in values
    len_eq = "len_eq"        # len(result) == n
    isinstance = "isinstance"  # isinstance(result, types)  (types: builtin type names)
    not_isinstance = "not_isinstance"  # not isinstance(result, types)
    not_type = "not_type"    # type(result) is not T / not in (T1, T2)  (types: builtin type names)
    float_class = "float_class"  # math.isnan(result) / math.isinf(result)  (types: ("nan",) or ("inf",))
    not_float_class = "not_float_class"  # not math.isnan(result) / not math.isinf(result)
    raises = "raises"        # the call raises one of exc (builtin or named exception classes)
    approx = "approx"        # result == pytest.approx(value, rel, abs) / assertAlmostEqual
    obs = "obs"              # a Python expression over the result is true (``expr``, see speclang.observation)


class Expect(Frozen):
    kind: ExpectKind
    value: Value | None = None
    values: tuple[Value, ...] = ()
    op: Literal["<", "<=", ">", ">="] | None = None
    n: int | None = None
    types: tuple[str, ...] = ()
    exc: tuple[str, ...] = ()
    rel: float | None = None
    abs: float | None = None
    places: int | None = None
    isclose: bool = Field(default=False, description="approx: `math.isclose(result, value, rel_tol=rel, "
                                                     "abs_tol=abs)` (else pytest.approx / assertAlmostEqual)")
    expr: str | None = Field(default=None, description="obs: SpecGuard's rendering of the asserted expression, "
                                                       "the call replaced by `result`, every other operand a literal")
    through_list: bool = Field(default=False, description="about list(f(...)), not f(...) (a function observed "
                                                          "through list(): specguard/python/iterate.py)")
    bound_result: bool = Field(default=False, description="obs: the result is read through a name bound earlier "
                                                          "(`r = f(x)`), not a fresh call (an iterator it holds may "
                                                          "have been consumed)")
    iterated: bool = Field(default=False, description="raises: the call or the iteration of its result raises "
                                                      "(`with raises(E): list(f(x))`); about f itself that says "
                                                      "only: it raises or returns a value list() cannot iterate")

    def source(self) -> str:
        k = self.kind
        r = _values.py_repr
        if k is ExpectKind.eq:
            return f"== {r(self.value)}"
        if k is ExpectKind.ne:
            return f"!= {r(self.value)}"
        if k is ExpectKind.is_:
            return f"is {r(self.value)}"
        if k is ExpectKind.is_not:
            return f"is not {r(self.value)}"
        if k is ExpectKind.truthy:
            return "is truthy"
        if k is ExpectKind.falsy:
            return "is falsy"
        if k is ExpectKind.cmp:
            return f"{self.op} {r(self.value)}"
        if k is ExpectKind.in_:
            return "in (" + ", ".join(r(v) for v in self.values) + ")"
        if k is ExpectKind.not_in:
            return "not in (" + ", ".join(r(v) for v in self.values) + ")"
        if k is ExpectKind.len_eq:
            return f"has len {self.n}"
        if k is ExpectKind.isinstance:
            return f"isinstance of {'/'.join(self.types)}"
        if k is ExpectKind.not_isinstance:
            return f"not isinstance of {'/'.join(self.types)}"
        if k is ExpectKind.not_type:
            return f"type is not {'/'.join(self.types)}"
        if k in (ExpectKind.float_class, ExpectKind.not_float_class):
            return f"{'' if k is ExpectKind.float_class else 'not '}math.is{self.types[0]}"
        if k is ExpectKind.raises:
            if self.iterated and not self.through_list:
                return f"raises {'/'.join(self.exc)} or returns a value list() cannot iterate"
            return f"raises {'/'.join(self.exc)}"
        if k is ExpectKind.approx:
            if self.isclose:
                return f"isclose to {r(self.value)} (rel_tol={self.rel}, abs_tol={self.abs})"
            return f"== approx({r(self.value)})"
        if k is ExpectKind.obs:
            return f"satisfies `{self.expr}`"
        return k.value


class Demand(Frozen):
    """One assertion of a test, formalized: a call and what it must do."""

    id: str = Field(description="stable id within the task, e.g. 'T3'")
    call: Call
    expect: Expect
    calls: tuple[Call, ...] = Field(default=(), description="an observation of several calls in one assertion "
                                    "(`f(a) == f(b)`): the calls after `call`, in the assertion's order; `expect.expr` "
                                    "names them `result_1`, `result_2`, ... (specguard/python/multiterm.py)")
    exposed: tuple[Literal["", "items", "value"], ...] = Field(
        default=(), description="with `calls`, per call (`call` first): what of its result the assertion still "
        "uses while a later call runs ('' nothing, 'items' its items, 'value' itself); the clause holds only when "
        "that is immutable plain data (a later call may mutate what an earlier one returned)")
    loc: Loc
    text: str = Field(default="", description="the assertion's source text (one line, trimmed)")
    test_name: str | None = None
    read_by: Literal["ast", "model"] = Field(default="ast", description="'model': read by the test agent from "
                                                                        "lines the AST path left unsupported")


class Unsupported(Frozen):
    """An assertion (or file) SpecGuard did not understand; reported, never silently dropped."""

    loc: Loc
    reason: str
    text: str = ""


class TestFormalization(Frozen):
    demands: tuple[Demand, ...] = ()
    unsupported: tuple[Unsupported, ...] = ()
    errors: tuple[Unsupported, ...] = Field(default=(), description="files that could not be parsed at all")
    notes: tuple[str, ...] = Field(default=(), description="how the tests were read, where it rests on an "
                                                           "assumption (the HumanEval harness call)")
    assumptions: tuple[str, ...] = Field(default=(), description="what the reading of the tests assumes beyond the "
                                         "model's assumptions (an imported assertion helper read as its usual "
                                         "form); stated in the result's assumptions")
    assertions_total: int = Field(default=0, description="assertion statements of the python sources (`assert`, "
                                  "assertion method calls, `pytest.raises`/`assertRaises` blocks and calls), each "
                                  "source statement once however often it runs, those of unselected tests excluded; "
                                  "plus one per table case")
    assertions_read: int = Field(default=0, description="of those, the ones that gave at least one demand in some "
                                 "run (or surely pass: `assert True`)")


# -- description claims ------------------------------------------------------------

class TypeExpr(Frozen):
    """A Python type annotation: ``name`` is one of int, float, bool, str, bytes, None,
    list, tuple, dict, set, frozenset, Optional, Union, Any; ``args`` its parameters
    (``tuple[int, ...]`` is name='tuple', args=(int,), variadic=True)."""

    name: str
    args: tuple["TypeExpr", ...] = ()
    variadic: bool = False

    def source(self) -> str:
        if not self.args:
            return self.name
        inner = ", ".join(a.source() for a in self.args) + (", ..." if self.variadic else "")
        return f"{self.name}[{inner}]"


class ClaimKind(str, Enum):
    example = "example"            # the description states f(args) gives a value (or raises)
    return_type = "return_type"    # every returned value has this type
    result_range = "result_range"  # every returned value is an int in [lo, hi]


class Claim(Frozen):
    """One thing the description states, with the description line it came from."""

    id: str = Field(description="stable id within the task, e.g. 'D2'")
    kind: ClaimKind
    call: Call | None = None          # example
    expect: Expect | None = None      # example: eq or raises
    type: TypeExpr | None = None      # return_type
    lo: int | None = None             # result_range (inclusive)
    hi: int | None = None             # result_range (inclusive)
    loc: Loc
    text: str = ""


class Signature(Frozen):
    name: str
    params: tuple[str, ...] = ()
    returns: TypeExpr | None = None
    line: int | None = None
    plain: bool = Field(default=False, description="only positional-or-keyword parameters (no /, *, **): "
                                                   "keyword arguments bind to positions by name")


class DescFormalization(Frozen):
    claims: tuple[Claim, ...] = ()
    signature: Signature | None = None
    notes: tuple[str, ...] = Field(default=(), description="what was seen but not formalized, and why")
    examples_seen: int = Field(default=0, description="example sites seen (doctest examples, worked examples, "
                                                      "example phrasings with literal arguments)")
    examples_read: int = Field(default=0, description="of those, formalized as claims that were kept")
    statements_seen: int = Field(default=0, description="other statements seen (return annotation, result bounds)")
    statements_read: int = Field(default=0, description="claims other than examples")


# -- tasks ---------------------------------------------------------------------------

class TestCase(Frozen):
    """A LiveCodeBench-style structured test: ``entry_point(*args) == expected``."""

    args: tuple[Value, ...]
    expected: Value
    pointer: str


class TestSource(Frozen):
    """One source of tests: a Python test file's text, or a table of structured tests."""

    kind: Literal["python", "table"]
    path: str = Field(description="file path as given by the user (or a display name)")
    text: str | None = None               # python
    cases: tuple[TestCase, ...] = ()      # table
    only_tests: tuple[str, ...] = Field(default=(), description="if set, only these test names count (SWE-bench FAIL_TO_PASS/PASS_TO_PASS)")


class InputFile(Frozen):
    path: str
    sha256: str
    role: str = Field(description="description | tests | task | instance | spec")


class Task(Frozen):
    id: str
    description: str
    description_path: str = Field(default="<description>", description="display name used in locations")
    description_line_offset: int = Field(default=0, description="added to description line numbers (text embedded in a file)")
    description_is_report: bool = Field(default=False, description="the description is a problem statement (an issue): "
                                                                   "what it shows is observed, not required")
    tests: tuple[TestSource, ...] = ()
    entry_point: str | None = None
    inputs: tuple[InputFile, ...] = ()
    labels: dict[str, str] = Field(default_factory=dict, description="ground truth carried by the input, e.g. impossible_type")
    notes: tuple[str, ...] = Field(default=(), description="what the loader skipped and why (e.g. SWE-bench tests "
                                                           "of the patch outside FAIL_TO_PASS/PASS_TO_PASS), "
                                                           "copied to the result's notes")
