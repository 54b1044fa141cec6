def f(x):
    return 'ß'
