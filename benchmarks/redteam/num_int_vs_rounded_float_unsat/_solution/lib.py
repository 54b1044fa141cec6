def f(x):
    return 9007199254740993
