from lib import f

def test_sorted():
    assert sorted(f(1)) == [1, 1.5, 2]
    assert max(f(1)) == 2
    assert min(f(1)) == 1
