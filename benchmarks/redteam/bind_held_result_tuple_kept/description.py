def f(x):
    """Record x; return a 1-tuple holding the list of every x recorded so far.

    >>> f(1)
    ([1],)
    """
