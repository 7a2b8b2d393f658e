"""A real service for the reliability suites: a PostgreSQL database of its own, gunicorn on loopback.

gunicorn runs with the repository's gunicorn.conf.py (the deployed settings) on a free port;
the database is created for the run and dropped at the end, on whatever server the admin URL
names (TEST_DATABASE_URL's, or a private cluster started by the fault-injection suite).
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    sent: float
    received: float

    def json(self) -> Any:
        return json.loads(self.body)


def call(port: int, method: str, path: str, headers: dict[str, str] | None = None,
         body: bytes | None = None, timeout: float = 30) -> Reply:
    """One request on a new connection (sync workers close it after each response anyway)."""
    sent = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, data, sent,
                     time.monotonic())
    finally:
        conn.close()


def round_body(reference: str, stake: str = "1000") -> bytes:
    body = dict(EXAMPLE, reference=reference, stake=stake)
    return json.dumps(body).encode()


@contextmanager
def database(admin_url: str) -> Iterator[str]:
    """A migrated database `capsa_test_<random>` on admin_url's server, dropped afterwards."""
    from conftest import drop_pg_database, migrated_pg_database

    url, name = migrated_pg_database(admin_url)
    try:
        yield url
    finally:
        drop_pg_database(admin_url, name)


def client_key(url: str, name: str | None = None) -> tuple[str, str]:
    """A new client on the database at url: (client id, write key)."""
    from service.adapters.uow import Database
    from service.services import clients

    db = Database(url)
    try:
        return clients.create_client(db, name or f"rel-{secrets.token_hex(4)}")
    finally:
        db.dispose()


class Gunicorn:
    """`gunicorn -c gunicorn.conf.py service.api.wsgi:app` on a free loopback port."""

    def __init__(self, database_url: str, workers: int | None = None, **env: str) -> None:
        self.port = free_port()
        self.prom = tempfile.mkdtemp(prefix="capsa-rel-prom-")
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "LOG_LEVEL": "WARNING",
            "PROMETHEUS_MULTIPROC_DIR": self.prom,
            "RATE_LIMIT": "off",
            "RATE_LIMIT_ANONYMOUS": "off",
            "METRICS_BIND": "off",  # several servers may run at once; none needs the metrics
            **env,
        }
        if workers:
            self.env["WEB_CONCURRENCY"] = str(workers)
        self.log = tempfile.NamedTemporaryFile(prefix="capsa-rel-gunicorn-", suffix=".log", delete=False)
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Gunicorn:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
             "--bind", f"127.0.0.1:{self.port}", "service.api.wsgi:app"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if call(self.port, "GET", "/healthz", timeout=2).status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"gunicorn did not start; log: {self.log.name}")
            time.sleep(0.2)
        # Every worker up (each answers /healthz without the database).
        deadline = time.monotonic() + 20
        while len(self.workers()) < int(self.env.get("WEB_CONCURRENCY", "1")) and time.monotonic() < deadline:
            time.sleep(0.1)
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self.stop()
        if exc_type is None:  # kept only beside a failure in the block, which it may explain
            Path(self.log.name).unlink(missing_ok=True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        # The log stays on disk until its block ends well (a failure names it); its handle
        # goes with the server, or the suite's ResourceWarning-as-error turns any failed test
        # into a crash at exit. The metrics' files go: every run of the suite left a
        # directory of them behind.
        self.log.close()
        shutil.rmtree(self.prom, ignore_errors=True)

    def workers(self) -> list[int]:
        """The pids of the master's live worker processes."""
        assert self.proc is not None
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == self.proc.pid and fields[0] != "Z":
                pids.append(int(entry))
        return sorted(pids)

    def log_text(self) -> str:
        return Path(self.log.name).read_text(errors="replace")
