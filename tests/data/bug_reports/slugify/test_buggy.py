from slug import slugify


def test_title():
    assert slugify("Hello World") == "Hello-World"


def test_plain():
    assert slugify("abc") == "abc"
    assert slugify("a b c") == "a-b-c"
