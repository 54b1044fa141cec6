from lib import f

class Base:
    x, y = 2, 99

    def test_sq(self):
        assert f(self.x) == self.y

class TestThree(Base):
    x, y = 3, 9
