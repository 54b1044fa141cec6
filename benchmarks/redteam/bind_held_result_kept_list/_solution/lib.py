_seen = []

def f(x):
    _seen.append(x)
    return _seen
