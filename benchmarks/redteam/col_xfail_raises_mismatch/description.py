def f(x):
    """Return x squared.

    >>> f(1)
    1
    >>> f(2)
    4
    >>> f(3)
    9
    >>> f(10)
    100
    >>> f(20)
    400
    """
