from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lib import f
else:
    def f(x):
        return 0

def test_local():
    assert f(3) == 0
