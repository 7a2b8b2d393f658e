"""Bulk-loads one client's hash chain on PostgreSQL, as the service would have stored it.

Every loaded round is a real round: a deal of a few thousand scored templates (deals of
the service's shuffle, scored by the domain's `score_round_request`, once each) given its own reference,
round id and time, then built into its record by the write path's own code
(`service.services.rounds.records.scored_round_record`: the canonical bytes up to the sequence
and the ledger line rows), sealed with its sequence and hashed after the previous record
exactly as PostgreSQL's one-statement write does (migration 0005, `chain_pg`), and signed
with the signing key active at its time (its receipt, `service.domain.signing`). The rows
go in with COPY, one transaction per chunk that also moves the client's chain head, so the
database holds a valid chain after every commit. The balance trigger stays on: PostgreSQL
checks every loaded record's lines sum to zero.

Scoring every round would cost ~0.3 ms each (20 minutes for 4 million on one core): the
templates are scored once and re-used with new references (`--templates`, default 2,000).

`TABLES` and `rows` are the one place that knows the tables a stored round writes (today's
schema, migration 0012). When a migration adds a table the write statement fills (a rollup,
a receipt column), add it there.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from service.domain import audit as chain
from service.domain.deals import deal
from service.domain.signing import Keyring, receipt_message
from service.domain.susun.round import ScoredRound, score_round_request
from service.domain.susun.rules import SHIPPED_PRESETS
from service.domain.susun.suggest.baseline import baseline_arrangement
from service.services.clock import new_id
from service.services.rounds.records import scored_round_record

PLAYERS = [f"p{i}" for i in range(1, 9)]
TABLES_REF = ["t1", "t2", "t3", "t4"]
STAKES = ["500", "1000", "2000"]

# What one stored round writes, table by table, in COPY order (the chain record before the
# lines and the receipt that refer to it). Today's schema: migration 0012.
TABLES: dict[str, tuple[str, ...]] = {
    "chain_records": ("client_id", "sequence", "kind", "round_id", "previous_hash", "hash", "canonical"),
    "rounds": ("id", "client_id", "sequence", "game", "preset", "table_ref", "reference", "currency", "created_at"),
    "ledger_lines": (
        "client_id", "sequence", "line_no", "created_at", "player_id", "kind", "basis",
        "amount", "currency", "table_ref", "points", "winnings",
    ),
    "chain_signatures": ("client_id", "sequence", "kid", "signature"),
}
HEAD_UPDATE = (
    "UPDATE chain_heads SET sequence = %s, hash = %s, previous_hash = %s, created_at = %s WHERE client_id = %s"
)
HEAD_SELECT = "SELECT sequence, hash FROM chain_heads WHERE client_id = %s"


@dataclass(frozen=True, slots=True)
class Stored:
    """One loaded round as the service would have stored it."""

    client_id: str
    sequence: int
    round_id: str
    created_at: datetime
    previous_hash: str
    hash: str
    canonical: bytes
    scored: ScoredRound
    lines: Sequence[Any]  # service.adapters.records.LineRow
    kid: str | None
    signature: bytes | None


def rows(s: Stored) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """(table, row) for every row the write path stores for this round, in `TABLES` order."""
    yield "chain_records", (s.client_id, s.sequence, "round", s.round_id, s.previous_hash, s.hash, s.canonical)
    sc = s.scored
    yield "rounds", (s.round_id, s.client_id, s.sequence, "susun", sc.preset, sc.table, sc.reference,
                     sc.currency, s.created_at)
    for n, line in enumerate(s.lines):
        yield "ledger_lines", (s.client_id, s.sequence, n, s.created_at, line.player_id, line.kind, line.basis,
                               line.amount, sc.currency, sc.table, line.points, line.winnings)
    if s.kid is not None:
        yield "chain_signatures", (s.client_id, s.sequence, s.kid, s.signature)


def templates(count: int, seed: int = 25, players: Sequence[str] = PLAYERS) -> list[ScoredRound]:
    """`count` deals of 2-4 of `players` (8), each scored once by the domain.

    The cards come from the service's provably fair shuffle (`service.domain.deals`), set
    by the baseline arranger (strongest five at the back) as a careful player would, except
    one hand in ten left as dealt (most of those foul), so fouls and naturals occur too."""
    rng = random.Random(seed)
    params = SHIPPED_PRESETS[("capsa-susun-id", 1)][0]
    server_seed = rng.randbytes(32)
    out = []
    for i in range(count):
        ids = rng.sample(players, min(len(players), rng.choice([2, 3, 4, 4])))
        hands = [
            hand if rng.random() < 0.1 else [*a.front, *a.middle, *a.back]
            for hand in deal(server_seed, "growth", i, len(ids))
            for a in (baseline_arrangement(hand, params),)
        ]
        body = {
            "rules": "capsa-susun-id",
            "table": TABLES_REF[i % len(TABLES_REF)],
            "reference": "template",
            "currency": "IDR",
            "stake": rng.choice(STAKES),
            "players": [
                {"id": p, "arrangement": {"front": [str(c) for c in h[:3]], "middle": [str(c) for c in h[3:8]],
                                          "back": [str(c) for c in h[8:]]}}
                for p, h in zip(ids, hands)
            ],
        }
        out.append(score_round_request(body))
    return out


def referenced(t: ScoredRound, reference: str) -> ScoredRound:
    """The template as if it had been posted with `reference` (request and document agree)."""
    return replace(t, reference=reference, request={**t.request, "reference": reference},
                   document={**t.document, "reference": reference})


def build(
    client_id: str, sequence: int, previous: str, t: ScoredRound, at: datetime, keyring: Keyring | None
) -> Stored:
    """The round at `sequence` after the record hashed `previous`, as the write path builds it."""
    round_id = new_id("rnd", at)
    scored = referenced(t, f"load-{sequence}")
    built = scored_round_record(client_id, scored, round_id=round_id, created_at=at)
    body = chain.seal(built.new.unsealed, sequence)
    digest = chain.chain_hash(previous, body)
    kid = signature = None
    if keyring is not None and keyring.active is not None:
        kid, signature = keyring.sign(receipt_message(client_id, sequence, digest))
    return Stored(client_id, sequence, round_id, at, previous, digest, body, scored, built.new.lines, kid, signature)


@dataclass(frozen=True, slots=True)
class Loaded:
    rounds: int
    lines: int
    seconds: float
    head: int


def load(
    dsn: str,
    client_id: str,
    rounds: int,
    *,
    start: datetime,
    spacing: timedelta,
    keyring: Keyring | None,
    deals: Sequence[ScoredRound],
    chunk: int = 20_000,
    seed: int = 5,
    progress: Callable[[int, int, float], None] | None = None,
) -> Loaded:
    """Append `rounds` rounds to the client's chain from its current head, the k-th dated
    `start + k * spacing` (to the millisecond). One transaction per `chunk` rounds."""
    from concurrent.futures import Future, ThreadPoolExecutor

    import psycopg

    rng = random.Random(seed)
    started = time.perf_counter()
    counted = {"lines": 0, "rounds": 0}
    with psycopg.connect(dsn) as conn, ThreadPoolExecutor(1) as copier:
        found = conn.execute(HEAD_SELECT, (client_id,)).fetchone()
        if found is None:
            raise RuntimeError(f"client {client_id!r} has no chain head")
        head, previous = int(found[0]), str(found[1])

        def store(batch: dict[str, list[tuple[Any, ...]]], last: Stored) -> None:
            # In its own thread: PostgreSQL ingests this chunk while the next one is built.
            with conn.cursor() as cur:
                for table, columns in TABLES.items():
                    if batch[table]:
                        with cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                            for row in batch[table]:
                                copy.write_row(row)
                cur.execute(HEAD_UPDATE, (last.sequence, last.hash, last.previous_hash, last.created_at, client_id))
            conn.commit()
            counted["lines"] += len(batch["ledger_lines"])
            counted["rounds"] += len(batch["rounds"])
            if progress is not None:
                progress(counted["rounds"], counted["lines"], time.perf_counter() - started)

        pending: Future[None] | None = None
        for low in range(0, rounds, chunk):
            batch: dict[str, list[tuple[Any, ...]]] = {table: [] for table in TABLES}
            last: Stored | None = None
            for k in range(low, min(low + chunk, rounds)):
                at = start + spacing * k
                at = at.replace(microsecond=at.microsecond - at.microsecond % 1000)
                last = build(client_id, head + 1, previous, deals[rng.randrange(len(deals))], at, keyring)
                for table, row in rows(last):
                    batch[table].append(row)
                head, previous = last.sequence, last.hash
            assert last is not None
            if pending is not None:
                pending.result()
            pending = copier.submit(store, batch, last)
        if pending is not None:
            pending.result()
    lines = counted["lines"]
    return Loaded(rounds, lines, time.perf_counter() - started, head)


def analyze(dsn: str, vacuum: bool = True) -> float:
    """What autovacuum would do after the load (the test server runs with it off): VACUUM
    (visibility map, so index-only scans work) and ANALYZE of every table a round writes."""
    import psycopg

    t0 = time.perf_counter()
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table in (*TABLES, "chain_heads"):
            conn.execute(f"{'VACUUM (ANALYZE)' if vacuum else 'ANALYZE'} {table}")
    return time.perf_counter() - t0
