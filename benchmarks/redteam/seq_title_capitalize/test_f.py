from lib import f

def test_case():
    assert f(1).title() == "They'Re Bill'S"
    assert f(1).capitalize() == "They're bill's"
