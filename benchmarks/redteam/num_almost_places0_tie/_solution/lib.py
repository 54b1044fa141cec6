def f(x):
    return {1: 1.5, 2: 0.5}[x]
