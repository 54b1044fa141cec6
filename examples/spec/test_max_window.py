from sol import max_window

def test_a():
    assert max_window([1, 2, 3, 4], 2) == 7

def test_b():
    assert max_window([5, -1, 5], 3) == 10
