from lib import f

class TestF:
    f = staticmethod(lambda x: 0)

    def test_attr(self):
        assert self.f(3) == 0

    def test_global(self):
        assert f(3) == 9
