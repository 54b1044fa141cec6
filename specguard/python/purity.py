"""Which builtins are pure, and the builtin types whose methods may be named as values.

Shared by the test-module reader (``formalize/tests.py``), doctest sessions
(``formalize/session.py``) and object histories (``formalize/objects.py``): a name in
:data:`PURE_BUILTINS` (when the test file does not shadow it) is a function whose result depends on
its arguments only: no I/O, no identity, no hash seed.
"""

from __future__ import annotations

import builtins

PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "dict", "divmod", "enumerate",
    "filter", "float", "format", "frozenset", "hex", "int", "isinstance", "issubclass", "iter", "len", "list",
    "map", "max", "min", "next", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "sorted",
    "str", "sum", "tuple", "type", "zip"})

# `str.lower` and the like: the method objects of these builtin types are named constants
BUILTIN_TYPES = {"str": str, "bytes": bytes, "list": list, "tuple": tuple, "dict": dict, "set": set,
                 "frozenset": frozenset, "int": int, "float": float}


def is_exception_class(name: str) -> bool:
    """``name`` is a builtin exception class (``ValueError``, ``StopIteration``): one class object
    for the whole process, whose attributes cannot be set, so where the name surely denotes the
    builtin it is a named constant like ``len`` (an argument ``too_long=RuntimeError``)."""
    obj = getattr(builtins, name, None)
    return isinstance(obj, type) and issubclass(obj, BaseException)


def builtin_key(name: str) -> str:
    """The named constant's key of the builtin ``name``: the object's own name, so that aliases of one
    object (``IOError`` and ``EnvironmentError`` are ``OSError``) are one key."""
    obj = getattr(builtins, name, None)
    own = getattr(obj, "__name__", None) if isinstance(obj, type) else None
    return f"builtin:{own if isinstance(own, str) and getattr(builtins, own, None) is obj else name}"
