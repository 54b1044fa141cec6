def f(x):
    return str(list(range(1, x + 1)))
