def f(x):
    """Return the documented constant for x.

    >>> f(1)
    {'b': 1, 'a': 2}
    """
