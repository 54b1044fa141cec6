import pytest
import lib

@pytest.fixture
def zero(monkeypatch):
    monkeypatch.setattr(lib, "f", lambda x: 0)

@pytest.mark.usefixtures("zero")
def test_local():
    assert lib.f(3) == 0
