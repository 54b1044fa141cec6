"""What a call leaves in an argument (#12.1): ``l = [3, 1]; f(l); assert l == [1, 3]``.

The implementation model stays ``impl : Val -> Outcome`` over exact inputs.  The state of an
argument after a call of the function under test is an input of its own: the call's exact
arguments (as they were when it was made) and which argument is read (its position, or its
keyword).  Its outcome is "returns the argument's value after the call", whether the call returned
or raised.  The Lean input is

    Val.pair (Val.pair (Val.str "<argument after the call>") (Val.pair <args> (Val.str <which>)))
             (Val.str <f>)

which no call of the function (``pair (tuple ..) (str f)``, ``pair (pair (tuple ..) (dict ..))
(str f)``), no object history (``"<object>"``) and no other library function (``"<library>"``)
produces, so two tests that leave one argument of one call in different states are a
kernel-checked conflict, and nothing else about ``f`` is affected.  The assumption it needs is
:data:`ASSUMPTION`, stated in ``result.json``.

In a doctest session (``specguard/formalize/description.py``, ``_session_states``):
``>>> xs = [3, 1]``, ``>>> f(xs)``, ``>>> xs`` showing ``[1, 3]`` is a claim about that input, when
``xs`` was bound by a display of constants, is the call's only mutable argument, and the session
changed nothing before (the session's rules for results then apply to the name).

Which readings the test reader makes (``specguard/formalize/tests.py``, :meth:`Walker.argument_states`);
anything else keeps the reason "a call is observed by what it returns or raises":

* the statement is the call itself (``f(l)``) or binds its result to one other name
  (``r = f(l)``), in a test (never at module level, where any function may reach the name);
* the argument is a plain local name of the test holding an exact list, dict or set (a display,
  a copy, or exact computation), handed as it is (not ``*l``), and the call's arguments are all
  exact (no two of them share a mutable object, :meth:`Walker.call_args`);
* what else may share an object with the argument loses its value, as before; the name itself
  holds the state as a result of its own, so every rule of result names applies: a later change
  through it or anything sharing its objects, handing it to a call, iterating it, any later call
  that may reach what it holds (another call of ``f`` may change a list ``f`` kept) ends it, and a
  held result is never kept for such a name (its class is never immutable plain data);
* a description rule for every input of ``f`` (a return type, bounds) or a spec is about what
  ``f`` returns, not about what it leaves in an argument: such assertions are set apart then
  (``check.py``), as other library functions' are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:      # pragma: no cover
    from specguard.models import Call

MARKER = "<argument after the call>"

ASSUMPTION = ("What a call of the function under test leaves in an argument it was given (a list, dict or set "
              "the test built) is determined by the call's arguments, as its outcome is, and is plain data "
              "(no hidden state, randomness or I/O); a call whose effect a test reads from such an argument "
              "changes nothing else that later calls see")


def is_argument_state(call: "Call | None") -> bool:
    return call is not None and call.after is not None


def involves(call: "Call | None") -> bool:
    """Whether ``call`` is such an input, or has one's state as an argument (``f(l)`` again after
    ``f(l)``: the value ``obj("result", (source, key))`` of ``library.result_of``, whose key is
    an argument-state call's: ``Call.key`` ends it with ``{"after": ..}``, which no str value
    inside a key shows unescaped)."""
    from specguard.python.values import iter_children
    if call is None:
        return False
    if is_argument_state(call):
        return True

    def has(v) -> bool:
        if v.kind == "obj" and v.val[0] == "result":
            key = v.val[1].val[1].val
            if isinstance(key, str) and '{"after": ' in key:
                return True
        return any(has(x) for x in iter_children(v))
    return any(has(a) for a in call.args) or any(has(v) for _, v in call.kwargs)


def constant_display(node) -> bool:
    """A list, dict or set display of constants (nested displays included, no names, no ``*``):
    every object in it is new and none is shared (``[[0]] * 2`` and ``[x, x]`` share one)."""
    import ast
    if not isinstance(node, (ast.List, ast.Dict, ast.Set)):
        return False
    ok = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.Constant, ast.Load, ast.UnaryOp, ast.USub, ast.UAdd)
    return all(isinstance(n, ok) for n in ast.walk(node)) and not any(
        isinstance(n, ast.Dict) and None in n.keys for n in ast.walk(node))


def source(call: "Call", limit: int = 120) -> str:
    """``l after f(l)`` as reports show it: ``args[0] after f([3, 1])``."""
    from specguard.python.values import py_repr
    parts = [py_repr(a) for a in call.args] + [f"{k}={py_repr(v)}" for k, v in call.kwargs]
    which = f"args[{call.after}]" if call.after.isdigit() else call.after
    s = f"{which} after {call.target}({', '.join(parts)})"
    return s if len(s) <= limit else s[: limit - 3] + "..."


def lean_input(call: "Call") -> str:
    """The exact input (see the module docstring)."""
    from specguard.kernel.emit import lean_str, lean_val
    from specguard.python.values import V
    inner = lean_val(V("tuple", tuple(call.args)))
    if call.kwargs:
        inner = f"(Val.pair {inner} {lean_val(V('dict', tuple((V('str', k), v) for k, v in call.kwargs)))})"
    return (f"(Val.pair (Val.pair (Val.str {lean_str(MARKER)}) (Val.pair {inner} (Val.str {lean_str(call.after)}))) "
            f"(Val.str {lean_str(call.target)}))")
