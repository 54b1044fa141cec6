from lib import f

def test_even():
    assert f(4) is True
    assert f(3) == False
