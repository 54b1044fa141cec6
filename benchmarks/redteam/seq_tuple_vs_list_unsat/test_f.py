from lib import f

def test_list():
    assert f(1) == [1, 2]
