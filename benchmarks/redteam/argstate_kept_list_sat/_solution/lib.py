_kept = []

def f(l):
    for k in _kept:
        k.append(0)
    _kept.append(l)
