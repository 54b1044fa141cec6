def f(x):
    return 'aaa'
