from lib import f

def test_list():
    assert f(3) == [3]
