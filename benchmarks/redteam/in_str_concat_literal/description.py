def f(x):
    """Return a code for x (its type matters).

    >>> f('ab')
    1
    """
