"""Array literals read back as the values they hold, whatever the text holds (quotes,
backslashes, braces, commas, a value spelled NULL, spaces at either end)."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from service.adapters.pg_literals import int_array, text_array

AWKWARD = ["", "NULL", "null", "a,b", "{x}", 'say "hi"', "back\\slash", '\\"', " spaced ", "ünï\tcode\n", "evt_01_settled"]


def test_the_literals_quote_each_value_and_write_none_as_null():
    assert text_array(["NULL", None, 'a"b', "c\\d"]) == '{"NULL",NULL,"a\\"b","c\\\\d"}'
    assert text_array([]) == "{}"
    assert int_array([3, -1, 2**62]) == "{3,-1,4611686018427387904}"


@pytest.fixture(scope="module")
def conn(postgres_url: str):
    engine = create_engine(postgres_url)
    with engine.connect() as c:
        yield c
    engine.dispose()


@pytest.mark.postgres
def test_a_text_array_literal_reads_back_every_value(conn):
    values = [*AWKWARD, None]
    assert conn.execute(text("SELECT CAST(:v AS text[])"), {"v": text_array(values)}).scalar() == values
    assert conn.execute(text("SELECT CAST(:v AS text[])"), {"v": text_array([])}).scalar() == []


@pytest.mark.postgres
def test_an_int_array_literal_reads_back_as_bigints(conn):
    values = [0, -5, 2**63 - 1, -(2**63)]
    assert conn.execute(text("SELECT CAST(:v AS bigint[])"), {"v": int_array(values)}).scalar() == values
