def f(x):
    return 1
