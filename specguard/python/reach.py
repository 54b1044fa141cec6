"""Helpers no selected test can run: assertions that do not count when only some tests run.

When a task names its tests (``only_tests``), pytest runs those tests, the module's top level, class
bodies and what the framework calls by name (setups, fixtures, hooks); a helper function or method
runs only if running code reaches it.  Python reaches a function through its name: a ``Name``, an
attribute ``.name``, or a string (``getattr(x, "name")``).  A helper is unreachable here when none
of these appears outside the code that does not run (bodies of tests that are not selected, and of
helpers found unreachable, to a fixpoint), and nothing reaches names dynamically.

Candidates, and what keeps a function a candidate only when it is certain:

* module-level functions and methods of test classes (and their base classes of the file), with no
  decorator, not a test, not a fixture, not a dunder, not a name the frameworks call
  (``setUp``..., every attribute of ``unittest.TestCase``, ``setup_*``/``teardown_*``, ``pytest_*``,
  ``load_tests``);
* a method only when no instance of its class can reach other code: the classes deriving from it
  are named in running code only as bases of class statements, and the first parameter of their
  methods is only read as ``self.attr`` (never passed on, ``type(self)``, ...): a library function
  given the object could call any method by name (``keys``, ``read``...); nor can the class reach
  other code when it is made (a decorator, a metaclass, class keywords, a base class outside the
  test classes' MROs);
* nothing in running code reaches names dynamically (``vars``, ``dir``, ``globals``, ``eval``,
  ``__dict__``, ``getattr`` of a name that is not a constant, the module object through
  ``sys.modules`` or ``__name__`` ...), the module defines no pytest hook, running code never
  touches pytest's ``request`` (``request.instance`` is the test object), and no other file of the
  task mentions the name (it could import it).
"""

from __future__ import annotations

import ast
import unittest
from typing import Iterable

__all__ = ["unreachable_helpers"]

_FRAMEWORK = frozenset(dir(unittest.TestCase)) | frozenset({
    "setUp", "tearDown", "setUpClass", "tearDownClass", "setUpModule", "tearDownModule", "asyncSetUp",
    "asyncTearDown", "setup", "teardown", "load_tests"})
_FRAMEWORK_PREFIXES = ("setup_", "teardown_", "pytest_", "test")
_DYNAMIC = frozenset({"vars", "dir", "globals", "locals", "eval", "exec", "compile", "__dict__", "__getattribute__",
                      "getmembers", "__import__", "import_module", "getattr_static", "__getattr__",
                      # the module object itself, which other code could search by name
                      "modules", "__name__", "__spec__", "__loader__", "getmodule"})
# pytest's request object (and hooks given test items) reach the test object and its class
_TEST_OBJECT_HANDLES = frozenset({"request", "instance"})
_BY_STRING = frozenset({"getattr", "hasattr", "attrgetter", "methodcaller", "setattr", "delattr"})


_EVERY_CLASS = "<every class>"     # not a Python name: the test object of any class may be handed on


def _framework_name(name: str) -> bool:
    return (name.startswith("__") and name.endswith("__")) or name in _FRAMEWORK or name.startswith(_FRAMEWORK_PREFIXES)


def unreachable_helpers(tree: ast.Module, tests: Iterable[ast.AST], dead: Iterable[list[ast.stmt]],
                        test_classes: Iterable[list[ast.ClassDef]], is_fixture, other_texts: Iterable[str]
                        ) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The helper functions of ``tree`` no running code can reach.  ``tests``: the ``def`` nodes
    collected as tests; ``dead``: the bodies of the tests that do not run; ``test_classes``: the MRO
    (classes of the file) of each collected test class; ``is_fixture(fn)``; ``other_texts``: the
    other files of the task."""
    test_ids = {id(t) for t in tests}
    others = list(other_texts)
    hierarchy: dict[int, ast.ClassDef] = {id(k): k for chain in test_classes for k in chain}
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    candidates: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef | None]] = []
    for st in tree.body:
        if isinstance(st, ast.ClassDef) and id(st) in hierarchy:
            candidates.extend((m, st) for m in st.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)))
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            candidates.append((st, None))
    candidates = [(fn, k) for fn, k in candidates if id(fn) not in test_ids and not fn.decorator_list
                  and not _framework_name(fn.name) and not is_fixture(fn)
                  and not any(fn.name in t for t in others)]
    if not candidates or any(isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name.startswith("pytest_")
                             for st in tree.body):
        return []
    dead_nodes: set[int] = set()
    for body in dead:
        for st in body:
            dead_nodes.update(id(n) for n in ast.walk(st))
    found: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    while True:
        live = _live_facts(tree, dead_nodes)
        if live is None:
            return []
        names, escaping = live
        more = [fn for fn, k in candidates if id(fn) not in found and fn.name not in names
                and (k is None or not _instances_escape(k, classes, escaping, hierarchy))]
        if not more:
            return list(found.values())
        for fn in more:
            found[id(fn)] = fn
            for st in fn.body:
                dead_nodes.update(id(n) for n in ast.walk(st))


def _live_facts(tree: ast.Module, dead: set[int]) -> tuple[set[str], set[str]] | None:
    """(names running code mentions, class names it uses as values or whose ``self`` escapes), or
    None when running code reaches names dynamically."""
    names: set[str] = set()
    escaping: set[str] = set()
    parents: dict[int, ast.AST] = {}
    todo: list[tuple[ast.AST, ast.ClassDef | None, str | None]] = [(tree, None, None)]
    while todo:
        node, cls, owner = todo.pop()
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            if id(child) in dead:
                continue
            c_cls, c_owner = cls, owner
            if isinstance(child, ast.ClassDef):
                c_cls, c_owner = child, None
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(node, ast.ClassDef):
                a = child.args.posonlyargs + child.args.args
                c_owner = a[0].arg if a else None
            todo.append((child, c_cls, c_owner))
        if isinstance(node, (ast.Name, ast.Attribute)) and \
                (node.id if isinstance(node, ast.Name) else node.attr) in _TEST_OBJECT_HANDLES:
            escaping.add(_EVERY_CLASS)
        if isinstance(node, ast.Name):
            if node.id in _DYNAMIC:
                return None
            names.add(node.id)
            p = parents.get(id(node))
            bare = not (isinstance(p, ast.Attribute) and p.value is node)
            if owner is not None and node.id == owner and bare and cls is not None:
                escaping.add(cls.name)
            is_base = isinstance(p, ast.ClassDef) and node in p.bases
            if not is_base:
                escaping.add(node.id)     # a class named as a value (instances may be made and passed on)
        elif isinstance(node, ast.Attribute):
            if node.attr in _DYNAMIC:
                return None
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.update(_words(node.value))
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.alias):
            names.add(node.name.split(".")[-1])
            if node.asname:
                names.add(node.asname)
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if fname in _BY_STRING and not all(isinstance(a, ast.Constant) for a in node.args[1:] or node.args):
                return None
    return names, escaping


def _words(s: str) -> set[str]:
    """Every identifier-like part of a string (a name reached through it: ``getattr(x, "name")``)."""
    import re
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", s))


def _instances_escape(k: ast.ClassDef, classes: list[ast.ClassDef], escaping: set[str], hierarchy: dict[int, ast.ClassDef]
                      ) -> bool:
    """An instance of ``k`` or of a class deriving from it, or the class itself, may reach code that
    calls its methods by name: the class is used as a value or its object is passed on; or a class
    deriving from it (``k`` included) is given to other code when it is made: a decorator, a
    metaclass or class keywords (``__init_subclass__``), a base outside the test classes' MROs
    (whose metaclass or ``__init_subclass__`` sees the new class)."""
    subclasses = {k.name}
    changed = True
    while changed:
        changed = False
        for c in classes:
            if c.name not in subclasses and any(isinstance(b, ast.Name) and b.id in subclasses for b in c.bases):
                subclasses.add(c.name)
                changed = True
    if subclasses & escaping or _EVERY_CLASS in escaping:
        return True
    for c in classes:
        if c.name in subclasses and (c.decorator_list or c.keywords or id(c) not in hierarchy):
            return True
    return False
