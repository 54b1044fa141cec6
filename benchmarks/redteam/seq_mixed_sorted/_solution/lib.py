def f(x):
    return [2, 1.5, True]
