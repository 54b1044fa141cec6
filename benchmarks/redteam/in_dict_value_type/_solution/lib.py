def f(x):
    v = x['a']
    return 3 if v is True else 2 if isinstance(v, float) else 1
