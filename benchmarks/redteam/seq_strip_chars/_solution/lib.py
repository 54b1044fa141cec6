def f(x):
    return 'xxabcxy'
