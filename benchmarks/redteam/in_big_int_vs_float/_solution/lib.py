def f(x):
    return 2 if isinstance(x, float) else 1
