def f(x):
    return 2 * x
