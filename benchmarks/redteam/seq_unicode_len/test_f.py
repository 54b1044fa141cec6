from lib import f

def test_len():
    assert len(f(1)) == 2
    assert f(1)[1] == '😀'
