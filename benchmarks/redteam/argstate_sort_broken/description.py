def f(l):
    """Sort the list l in place.

    >>> xs = [3, 1, 2]
    >>> f(xs)
    >>> xs
    [1, 2, 3]
    """
