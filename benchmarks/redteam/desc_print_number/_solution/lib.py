def f(x):
    return str(x)
