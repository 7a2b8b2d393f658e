"""The formation's stand-in, until the app reads DATABASE_POOLER itself (branch ha-app): with
DATABASE_POOLER=pgbouncer, psycopg prepares no statement on the server.

pgbouncer 1.18's transaction pooling hands each transaction whichever server connection is
free, so a statement psycopg prepared (after 5 runs of a query, by default) on one is missing
on the next: "prepared statement "_pg3_0" does not exist". formation.py puts this folder on
the app nodes' PYTHONPATH only. `setdefault` leaves an explicit prepare_threshold alone, so
it changes nothing once the app passes its own; delete it then.
"""

import os

if os.environ.get("DATABASE_POOLER") == "pgbouncer":
    try:
        import psycopg
    except ImportError:  # not the service's venv
        pass
    else:
        _connect = psycopg.Connection.connect.__func__

        def _unprepared(cls, conninfo="", **kwargs):
            kwargs.setdefault("prepare_threshold", None)
            return _connect(cls, conninfo, **kwargs)

        psycopg.Connection.connect = classmethod(_unprepared)
        psycopg.connect = psycopg.Connection.connect
