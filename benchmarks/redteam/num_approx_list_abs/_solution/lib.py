def f(x):
    return [0.14, 0.2]
