def f(x):
    return x * x
