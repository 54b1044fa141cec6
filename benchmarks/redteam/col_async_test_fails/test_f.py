from lib import f

def test_ok():
    assert f(3) == 9

async def test_async():
    assert f(2) == 4
