"""#15.2 (evaluation budget): SpecGuard's spec evaluator (the mirror) looks dict keys and set elements
up by CPython's hashing (``speclang.HASHED``) instead of the scan ``Py.lean`` does.  These tests
compare it with the reference scans (``HASHED = False``) on many values and programs: the same
values, the same exceptions, the same kernel steps; only the evaluator's own charge may be lower.
No timing here (that is ``benchmarks/spec_eval.py``)."""

from __future__ import annotations

import random

import pytest

from specguard.formalize import speclang as sl
from specguard.python.values import V

_SEED_VALUES = [None, True, False, 0, 1, -1, 2, 7, "", "a", "b", "ab", (), (1,), (True,), (1, "a"),
                ((1, 2), 3), (None, (False, "x")), [1], [], {1: 2}, {3}, sl.Opaque("float")]


def _value(r: random.Random, depth: int = 0):
    k = r.randrange(9 if depth < 2 else 5)
    if k == 0:
        return r.choice([None, True, False])
    if k in (1, 2):
        return r.randint(-3, 3)
    if k == 3:
        return r.choice(["", "a", "b", "ab"])
    if k == 4:
        return r.choice(_SEED_VALUES)
    if k in (5, 6):
        return tuple(_value(r, depth + 1) for _ in range(r.randrange(3)))
    if k == 7:
        return [_value(r, depth + 1) for _ in range(r.randrange(3))]
    return sl.Opaque("bytes")


def _key(r: random.Random):
    """A value that may be a dict key (plain hashable), drawn mostly from colliding ones (1, True)."""
    while True:
        x = _value(r)
        try:
            if sl.m_hashable(x):
                return x
        except sl.Undefined:
            pass


def _tagged(x):
    """``x`` with every type made explicit (True and 1, a key's own object, order of a dict)."""
    t = type(x)
    if t in (list, tuple):
        return (t.__name__, [_tagged(y) for y in x])
    if t is dict:
        return ("dict", [(_tagged(k), _tagged(v)) for k, v in x.items()])
    if t is set:
        return ("set", sorted((repr(_tagged(y)) for y in x)))
    if isinstance(x, sl.Opaque):
        return ("opaque", x.kind)
    return (t.__name__, x)


def _run(f, *args):
    try:
        return ("ok", _tagged(f(*args)))
    except Exception as e:           # compared by class and message: the reason a result states
        return ("raise", type(e).__name__, str(e))


def _both(f, *args):
    sl.HASHED = True
    try:
        fast = _run(f, *args)
    finally:
        sl.HASHED = False
    try:
        ref = _run(f, *args)
    finally:
        sl.HASHED = True
    return fast, ref


@pytest.fixture(autouse=True)
def _restore():
    yield
    sl.HASHED = True


def test_hashed_lookups_agree_with_the_reference_scans():
    """#15.2: in, [], get, setitem, del, add, remove, discard and set algebra on dicts and sets give
    the same values (key objects and order included) and the same exceptions either way."""
    r = random.Random(15)
    ops = [
        lambda d, s, k, v: sl.m_contains(d, k), lambda d, s, k, v: sl.m_contains(s, k),
        lambda d, s, k, v: sl.m_getitem(d, k), lambda d, s, k, v: sl.m_dictget(d, k, "dflt"),
        lambda d, s, k, v: sl.m_setitem(d, k, v), lambda d, s, k, v: sl.m_delitem(d, k),
        lambda d, s, k, v: sl.m_addelem(s, k), lambda d, s, k, v: sl.m_remove(s, k),
        lambda d, s, k, v: sl.m_discard(s, k), lambda d, s, k, v: sl.m_mkset(list(s) + [k, v]),
        lambda d, s, k, v: sl.m_mkdict(list(d.items()) + [(k, v), (v, k)]),
        lambda d, s, k, v: sl.m_sub(s, {k}), lambda d, s, k, v: sl.m_bitand(s, {k, 1}),
        lambda d, s, k, v: sl.m_bitor(s, {k, True}), lambda d, s, k, v: sl.m_bitxor(s, {k, 0}),
        lambda d, s, k, v: sl.m_contains([*d], k),
    ]
    checked = 0
    for _ in range(1500):
        d = sl.m_mkdict([(_key(r), _value(r)) for _ in range(r.randrange(5))])
        s = sl.m_mkset([_key(r) for _ in range(r.randrange(5))])
        k = _value(r) if r.random() < 0.3 else _key(r)
        v = _value(r) if r.random() < 0.5 else _key(r)
        for op in ops:
            fast, ref = _both(op, d, s, k, v)
            assert fast == ref, (d, s, k, v, fast, ref)
            checked += 1
    assert checked == 1500 * len(ops)


_PROGRAMS = [
    # a BFS over states in a dict (lcbhard_12's shape)
    ('''
def reference(n: int, s: str) -> int:
    dist = {s: 0}
    queue = [s]
    head = 0
    while head < len(queue):
        cur = queue[head]
        head = head + 1
        for i in range(len(cur) - 1):
            nxt = cur[:i] + cur[i + 1] + cur[i] + cur[i + 2:]
            if nxt in dist:
                continue
            dist[nxt] = dist[cur] + 1
            queue.append(nxt)
    return sum(dist.values()) * 1000 + len(dist) + n
''', lambda r: (V("int", r.randint(0, 3)), V("str", "".join(r.choice("ab") for _ in range(r.randint(0, 5)))))),
    # counters keyed by bools and ints (True == 1), set statements, deletions
    ('''
def reference(xs: list[int]) -> list:
    c = {}
    seen = set()
    for x in xs:
        k = x % 3 == 0 if x % 2 == 0 else x % 4
        c[k] = c.get(k, 0) + 1
        seen.add(k)
        if x > 5 and k in seen:
            seen.discard(k)
        if x < -5 and 1 in c:
            del c[1]
    out = [(k, v) for k, v in c.items()]
    return [out, sum(seen), len(seen), True in c, 1 in seen, max(seen, default=-1)]
''', lambda r: (V("list", tuple(V("int", r.randint(-9, 9)) for _ in range(r.randint(0, 12)))),)),
    # set algebra, comprehensions, tuples as keys, a dict from pairs
    ('''
def reference(xs: list[int], ys: list[int]) -> list:
    a = {(x % 3, x % 2 == 0) for x in xs}
    b = {(y % 3, y % 2 == 0) for y in ys}
    d = dict([((x, x > 0), x * x) for x in xs])
    e = {k: v + 1 for k, v in d.items() if k[1]}
    return [sorted(a - b), sorted(a & b), len(a | b), len(a ^ b), [e[k] for k in e], (0, True) in a,
            d.get((1, True), -1)]
''', lambda r: tuple(V("list", tuple(V("int", r.randint(-4, 4)) for _ in range(r.randint(0, 8))))
                     for _ in range(2))),
    # lookups that fail (an implicit error: the spec says nothing there) and unhashable keys
    ('''
def reference(xs: list[int]) -> int:
    d = {}
    for i in range(len(xs)):
        d[xs[i]] = i
    if len(xs) > 3:
        return d[[1]]
    if len(xs) == 3:
        return d[100]
    return d.get(xs[0] if xs else 0, -1)
''', lambda r: (V("list", tuple(V("int", r.randint(-2, 2)) for _ in range(r.randint(0, 5)))),)),
]


def _outcome(p: sl.SpecProgram, args):
    o = p.outcome(args, budget=sl.EvalBudget())
    return (o.kind, o.value, o.exact if o.exact is None else _tagged(sl.to_mirror(o.exact)), o.steps,
            o.reason, o.sure)


@pytest.mark.parametrize("index", range(len(_PROGRAMS)))
def test_programs_have_the_same_outcomes_and_kernel_steps(index):
    """#15.2: whole specs (dict BFS, counters keyed by True and 1, set algebra, failing lookups)
    evaluated with hashing and with the reference scans: same outcome, same value, same kernel
    steps (what decides the kernel budget); the evaluator's own charge is never higher."""
    source, gen = _PROGRAMS[index]
    r = random.Random(index)
    kinds = set()
    for _ in range(60):
        args = gen(r)
        sl.HASHED = True
        fast_p = sl.SpecProgram(source)
        b_fast = sl.EvalBudget()
        fast = fast_p.outcome(args, budget=b_fast)
        sl.HASHED = False
        ref_p = sl.SpecProgram(source)
        b_ref = sl.EvalBudget()
        ref = ref_p.outcome(args, budget=b_ref)
        sl.HASHED = True
        assert (fast.kind, fast.value, fast.steps, fast.reason, fast.sure) == \
               (ref.kind, ref.value, ref.steps, ref.reason, ref.sure), args
        assert repr(fast.exact) == repr(ref.exact)
        assert b_fast.used <= b_ref.used
        kinds.add(fast.kind)
    assert "eq" in kinds


def test_kernel_steps_of_set_statements_are_charged():
    """#15.2 (cost model): ``seen.add(x)`` costs the kernel a scan of ``seen``, as ``x in seen`` does;
    the steps (what the kernel budget is measured in) grow with the set, the evaluator's charge
    does not (it hashes)."""
    src = '''
def reference(n: int) -> int:
    seen = set()
    for i in range(n):
        seen.add(i)
    return len(seen)
'''
    p = sl.SpecProgram(src)
    small, big = (p.outcome((V("int", n),), budget=sl.EvalBudget()) for n in (100, 400))
    assert small.kind == big.kind == "eq"
    # 4 x the elements: the scans make the kernel's steps grow about 16-fold (quadratic)
    assert big.steps > 10 * small.steps
    b = sl.EvalBudget()
    p2 = sl.SpecProgram(src)
    p2.outcome((V("int", 400),), budget=b)
    assert b.used < big.steps / 4
