"""A database node's gate: its pgbouncer admits clients only while its PostgreSQL is writable.

pgbouncer replays the server status it cached at its first login, so a client cannot tell
through it whether the node is a primary (libpq's target_session_attrs reads that replay).
The gate asks PostgreSQL itself twice a second (`pg_is_in_recovery()`, and the
`default_transaction_read_only` pg_auto_failover sets while it promotes or demotes) and, on
each change, tells pgbouncer: DISABLE + KILL (refuse new clients, drop the ones connected)
when the node is not a writable primary, ENABLE when it is. A client naming every node's
pgbouncer (the app's multi-host URL) then lands on the writable one. Needs psycopg (the venv).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import Any

import psycopg

WRITABLE = ("select not pg_is_in_recovery()"
            " and current_setting('default_transaction_read_only') = 'off'")


def writable(conninfo: str, conn: Any) -> tuple[bool, Any]:
    try:
        if conn is None or conn.closed:
            conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=1)
        row = conn.execute(WRITABLE).fetchone()
        return bool(row and row[0]), conn
    except psycopg.Error:
        if conn is not None:
            conn.close()
        return False, None


def admin(conninfo: str, *commands: str) -> bool:
    """Run pgbouncer admin commands (simple query protocol, which its console requires)."""
    try:
        with psycopg.connect(conninfo, autocommit=True, connect_timeout=1) as conn:
            for command in commands:
                result = conn.pgconn.exec_(command.encode())
                if result.status not in (psycopg.pq.ExecStatus.COMMAND_OK, psycopg.pq.ExecStatus.TUPLES_OK):
                    message = (result.error_message or b"").decode(errors="replace").strip()
                    # "already enabled/disabled" and the like are the state we want
                    if "already" not in message:
                        print(f"gate: {command}: {message}", file=sys.stderr, flush=True)
        return True
    except psycopg.Error as exc:
        print(f"gate: pgbouncer: {exc}", file=sys.stderr, flush=True)
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", required=True, help="libpq conninfo of the local PostgreSQL")
    parser.add_argument("--pgbouncer", required=True, help="libpq conninfo of pgbouncer's admin console")
    parser.add_argument("--database", required=True, help="the pgbouncer database to gate")
    parser.add_argument("--interval", type=float, default=0.5)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    conn = None
    open_: bool | None = None  # unknown until pgbouncer has been told once
    db = args.database
    while True:
        now, conn = writable(args.postgres, conn)
        if now != open_:
            commands = (f"ENABLE {db}",) if now else (f"DISABLE {db}", f"KILL {db}", f"RESUME {db}")
            if admin(args.pgbouncer, *commands):
                print(f"gate: {db} {'open' if now else 'closed'} at {time.strftime('%H:%M:%S')}", flush=True)
                open_ = now
        time.sleep(args.interval)


if __name__ == "__main__":
    sys.exit(main())
