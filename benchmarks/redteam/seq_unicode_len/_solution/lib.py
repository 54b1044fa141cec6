def f(x):
    return 'é😀'
