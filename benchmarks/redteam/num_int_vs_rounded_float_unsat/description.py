def f(x):
    """Return the documented constant for x.

    >>> f(1)
    9007199254740993
    """
