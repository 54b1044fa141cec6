def f(l):
    """Remember the list l; every later call appends 0 to each list remembered before it."""
