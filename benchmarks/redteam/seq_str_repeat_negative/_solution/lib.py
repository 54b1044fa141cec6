def f(x):
    return 'ab'
