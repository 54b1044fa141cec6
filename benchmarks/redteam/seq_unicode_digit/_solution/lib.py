def f(x):
    return '²'
