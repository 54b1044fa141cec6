def f(x):
    return 3
