from lib import f

def test_count():
    assert f(1).count('aa') == 1
    assert f(1).find('b') == -1
    assert f(1).replace('aa', 'b') == 'ba'
    assert f(1).count('') == 4
