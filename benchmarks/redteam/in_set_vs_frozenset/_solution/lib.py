def f(x):
    return 2 if isinstance(x, frozenset) else 1
