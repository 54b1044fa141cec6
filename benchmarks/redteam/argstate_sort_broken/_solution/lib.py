def f(l):
    l.sort()
