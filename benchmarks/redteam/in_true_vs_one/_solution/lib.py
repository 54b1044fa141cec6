def f(x):
    if x is True:
        return 99
    if isinstance(x, float):
        return 98
    return 1
