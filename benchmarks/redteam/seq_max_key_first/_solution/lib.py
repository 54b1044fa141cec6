def f(x):
    return ['ab', 'cd']
