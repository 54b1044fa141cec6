def f(n):
    return [d for d in range(n, 1, -1) if n % d == 0]
