def f(x):
    return {'b': 1, 'a': 2}
