from text import count_words


def test_count():
    assert count_words("a  b") == 2
    assert count_words("one") == 1
    assert count_words("x y") == 2
