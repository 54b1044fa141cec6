def f(x):
    return 2 if isinstance(x, tuple) else 1
