def f(x):
    """Return x squared.

    >>> f(3)
    9
    """
