"""Which objects a test's names may share, beyond what an assignment says (``m = l``).

The test reader (:mod:`specguard.formalize.tests`) keeps, for each name, ``groups``: identifiers of
the objects it may reach.  A mutation through one name drops the exact value of every name whose
groups meet its groups.  That is sound only while every way a name can come to reach an object
adds that object's groups to it.  Assignments do (``groups_of`` of the right-hand side); these do
too (each was a certified false conflict before, tests/adversarial/test_alias_mutation.py):

* a statement SpecGuard does not model exactly may store anything it mentions into any object it
  may change (``d['k'] = l``, ``o.x = l``, ``self.x = l``, ``c += [l]``, ``g(c, l)``): those
  objects, and every name sharing them, now also reach what the statement mentions
  (:func:`join_receivers`);
* a name a lambda parameter or a comprehension variable stands for is one of the objects the
  expression iterates or is given (``[x.append(2) for x in [a]]``): a change through such a name
  is a change of anything the statement mentions (:func:`inner_names`);
* a function or class defined in the test (or a lambda) reaches the names of its body whenever it
  runs: any call that is not known to be harmless may run it, so it may change any of those names
  (:func:`captured_names`).

The rule for what SpecGuard cannot follow stays the reader's: a value that may have been changed
is not a literal any more (its reason names the line).
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import replace
from typing import Any, Callable, Iterable

from specguard.python.literals import is_mutable

_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def names_in(node: ast.AST) -> set[str]:
    """Every name ``node`` mentions (loaded or bound)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def param_names(args: ast.arguments) -> set[str]:
    """The parameters of a function or lambda."""
    return {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}


def inner_names(node: ast.AST) -> set[str]:
    """Names bound inside ``node`` itself: lambda parameters and comprehension variables."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Lambda):
            out |= param_names(n.args)
        elif isinstance(n, _COMPS):
            out |= {x for g in n.generators for x in names_in(g.target)}
    return out


def widen_inner(node: ast.AST, hazards: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``hazards`` of ``node`` plus, when one of them is a name bound inside ``node`` (a lambda
    parameter, a comprehension variable), every name ``node`` mentions: the object it stands for
    may be any of them (or anything they hold)."""
    inner = inner_names(node)
    hit = [line for name, line in hazards if name in inner]
    if not hit:
        return hazards
    return hazards + [(m, hit[0]) for m in sorted(names_in(node) - inner)]


def captured_names(node: ast.AST) -> set[str]:
    """Names a function or class defined in the test (or a lambda) may reach when it runs: every
    name it mentions (defaults and decorators too) but its own parameters."""
    names = names_in(node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        names -= param_names(node.args)
    return names


def lambdas_in(node: ast.AST) -> Iterable[ast.Lambda]:
    return (n for n in ast.walk(node) if isinstance(n, ast.Lambda))


def _only_iterated(node: ast.AST, scope: Any) -> set[str]:
    """Names ``node`` mentions only as the iterable of a loop or comprehension (``for i in xs``)
    while they hold an exact value whose items hold no mutable object: iterating hands out only
    those items, never an object a name holds."""
    iterated: Counter[str] = Counter(n.iter.id for n in ast.walk(node)
                                     if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Name))
    uses = Counter(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    out: set[str] = set()
    for name, k in iterated.items():
        b = scope.binding(name)
        v = b.value if b is not None else None
        if uses[name] != k or v is None or v.kind not in ("list", "tuple", "set", "frozenset", "dict", "str"):
            continue
        items = [a for a, _ in v.val] if v.kind == "dict" else ([] if v.kind == "str" else list(v.val))
        if not any(is_mutable(x) for x in items):
            out.add(name)
    return out


def join_receivers(scope: Any, node: ast.AST, hazards: list[tuple[str, int]], any_call: str,
                   holds_nothing: Callable[[str], bool] = lambda name: False) -> None:
    """After a statement not modelled exactly: every local name in ``hazards`` (whose object it
    may change, or hand to a callee) may now hold a reference to anything the statement mentions,
    and so may every name sharing an object with it: their groups grow by the groups of every
    mutable name of ``node``.  ``holds_nothing(name)``: the name holds an object that can hold no
    reference (a plain ``object()``), left as it is."""
    roots = {name for name, _ in hazards if name != any_call and scope.is_local(name) and not holds_nothing(name)}
    if not roots:
        return
    reached: set[int] = set()
    for name in names_in(node) - _only_iterated(node, scope):
        b = scope.binding(name)
        if b is not None and b.mutable:
            reached |= b.groups
    if not reached:
        return
    for r in sorted(roots):
        rb = scope.binding(r)
        if rb is None or not rb.mutable:
            continue        # an int, a str, a tuple of those: it can hold no reference
        old = rb.groups
        for name, ob in list(scope.all_bindings()):
            if (name == r or ob.groups & old) and not reached <= ob.groups and not holds_nothing(name):
                scope.bind(name, replace(ob, groups=ob.groups | reached))
