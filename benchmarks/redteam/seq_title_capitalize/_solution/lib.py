def f(x):
    return "they're bill's"
