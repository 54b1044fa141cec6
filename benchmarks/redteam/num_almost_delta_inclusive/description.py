def f(x):
    """Return the documented constant for x.

    >>> f(1)
    1.5
    """
