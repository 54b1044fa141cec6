from lib import f

def test_split():
    assert f(1).split(',') == ['']
    assert f(1).split() == []
