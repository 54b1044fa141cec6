def f(x):
    """Return a code for x (its type matters).

    >>> f(1)
    1
    """
