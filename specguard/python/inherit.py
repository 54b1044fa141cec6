"""Test methods a test class inherits: what pytest and unittest collect from its base classes.

Pytest collects, for a test class, every ``test*`` name of its MRO (``PeekableTests(Mixin,
TestCase)`` runs ``Mixin.test_passthrough`` as ``PeekableTests::test_passthrough``, with
``PeekableTests``'s attributes and setups); unittest's loader does the same through ``dir``.
The name resolves as Python resolves attributes: in the first class of the MRO whose body binds it.

The MRO is computed by Python itself, on empty stand-in classes with the same graph (the file's
classes, and one empty class per external base): no test code runs.  Only classes whose base
classes are all of the file, or external ones that add no ``test*`` names (``TestCase``,
``object``), are read; any doubt (a base defined twice, an MRO Python rejects, a name bound in a
base by something other than its final ``def``) leaves the name out, with its assertions unread.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator

from specguard.python.bindings import Symbols

__all__ = ["mro", "inherited_tests"]

_MAX_CLASSES = 50


def mro(cls: ast.ClassDef, local: Callable[[ast.expr], ast.ClassDef | None],
        external_ok: Callable[[ast.expr], bool]) -> list[ast.ClassDef] | None:
    """The classes of the file in ``cls``'s MRO, in MRO order (``cls`` first); None when it cannot
    be told (a base neither of the file nor an accepted external class, an MRO Python rejects, more
    than ``_MAX_CLASSES`` classes)."""
    made: dict[int, type] = {}
    nodes: dict[type, ast.ClassDef] = {}
    externals: dict[str, type] = {}

    def build(k: ast.ClassDef, depth: int) -> type | None:
        if id(k) in made:
            return made[id(k)]
        if depth > 20 or len(made) > _MAX_CLASSES:
            return None
        bases: list[type] = []
        for b in k.bases:
            if isinstance(b, ast.Starred):
                return None
            lk = local(b)
            if lk is not None:
                t = build(lk, depth + 1)
            elif external_ok(b):
                key = ast.dump(b)
                t = externals.setdefault(key, type(f"_external{len(externals)}", (), {}))
            else:
                return None
            if t is None:
                return None
            bases.append(t)
        try:
            t = type(f"_local{len(made)}", tuple(bases), {})
        except TypeError:           # duplicate base, inconsistent MRO: Python rejects the class
            return None
        made[id(k)] = t
        nodes[t] = k
        return t

    top = build(cls, 0)
    if top is None:
        return None
    return [nodes[t] for t in top.__mro__ if t in nodes]


def inherited_tests(chain: list[ast.ClassDef], symbols_of: Callable[[ast.ClassDef], Symbols | None]
                    ) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef]] | None:
    """(``def``, class defining it) for each ``test*`` name the first class of ``chain`` (its MRO)
    inherits and does not bind itself, when the first class of the MRO binding the name binds it by
    one ``def`` statement (the caller checks it is the final binding and a test); None when a body
    of the chain may bind names dynamically (any name may then come from it)."""
    tables = [symbols_of(k) for k in chain]
    if any(sym is None or sym.dynamic or sym.stars for sym in tables):
        return None
    out = []
    seen: set[str] = set(tables[0].bindings)
    for k, sym in zip(chain[1:], tables[1:]):
        for name in sym.bindings:
            if name in seen:
                continue
            seen.add(name)
            defs = [st for st in k.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == name]
            if name.startswith("test") and len(defs) == 1:
                out.append((defs[0], k))
    return iter(out)
