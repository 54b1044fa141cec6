def f(x):
    """Return the documented value.

    >>> f(1)
    1.5
    >>> f(2)
    0.5
    """
