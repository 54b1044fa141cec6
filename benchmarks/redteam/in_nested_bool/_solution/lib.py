def f(x):
    return 2 if x[0] is True else 1
