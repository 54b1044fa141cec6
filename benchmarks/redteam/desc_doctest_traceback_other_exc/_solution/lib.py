def f(x):
    if x < 0:
        raise TypeError('negative')
    return 2 * x
