import pytest

class TestF:
    from lib import f

    def test_bound(self):
        # a function stored in a class body becomes a method: self.f(3) is f(self, 3)
        with pytest.raises(TypeError):
            self.f(3)
