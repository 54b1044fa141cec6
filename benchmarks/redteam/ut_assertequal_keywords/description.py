def f(x):
    """Return x squared.

    >>> f(2)
    4
    >>> f(3)
    9
    """
