def f(x):
    """Return a code for x (its type matters).

    >>> f({'a': 1})
    1
    """
