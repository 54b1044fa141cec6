def f(x):
    return 2.675
