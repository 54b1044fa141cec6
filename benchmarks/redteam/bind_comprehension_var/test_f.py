from lib import f

def test_local():
    assert [f(3) for f in [lambda x: 0]] == [0]
    assert f(3) == 9
