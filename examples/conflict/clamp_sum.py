def clamp_sum(nums: list[int], limit: int) -> int:
    """Return the sum of nums, but never more than limit.

    >>> clamp_sum([1, 2, 3], 10)
    6
    >>> clamp_sum([5, 5, 5], 12)
    12
    """
