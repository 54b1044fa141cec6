def f(x):
    return 'abcdef'
