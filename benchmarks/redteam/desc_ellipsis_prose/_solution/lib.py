def f(n):
    return [i * i for i in range(n)]
