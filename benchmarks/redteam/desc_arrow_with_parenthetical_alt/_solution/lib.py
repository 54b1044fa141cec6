def f(x, base=2):
    return x * base
