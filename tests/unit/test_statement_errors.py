"""A failed statement's error, as a traceback in the log would print it, never carries the
statement's parameters: a webhook's signing secret and a view link's secret are written as
parameters, and an unexpected database error reaches the log whole."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from service.adapters.db import make_engine


def test_a_failed_statement_does_not_show_its_parameters(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'e.db'}")
    try:
        with engine.connect() as conn, pytest.raises(DBAPIError) as caught:
            conn.execute(text("INSERT INTO no_such_table (secret) VALUES (:secret)"), {"secret": "whsec_TOPSECRET"})
        assert "no_such_table" in str(caught.value)  # the statement is still named
        assert "TOPSECRET" not in str(caught.value)
    finally:
        engine.dispose()
