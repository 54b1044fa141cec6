def f(n):
    return n * (n + 1) // 2
