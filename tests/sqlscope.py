"""Every statement the service runs on a client's table names `client_id` (ready to shard).

Under Citus the tables holding a client's data are distributed by `client_id`; a statement
that does not filter on it becomes a query of every shard. This module records the SQL the
service's own code runs (SQLAlchemy's `before_cursor_execute`, and psycopg's cursors for
the direct write path and the verifier's COPY), then checks each statement with a small
parser: every reference to a client table (FROM, JOIN, UPDATE, DELETE FROM) needs
its `client_id` fixed by a WHERE or ON condition: equal to a value, IN a list, or equal to
the client_id of a table so fixed (a range of client ids fixes none), and every INSERT
into one names `client_id` in its column list. It is deliberately simple (regular
expressions over the SQL text, no grammar): a bare `client_id` counts for every table of
its statement, and an OR around a condition is not seen.

Statements from test code are not checked (a test's own set-up and assertions), nor the
migrations'. The jobs that cross clients on purpose are the EXEMPT list below, each with
its reason and its plan under Citus (docs/operations.md, "Beyond one primary", says the same).
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SERVICE = str(ROOT / "service") + "/"
TESTS = str(ROOT / "tests") + "/"
MIGRATIONS = str(ROOT / "service" / "migrations") + "/"

# Distributed by client_id under Citus.
CLIENT_TABLES = frozenset({
    "rounds", "deals", "games", "matches", "susun_games", "webhooks", "webhook_deliveries",
    "webhook_attempts", "chain_records", "chain_heads", "chain_signatures", "ledger_lines",
    "idempotency_records", "ledger_rollups", "ledger_rollup_cursors", "deal_commitments", "match_games",
    "client_references",
})
# Small reference tables (copied to every node): clients, api_keys, service_secrets,
# dispatcher_leases. Statements on them alone are not checked.

# (module, function qualname): reason; plan under Citus. A statement is exempt when one
# of these functions is on the stack that ran it.
EXEMPT: dict[tuple[str, str], str] = {
    ("service/adapters/rollups.py", "RollupRepository.behind"):
        "the sweeper finds the clients whose ledger rollups are behind their chain head; under Citus a "
        "multi-shard SELECT joining co-located chain_heads and ledger_rollup_cursors on client_id, each "
        "client then folded by its own cursor",
    ("service/adapters/chain.py", "ChainRepository.heads"):
        "the sweeper reads every client's chain head to look for receipts lost with a worker in what each "
        "client stored since its last pass; under Citus a multi-shard SELECT of chain_heads, each client's "
        "range then read on its node",
    ("service/adapters/idempotency.py", "IdempotencyRepository.purge"):
        "the purge deletes expired keys of every client; Citus runs the DELETE on each shard in parallel "
        "(a multi-shard DELETE by created_at), or the purger loops over clients",
    ("service/adapters/susun_games.py", "SusunGameRepository.overdue_clients"):
        "the Susun sweeper's turns: the clients with overdue games, on ix_susun_games_status_deadline; "
        "Citus fans the SELECT out to every shard and merges the groups",
    ("service/adapters/susun_games.py", "SusunGameRepository.overdue"):
        "the Susun sweeper finds overdue games of every client on ix_susun_games_status_deadline; "
        "Citus fans the SELECT out to every shard, each answering from its local index, then settles per client",
    ("service/adapters/banting.py", "GameRepository.due"):
        "the Big Two sweeper finds the games whose turn ran out, of every client, on ix_games_deadline; "
        "Citus fans the SELECT out to every shard, each answering from its local index, then plays each by (client, id)",
    ("service/adapters/webhook_queue.py", "Pass.lock_due"):
        "the dispatcher finds (and locks) endpoints behind their client's chain head across clients; under Citus "
        "a multi-shard SELECT joining co-located webhooks and chain_heads on client_id (each shard locally)",
    ("service/adapters/webhook_queue.py", "Pass.resume"):
        "the dispatcher finds the endpoints enabled again (of every client) with deliveries to resume, then "
        "updates each one's by (client, endpoint); under Citus a multi-shard SELECT on webhooks, each "
        "endpoint's UPDATE then routed to its shard",
    ("service/adapters/webhook_queue.py", "Pass.skipped"):
        "the dispatcher counts the endpoints behind their client's chain head across clients (locked or not); "
        "under Citus a multi-shard count joining co-located webhooks and chain_heads on client_id",
    ("service/adapters/webhook_queue.py", "Pass.fingerprint"):
        "the dispatcher's fingerprint sums every chain head's sequence and every enabled endpoint's cursor; "
        "under Citus a multi-shard aggregate (a sum and a count per shard, added by the coordinator)",
    ("service/adapters/webhook_queue.py", "Pass.claim"):
        "dispatcher claims count the claims held and take due deliveries of every enabled endpoint (a LATERAL "
        "range per endpoint, locked by key, FOR UPDATE SKIP LOCKED); under Citus each dispatcher claims per shard "
        "group (or per client), the UPDATE names each row's key instead of the single node's ctid",
    ("service/adapters/webhook_queue.py", "DeliveryQueue.expired_endpoints"):
        "the dispatcher finds the endpoints whose oldest attempt is past the retention, one index probe per "
        "endpoint; under Citus a multi-shard SELECT over co-located webhooks and webhook_attempts (each shard "
        "locally), each endpoint's attempts then deleted by (client, endpoint)",
    ("service/adapters/webhook_queue.py", "DeliveryQueue.prune_endpoint"):
        "PostgreSQL deletes a batch of an endpoint's old attempts by tuple id, the batch read by (client, "
        "endpoint); under Citus the DELETE names each row's key (client_id, id) instead of the single node's "
        "ctid (naming the client beside the ctids here made a never-analysed table's plan read every attempt "
        "of the client)",
    ("service/adapters/webhook_queue.py", "DeliveryQueue.deleted_endpoints"):
        "the dispatcher finds the endpoints deleted with a backlog left, of every client (a few rows); under "
        "Citus a multi-shard SELECT of webhooks, each endpoint's rows then deleted by (client, endpoint)",
    ("service/adapters/webhook_queue.py", "DeliveryQueue.purge_deleted"):
        "PostgreSQL deletes a batch of a deleted endpoint's attempts and deliveries by tuple id, the batch read "
        "by (client, endpoint); under Citus each DELETE names each row's key instead of the single node's ctid",
    ("service/adapters/webhook_queue.py", "DeliveryQueue.disable_overdue"):
        "the dispatcher disables, once a minute, the endpoints of every client failing for the whole period "
        "with no delivery pending; under Citus a multi-shard UPDATE of co-located webhooks and "
        "webhook_deliveries on (client_id, webhook id), each shard locally",
    ("service/adapters/webhooks.py", "WebhookRepository.waiting"):
        "the dispatcher's backlog gauge counts pending deliveries of every client; under Citus a "
        "multi-shard aggregate (count and min per shard, combined by the coordinator)",
    ("service/adapters/signatures.py", "SignatureRepository.unsigned"):
        "`capsa receipts sign-pending` walks every client's unsigned records in key order; "
        "under Citus it runs per client (the key order starts with client_id)",
}


@dataclass(frozen=True)
class Offence:
    statement: str
    site: str
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.site}: {'; '.join(self.reasons)}\n    {' '.join(self.statement.split())[:600]}"


_KEYWORDS = frozenset(
    """where set on left right inner full cross join order group limit offset values using for
    returning with select from as lateral natural union except intersect having window default
    only skip of nowait do""".split()
)
_IDENT = r'"?([A-Za-z_][A-Za-z0-9_]*)"?'
# An alias is any identifier but a keyword (which then starts the next clause).
_ALIAS = rf'(?:\s+(?:AS\s+)?(?!(?:{"|".join(sorted(_KEYWORDS))})\b){_IDENT})?'
_REF = re.compile(rf"\b(FROM|JOIN|UPDATE|INTO)\s+{_IDENT}{_ALIAS}", re.I)
_NEXT = re.compile(rf"\s*,\s*{_IDENT}{_ALIAS}", re.I)
_CONDITION = re.compile(r"\b(WHERE|ON)\b(?!\s+CONFLICT)", re.I)
_STOP = re.compile(
    r"(GROUP\s+BY|ORDER\s+BY|LIMIT|OFFSET|RETURNING|FOR\s+(?:UPDATE|SHARE|NO\s+KEY|KEY)|JOIN|LEFT|RIGHT|INNER|"
    r"FULL|CROSS|WHERE|UNION|INTERSECT|EXCEPT|HAVING|WINDOW|SET|DO)\b",
    re.I,
)


def _conditions(sql: str) -> list[str]:
    """The text of each WHERE and ON condition, up to the end of its clause."""
    out = []
    for m in _CONDITION.finditer(sql):
        depth, i = 0, m.end()
        while i < len(sql):
            ch = sql[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0 and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] == "_")) and _STOP.match(sql, i):
                break
            i += 1
        out.append(sql[m.end():i])
    return out


def _references(sql: str) -> list[tuple[str, str, str, int]]:
    """(keyword, table, alias, end) of each table named after FROM, JOIN, UPDATE or INTO."""
    refs = []
    for m in _REF.finditer(sql):
        table = m.group(2).lower()
        refs.append((m.group(1).upper(), table, (m.group(3) or table).lower(), m.end()))
        if m.group(1).upper() == "FROM":  # FROM a, b AS c
            pos = m.end()
            while (n := _NEXT.match(sql, pos)) is not None:
                refs.append(("FROM", n.group(1).lower(), (n.group(2) or n.group(1)).lower(), n.end()))
                pos = n.end()
    return refs


_VALUE = r"(?:%\(\w+\)s|%s|\?|:\w+|\$\d+|'[^']*')(?:::\w+(?:\(\d+\))?)?"
_COLUMN = r'(?:"?(\w+)"?\.)?"?client_id"?(?![\w"])'
_EQUALS_VALUE = re.compile(rf"(?<![.\w\"]){_COLUMN}\s*(?:=\s*{_VALUE}|IN\b)|{_VALUE}\s*=\s*{_COLUMN}", re.I)
_IN_TUPLE = re.compile(rf"\(\s*{_COLUMN}\s*,[^()]*\)\s*IN\b", re.I)
_EQUALS_COLUMN = re.compile(rf"(?<![.\w\"]){_COLUMN}\s*=\s*{_COLUMN}", re.I)


def _filtered(conditions: list[str]) -> set[str]:
    """The aliases whose client_id the conditions fix: equal to a value, IN a list (or in a
    tuple IN a list), or equal to the client_id of an alias so fixed; "" for a bare
    `client_id` (a one-table statement). A range (`(client_id, sequence) > ...`) fixes none."""
    fixed: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for text in conditions:
        for m in _EQUALS_VALUE.finditer(text):
            fixed.add((m.group(1) or m.group(2) or "").lower())
        for m in _IN_TUPLE.finditer(text):
            fixed.add((m.group(1) or "").lower())
        for m in _EQUALS_COLUMN.finditer(text):
            pairs.append(((m.group(1) or "").lower(), (m.group(2) or "").lower()))
    grew = True
    while grew:
        grew = False
        for a, b in pairs:
            if (a in fixed) != (b in fixed):
                fixed |= {a, b}
                grew = True
    return fixed


def problems(sql: str) -> tuple[str, ...]:
    """Why `sql` is not filtered by client (empty when it is, or touches no client table)."""
    found = []
    fixed = _filtered(_conditions(sql))
    for keyword, table, alias, end in _references(sql):
        if table not in CLIENT_TABLES:
            continue
        if keyword == "INTO":
            columns = re.match(r"\s*\(([^)]*)\)", sql[end:])
            if columns is None or not re.search(r'(?<![\w])"?client_id"?(?![\w])', columns.group(1)):
                found.append(f"INSERT INTO {table} without client_id in its columns")
            continue
        if alias.lower() not in fixed and "" not in fixed:
            found.append(f"{table}{'' if alias == table else ' AS ' + alias} not filtered on client_id")
    return tuple(dict.fromkeys(found))


_OTHER, _TEST, _MIGRATION = "", "t", "m"


@functools.cache
def _file(name: str) -> str:
    """What `_site` needs to know of a frame's file, worked out once per file (every
    statement walks some 60 frames): _TEST, _MIGRATION, its path under ROOT (the service's)
    or _OTHER."""
    if name.startswith(TESTS):
        return _TEST
    if name.startswith(MIGRATIONS):
        return _MIGRATION
    if name.startswith(SERVICE):
        return name[len(str(ROOT)) + 1:]
    return _OTHER


def _site() -> tuple[str | None, bool]:
    """The innermost service frame running this statement ('path:line function'), and
    whether an exempt function is on the stack; None when test code or a migration ran it."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    site = None
    exempt = False
    while frame is not None:
        rel = _file(frame.f_code.co_filename)
        if rel == _TEST and site is None:
            return None, False
        if rel == _MIGRATION:
            return None, False
        if rel not in (_OTHER, _TEST):
            if site is None:
                site = f"{rel}:{frame.f_lineno} {frame.f_code.co_qualname}"
            if (rel, frame.f_code.co_qualname) in EXEMPT:
                exempt = True
        frame = frame.f_back
    return site, exempt


@dataclass
class Recorder:
    """The distinct statements the service ran (with where), the exempt ones apart."""

    seen: dict[tuple[str, str], None] = field(default_factory=dict)
    exempted: dict[tuple[str, str], None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, statement: Any) -> None:
        if isinstance(statement, bytes):
            statement = statement.decode()
        if not isinstance(statement, str):
            return
        site, exempt = _site()
        if site is None:
            return
        with self.lock:
            (self.exempted if exempt else self.seen)[statement, site] = None

    def offences(self) -> list[Offence]:
        out = []
        with self.lock:
            seen = list(self.seen)
        for statement, site in seen:
            reasons = problems(statement)
            if reasons:
                out.append(Offence(statement, site, reasons))
        return out


_ACTIVE: list[Recorder] = []


def _on_execute(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
    for recorder in _ACTIVE:
        recorder.record(statement)


def _wrap(cls: Any, name: str) -> None:
    original = getattr(cls, name)
    if getattr(original, "_sqlscope", False):
        return

    def wrapper(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        for recorder in _ACTIVE:
            recorder.record(query)
        return original(self, query, *args, **kwargs)

    wrapper._sqlscope = True  # type: ignore[attr-defined]
    setattr(cls, name, wrapper)


def install() -> Recorder:
    """Start recording (SQLAlchemy on every engine, and psycopg's cursors directly)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    if not event.contains(Engine, "before_cursor_execute", _on_execute):
        event.listen(Engine, "before_cursor_execute", _on_execute)
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        pass
    else:
        for name in ("execute", "executemany", "copy"):
            _wrap(psycopg.Cursor, name)
    recorder = Recorder()
    _ACTIVE.append(recorder)
    return recorder


def uninstall(recorder: Recorder) -> None:
    _ACTIVE.remove(recorder)
