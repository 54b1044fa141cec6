def f(x):
    """Return a code for x (its type matters).

    >>> f(0.0)
    1
    """
