class Counter:
    """A counter starting at 0.

    >>> c = Counter()
    >>> c.inc()
    >>> c.value
    1
    >>> c.inc()
    >>> c.value
    2
    """
