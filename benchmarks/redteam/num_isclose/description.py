def f(x):
    """Return the documented constant for x.

    >>> f(1)
    0.30000000000000004
    """
