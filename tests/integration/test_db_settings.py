"""PostgreSQL connection settings from the environment, and the connect arguments they make
(no server needed: an engine connects on first use)."""

from __future__ import annotations

import pytest

from service.adapters.db import Pooler, PostgresSettings, make_engine

URL = "postgresql+psycopg://capsa@/capsa?host=10.0.0.1:5432&host=10.0.0.2:5432&target_session_attrs=read-write"


def test_the_environment_sets_the_pooler_the_write_deadline_and_the_keepalives():
    settings = PostgresSettings.from_env({
        "DATABASE_POOLER": "PgBouncer ", "DATABASE_WRITE_DEADLINE_S": "2.5", "DATABASE_KEEPALIVES_IDLE_S": "7",
        "DATABASE_KEEPALIVES_INTERVAL_S": "2", "DATABASE_KEEPALIVES_COUNT": "4", "DATABASE_TCP_USER_TIMEOUT_MS": "9000",
    })
    assert settings == PostgresSettings(Pooler.PGBOUNCER, 2.5, 7, 2, 4, 9000)
    assert PostgresSettings.from_env({}) == PostgresSettings(Pooler.NONE, 5.0, 10, 3, 3, 10_000)


def test_receipts_wait_500_ms_for_a_next_write_unless_receipt_flush_ms_says_otherwise():
    assert PostgresSettings.from_env({}).receipt_flush_s == 0.5
    assert PostgresSettings.from_env({"RECEIPT_FLUSH_MS": "20"}).receipt_flush_s == 0.02


@pytest.mark.parametrize(("env", "message"), [
    ({"DATABASE_POOLER": "pgpool"}, "DATABASE_POOLER 'pgpool' is not one of 'none', 'pgbouncer'"),
    ({"DATABASE_WRITE_DEADLINE_S": "soon"}, "DATABASE_WRITE_DEADLINE_S 'soon' is not a number"),
    ({"DATABASE_KEEPALIVES_COUNT": "-1"}, "DATABASE_KEEPALIVES_COUNT '-1' is negative"),
    ({"DATABASE_TCP_USER_TIMEOUT_MS": "1.5"}, "DATABASE_TCP_USER_TIMEOUT_MS '1.5' is not a whole number"),
])
def test_a_setting_that_cannot_be_read_stops_the_start_with_its_name_and_value(env, message):
    with pytest.raises(ValueError) as caught:
        PostgresSettings.from_env(env)
    assert str(caught.value) == message


def _connect_kwargs(engine) -> dict:
    """What the engine hands psycopg.connect: the URL's parameters and connect_args."""
    seen = {}

    def capture(dialect, conn_rec, cargs, cparams):
        seen.update(cparams)
        raise ConnectionAbortedError  # stop before any network

    from sqlalchemy import event

    event.listen(engine, "do_connect", capture)
    try:
        with pytest.raises(Exception):  # noqa: B017  # the capture's stop, wrapped by the pool
            engine.connect()
    finally:
        engine.dispose()
    return seen


def test_direct_connections_carry_the_timeouts_and_keepalives_and_name_every_host():
    engine = make_engine(URL, statement_timeout_ms=5000, postgres=PostgresSettings())
    seen = _connect_kwargs(engine)
    assert seen["options"] == "-c statement_timeout=5000 -c lock_timeout=2000"
    assert (seen["host"], seen["port"], seen["target_session_attrs"]) == ("10.0.0.1,10.0.0.2", "5432,5432", "read-write")
    assert {k: seen[k] for k in ("keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
                                 "tcp_user_timeout", "connect_timeout")} == {
        "keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 3, "keepalives_count": 3,
        "tcp_user_timeout": 10_000, "connect_timeout": 3}
    assert "prepare_threshold" not in seen


def test_a_connect_timeout_in_the_url_is_kept():
    """The formation's URL says connect_timeout=2 (a silent node costs 2 s a connection in a
    failover); the engine's default of 3 overrode it."""
    engine = make_engine(f"{URL}&connect_timeout=2", postgres=PostgresSettings())
    assert str(_connect_kwargs(engine)["connect_timeout"]) == "2"


def test_through_pgbouncer_there_is_no_options_startup_parameter_and_nothing_is_prepared():
    engine = make_engine(URL, statement_timeout_ms=5000, postgres=PostgresSettings(pooler=Pooler.PGBOUNCER))
    seen = _connect_kwargs(engine)
    assert "options" not in seen
    assert seen["prepare_threshold"] is None
    assert seen["keepalives"] == 1
