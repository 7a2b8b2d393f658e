"""Private PostgreSQL clusters (initdb + pg_ctl in a temp dir, a free port) and pgbouncer.

Never the machine's shared server: a test that stops, promotes or slows a node owns it. As
root, the clusters belong to the `postgres` user (PostgreSQL refuses to run as root).
`skip_without_postgres()` skips cleanly where the binaries are absent.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

BIN_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")
PGBOUNCER = "/usr/sbin/pgbouncer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_bin() -> Path | None:
    for d in BIN_DIRS:
        if (Path(d) / "initdb").exists():
            return Path(d)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def missing(why: str) -> None:
    """Skip, except in CI (CI=true), where a missing tool is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def skip_without_postgres() -> Path:
    found = postgres_bin()
    if found is None:
        missing("PostgreSQL's initdb/pg_ctl are not installed")
    assert found is not None
    return found


def _as_owner(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class Cluster:
    """One PostgreSQL node. `Cluster.primary()` makes and starts one; `standby()` clones it."""

    def __init__(self, root: Path | None = None) -> None:
        self.bin = skip_without_postgres()
        self.dir = Path(tempfile.mkdtemp(prefix="capsa-pg-", dir=root))
        self.data = self.dir / "data"
        self.port = free_port()
        self.settings: dict[str, str] = {}
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")

    def run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            _as_owner([str(self.bin / tool), *args]), check=True, capture_output=True, text=True, timeout=60
        )

    @classmethod
    def primary(cls, **settings: str) -> Cluster:
        node = cls()
        node.run("initdb", "-D", str(node.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        # Room for streaming standbys; wal_level replica is the default.
        with (node.data / "pg_hba.conf").open("a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        node.start(**settings)
        return node

    def standby(self, name: str = "standby") -> Cluster:
        """A streaming standby of this node (pg_basebackup -R), started; `name` is its
        application_name, the name `synchronous_standby_names` lists."""
        node = Cluster()
        node.run(
            "pg_basebackup", "-D", str(node.data), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
            "-R", "-X", "stream", "--no-sync", "--checkpoint=fast",
        )
        with (node.data / "postgresql.auto.conf").open("a") as conf:
            conf.write(
                f"primary_conninfo = 'host=127.0.0.1 port={self.port} user=postgres application_name={name}'\n"
            )
        node.start()
        return node

    def start(self, **settings: str) -> None:
        self.settings.update(settings)
        options = [f"-p {self.port}", f"-k {self.dir}", "-c listen_addresses=127.0.0.1", "-c fsync=off",
                   "-c max_connections=60", "-c shared_buffers=16MB"]
        options += [f"-c {k}={v}" for k, v in self.settings.items()]
        self.run("pg_ctl", "-D", str(self.data), "-o", " ".join(options), "-l", str(self.dir / "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def promote(self) -> None:
        self.run("pg_ctl", "-D", str(self.data), "-w", "promote")

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def sql(self, query: str, *params: Any, database: str = "postgres") -> list[tuple[Any, ...]]:
        """Run one statement in autocommit on this node; its rows (none for a command)."""
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname={database}",
                             autocommit=True) as conn:
            cur = conn.execute(query, params or None)
            return list(cur.fetchall()) if cur.description else []

    def set(self, name: str, value: str, timeout_s: float = 10.0) -> None:
        """ALTER SYSTEM SET a setting and reload: every session sees it at its next statement.

        pg_reload_conf() only signals the postmaster, so this waits until a new session sees
        the value: the postmaster forks it only after its SIGHUP handler has re-read the
        configuration and signalled every running backend, so the sessions already open
        (an app's pool) see it at their next statement too.
        """
        self.sql(f"ALTER SYSTEM SET {name} = '{value}'")
        self.sql("SELECT pg_reload_conf()")
        deadline = time.monotonic() + timeout_s
        while self.sql("SELECT current_setting(%s)", name)[0][0] != value:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} is not {value!r} {timeout_s} s after pg_reload_conf()")
            time.sleep(0.02)

    def destroy(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.dir, ignore_errors=True)


class Pgbouncer:
    """pgbouncer 1.18 in transaction mode in front of one PostgreSQL server, on its own port:
    every database of that server, auth trust (as in a private network), a small pool."""

    def __init__(self, server_host: str, server_port: int, pool_size: int = 20) -> None:
        if not Path(PGBOUNCER).exists():
            missing(f"{PGBOUNCER} is not installed")
        self.dir = Path(tempfile.mkdtemp(prefix="capsa-pgbouncer-"))
        self.port = free_port()
        (self.dir / "users.txt").write_text('"postgres" ""\n')
        (self.dir / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={server_host} port={server_port}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.dir / 'users.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {pool_size}\nmax_client_conn = 500\n"
            "server_reset_query =\nignore_startup_parameters = extra_float_digits\n"
            # as docs/operations.md asks: a client waits at most 5 s for a server (a PAUSE,
            # an unreachable PostgreSQL), well inside gunicorn's worker timeout
            "query_wait_timeout = 5\nadmin_users = postgres\n"
            f"logfile = {self.dir / 'log'}\npidfile = {self.dir / 'pid'}\n"
        )
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
            for f in self.dir.iterdir():
                shutil.chown(f, "postgres")
        self.proc = subprocess.Popen(
            _as_owner([PGBOUNCER, str(self.dir / "pgbouncer.ini")]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"pgbouncer did not start: {self.log()}") from None
                time.sleep(0.05)

    def console(self, command: str) -> None:
        """A command of pgbouncer's admin console (`PAUSE db`, `RESUME db`), through psql
        (the console speaks only the simple query protocol)."""
        subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", "pgbouncer",
                        "-Atc", command], check=True, capture_output=True, timeout=30)

    def route(self, url: str) -> str:
        """`url` (a database of the server behind) through this pgbouncer."""
        from sqlalchemy.engine import make_url

        return make_url(url).set(host="127.0.0.1", port=self.port).render_as_string(hide_password=False)

    def log(self) -> str:
        path = self.dir / "log"
        return path.read_text() if path.exists() else ""

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
