import datetime

import pytest

from dates import parse_date


def test_iso():
    assert parse_date("2024-02-29") == (2024, 2, 29)


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse_date("29/02/2024")


def test_today():
    # not formalizable: the expected value is computed at run time
    assert parse_date(datetime.date.today().isoformat())[0] >= 2024
