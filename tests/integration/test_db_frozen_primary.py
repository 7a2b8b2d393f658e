"""A primary that accepts connections but answers nothing (a stopped process, a hung disk,
its host's kernel still acknowledging): every PostgreSQL write still ends with an error (a
503 in the API) soon after its deadline, never a wait that only gunicorn's timeout ends
with a worker killed and the client's connection dropped.

The server here is the test PostgreSQL behind a proxy of the test's own, which stops
forwarding when frozen and leaves every new connection (a cancel request's too) unanswered.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from conftest import create_pg_database, drop_pg_database, pg_admin_url

from service.adapters.db import PostgresSettings
from service.adapters.uow import Database

pytestmark = pytest.mark.postgres


class FreezableProxy:
    """127.0.0.1:<port> forwarding to `upstream` until `freeze()`: then nothing moves either
    way, and new connections are accepted and never answered."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.frozen = threading.Event()
        self.closed = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.sockets.append(client)
            if self.frozen.is_set():
                continue  # held open, never answered
            server = socket.create_connection(self.upstream)
            self.sockets.append(server)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        while not self.closed.is_set():
            if self.frozen.is_set():
                time.sleep(0.05)
                continue
            ready, _, _ = select.select([a, b], [], [], 0.05)
            for s in ready:
                try:
                    data = s.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                if self.frozen.is_set():
                    return  # read before the freeze: dropped, as a stopped server would
                peers[s].sendall(data)

    def freeze(self) -> None:
        self.frozen.set()

    def close(self) -> None:
        self.closed.set()
        self.listener.close()
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.close()


@pytest.fixture
def frozen_url() -> Iterator[tuple[str, FreezableProxy]]:
    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    url, name = create_pg_database(admin)
    parts = urlsplit(url)
    proxy = FreezableProxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    netloc = parts.netloc.rsplit("@", 1)
    via = urlunsplit(parts._replace(netloc=f"{netloc[0]}@127.0.0.1:{proxy.port}" if len(netloc) == 2
                                    else f"127.0.0.1:{proxy.port}"))
    try:
        yield via, proxy
    finally:
        proxy.close()
        drop_pg_database(admin, name)


def test_a_write_to_a_primary_that_stops_answering_fails_soon_after_its_deadline(frozen_url):
    """The deadline sent a cancel, which a server that does not answer never gets (nor any
    statement timeout or TCP timeout fires: its kernel acknowledges): the write waited until
    gunicorn killed the worker, 30 s later, and the client's connection was dropped, where
    DATABASE_WRITE_DEADLINE_S promises 503. A cancel that cannot be sent, or that the
    statement outlives, now cuts the connection off."""
    url, proxy = frozen_url
    db = Database(url, postgres=PostgresSettings(write_deadline_s=0.5))
    outcome: list[Any] = []

    def write() -> None:
        def work(cursor: Any) -> None:
            cursor.execute("SELECT pg_sleep(60)")

        began = time.monotonic()
        try:
            db.run_alone(work)
            outcome.append(("returned", time.monotonic() - began))
        except psycopg.Error as exc:
            outcome.append((type(exc).__name__, time.monotonic() - began))

    try:
        db.run_alone(lambda cursor: cursor.execute("SELECT 1"))  # a pooled connection, made
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        time.sleep(0.2)
        proxy.freeze()
        writer.join(15)
        assert outcome, "the write still waits 15 s after its 0.5 s deadline"
        (what, took), = outcome
        assert what == "OperationalError" and took < 8, outcome
    finally:
        proxy.close()
        db.engine.dispose()


def test_a_read_from_a_primary_that_stops_answering_fails_soon_after_twice_its_statement_timeout(frozen_url):
    """A read (and any statement SQLAlchemy runs, a write transaction's too) sent to a frozen
    primary waited until gunicorn killed the worker, 30 s later, holding it meanwhile: no
    statement timeout fires on a server that answers nothing. Its connection is now cut off
    after twice the statement timeout, and the read fails as on a lost connection (503)."""
    from sqlalchemy import text

    from service.adapters.errors import DatabaseUnavailable
    from service.adapters.translate import translated

    url, proxy = frozen_url
    db = Database(url, statement_timeout_ms=500)
    outcome: list[Any] = []

    def read() -> None:
        began = time.monotonic()
        try:
            with translated(), db.unit_of_work() as uow:
                uow.session.execute(text("SELECT 1"))
            outcome.append(("returned", time.monotonic() - began))
        except DatabaseUnavailable as exc:
            outcome.append((type(exc).__name__, time.monotonic() - began))

    try:
        with db.unit_of_work() as uow:  # a pooled connection, made; a live server is not cut off
            assert uow.session.execute(text("SELECT pg_sleep(0.3), 1")).one()[1] == 1
        proxy.freeze()
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(15)
        assert outcome, "the read still waits 15 s after its 1 s cut-off"
        (what, took), = outcome
        assert what == "DatabaseUnavailable" and 0.9 < took < 5, outcome
    finally:
        proxy.close()
        db.engine.dispose()


def test_a_statement_cut_off_is_disarmed_when_it_returns_or_fails(frozen_url):
    """Nothing stays armed once a statement has ended: an idle pooled connection is never
    cut off afterwards, whatever the statement's outcome."""
    from sqlalchemy import text
    from sqlalchemy.exc import ProgrammingError

    from service.adapters import uow as uow_module
    from service.adapters.errors import DatabaseUnavailable

    url, proxy = frozen_url
    db = Database(url, statement_timeout_ms=200)
    try:
        with db.unit_of_work() as uow:
            uow.session.execute(text("SELECT 1"))
        with pytest.raises(DatabaseUnavailable, match="statement timeout"), db.unit_of_work() as uow:
            uow.session.execute(text("SELECT pg_sleep(5)"))
        with pytest.raises(ProgrammingError), db.unit_of_work() as uow:
            uow.session.execute(text("SELECT no_such_column"))
        assert uow_module._DEADLINES._armed == {}
        time.sleep(0.6)  # past the cut-off of each: the pooled connection still serves
        with db.unit_of_work() as uow:
            assert uow.session.execute(text("SELECT 2")).scalar() == 2
    finally:
        proxy.close()
        db.engine.dispose()
