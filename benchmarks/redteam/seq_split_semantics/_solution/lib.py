def f(x):
    return 'a  b'
