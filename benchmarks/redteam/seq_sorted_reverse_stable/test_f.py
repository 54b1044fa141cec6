from lib import f

def test_sort():
    # reverse=True keeps equal keys in their original order
    assert sorted(f(1), key=len, reverse=True) == ['ab', 'cd', 'e']
    assert sorted(f(1), key=len) == ['e', 'ab', 'cd']
