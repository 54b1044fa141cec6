def reference(nums: list[int], k: int) -> int:
    best = 0
    for i in range(len(nums)):
        s = 0
        for j in range(i, min(len(nums), i + k)):
            s += nums[j]
        if s > best:
            best = s
    return best
