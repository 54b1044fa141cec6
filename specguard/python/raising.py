"""Assertion helpers of the ``raises(E, fn)`` kind (#12.1): ``assert raises(E, lambda: f(x))``.

Projects write their own raising checks instead of ``pytest.raises``; toolz's is ::

    def raises(err, lamda):
        try:
            lamda()
            return False
        except err:
            return True

A *test-module* function whose body is exactly one of these forms (read here by its ``ast``,
never run) returns a true value only when calling its second parameter with no arguments raises
an exception its first parameter matches (``except err`` is Python's ``isinstance`` test, a tuple
of classes included); any other exception propagates and the assertion fails too.  So
``assert raises(E, g)`` passing means ``g()`` raised ``E`` (or a subclass): the ``raises`` demand
``pytest.raises(E, g)`` gives.  Accepted bodies (a docstring first is allowed):

* ``try: g(); return False`` / ``except err [as e]: return True``
* ``try: g()`` / ``except err [as e]: return True`` / ``return False`` after the ``try``
* ``try: g()`` / ``except err [as e]: return True`` / ``else: return False``

and, for a helper called as a statement (``assert_raises(E, g)``), a body that ends the test with
an error when nothing is raised: ``try: g()`` / ``except err [as e]: pass`` (or ``return``) /
``else: raise ...`` (or ``assert False``); the failing statement must stand in the ``else`` block
(in the ``try`` block, ``except err`` could catch the very error it raises).

A helper *imported* under the name ``raises`` cannot be read: its code is not part of the task.
Only the known helpers of :data:`KNOWN_HELPERS` (``from toolz.utils import raises``) are read, as
the first form above, under :func:`imported_assumption`, stated in ``result.json`` (the
assumptions of the result), never silently; a ``raises`` from anywhere else may mean something else.
"""

from __future__ import annotations

import ast

__all__ = ["helper_form", "imported_assumption", "KNOWN_HELPERS"]



def imported_assumption(name: str, qualified: str) -> str:
    return (f"the imported test helper `{name}` (`{qualified}`, whose code is not part of the task) is "
            f"`try: fn(); return False` / `except err: return True`: `assert {name}(E, fn)` is read as "
            "`fn()` raising E")


KNOWN_HELPERS = frozenset({"toolz.utils.raises", "cytoolz.utils.raises"})
"""Imported helpers whose published code is the value form (``try: func(); return False`` /
``except err: return True``).  Only these: a helper of the same name elsewhere may mean something
else (``nose.tools.raises`` is a decorator factory: ``assert raises(E, fn)`` always passes)."""


def importable(qualified: str) -> bool:
    """``qualified`` may be read under :func:`imported_assumption`: exactly a known helper."""
    return qualified in KNOWN_HELPERS


def _is_bool_return(s: ast.stmt, value: bool) -> bool:
    return isinstance(s, ast.Return) and isinstance(s.value, ast.Constant) and s.value.value is value


def _calls_param(s: ast.stmt, param: str) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name) \
        and s.value.func.id == param and not s.value.args and not s.value.keywords


def _fails(s: ast.stmt) -> bool:
    """A statement that surely ends the test with an error: ``raise X``, ``assert False``."""
    if isinstance(s, ast.Raise) and s.exc is not None:
        return True
    return isinstance(s, ast.Assert) and isinstance(s.test, ast.Constant) and s.test.value in (False, 0, None, "")


def helper_form(fn: ast.FunctionDef) -> str | None:
    """``"value"`` when ``fn`` returns True exactly when its callable raises (read in an ``assert``),
    ``"statement"`` when a call of it as a statement fails unless its callable raises; None when
    its body is no accepted form.  Parameters: exactly two positional ones (the exception, the
    callable), no defaults, decorators, ``*args``."""
    a = fn.args
    if fn.decorator_list or a.posonlyargs or a.vararg or a.kwarg or a.kwonlyargs or a.defaults \
            or len(a.args) != 2 or isinstance(fn, ast.AsyncFunctionDef):
        return None
    err, g = a.args[0].arg, a.args[1].arg
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if not body or not isinstance(body[0], ast.Try) or type(body[0]).__name__ != "Try":
        return None
    t, after = body[0], body[1:]
    if t.finalbody or len(t.handlers) != 1:
        return None
    h = t.handlers[0]
    if not (isinstance(h.type, ast.Name) and h.type.id == err) or h.name in (err, g):
        return None
    if not t.body or not _calls_param(t.body[0], g):
        return None
    rest = t.body[1:]
    if len(h.body) == 1 and _is_bool_return(h.body[0], True):
        if rest == [] and not t.orelse and len(after) == 1 and _is_bool_return(after[0], False):
            return "value"
        if len(rest) == 1 and _is_bool_return(rest[0], False) and not t.orelse and not after:
            return "value"
        if rest == [] and len(t.orelse) == 1 and _is_bool_return(t.orelse[0], False) and not after:
            return "value"
        return None
    quiet = len(h.body) == 1 and (isinstance(h.body[0], ast.Pass)
                                 or (isinstance(h.body[0], ast.Return) and h.body[0].value is None))
    # (not `try: g(); raise AssertionError` / `except err: pass`: `err` may match that very error)
    if quiet and rest == [] and len(t.orelse) == 1 and _fails(t.orelse[0]) and not after:
        return "statement"
    return None
