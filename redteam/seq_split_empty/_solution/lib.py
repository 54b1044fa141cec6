def f(x):
    return ''
