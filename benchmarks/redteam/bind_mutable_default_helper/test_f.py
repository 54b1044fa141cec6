from lib import f

def collect(n, acc=[]):
    acc.append(f(n))
    return acc

def test_acc():
    assert collect(1) == [1]
    assert collect(2) == [1, 4]
