def f(x):
    return b'ab'
