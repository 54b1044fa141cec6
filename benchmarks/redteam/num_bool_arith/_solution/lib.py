def f(x):
    return True
