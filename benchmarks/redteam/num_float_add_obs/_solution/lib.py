def f(x):
    return 0.1
