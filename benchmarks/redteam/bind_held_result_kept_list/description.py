def f(x):
    """Record x; return the list of every x recorded so far.

    >>> f(1)
    [1]
    """
