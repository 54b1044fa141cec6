from lib import f

def test_bytes():
    assert f(1)[0] == 97
    assert list(f(1)) == [97, 98]
    assert 97 in f(1)
    assert f(1)[:1] == b'a'
