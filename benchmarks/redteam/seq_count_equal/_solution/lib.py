def f(x):
    return [2, 1, 2]
