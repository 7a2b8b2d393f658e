"""What a client can make one request cost: the worst cases the cost audits found, measured.

Each line is the CPU of this process (`time.process_time`) for one call, the best of
`--repeat`, with the load average beside it; on PostgreSQL the call's wall time too (its
backend's work is in it). The sections:

  model     a suggestion under a rule set of 237 distinct bonus values, eight such rule sets
            in turn: the CPU of each and this process's peak memory after it (it grew 175 MB
            a rule set before the model was built small and the cache bounded)
  void      voiding a game of a Big Two match of N games (the standings taken again; it was
            O(N^2): 2.5 s at 5,000 games)
  zone      an all-time summary by day in a zone whose days are not kept, over three years of
            quarter-hour rollups loaded directly (a heavy read; 210 ms of PostgreSQL)
  deals     a page of GET /v1/deals by status among 500,000 deals loaded directly (it read the
            whole history: 30 ms; an index a status since migration 0025)

The PostgreSQL sections need $BENCH_DATABASE_URL or $TEST_DATABASE_URL and make (and drop) a
database `capsa_bench_<random>` of their own; without one they are skipped. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/costs.py [--repeat 3] [--games 5000]
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# bench/http.py would shadow the standard library's http package: the repository root first.
sys.path[:] = [str(Path(__file__).resolve().parents[1])] + [p for p in sys.path if not p.rstrip("/").endswith("bench")]

from sqlalchemy import text  # noqa: E402

from service.domain.banting import match  # noqa: E402
from service.domain.cards import Card  # noqa: E402
from service.domain.rules import RuleSet, resolve_rules  # noqa: E402
from service.domain.susun.rules import BY_RANK_RANKS  # noqa: E402
from service.domain.susun.suggest.search import suggest  # noqa: E402

HAND = [Card.from_str(t) for t in "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac".split()]


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """(best CPU ms, its wall ms) of `repeat` calls."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        fn()
        best = min(best, ((time.process_time() - cpu) * 1e3, (time.perf_counter() - wall) * 1e3))
    return best


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def distinct_bonuses(start: int) -> RuleSet:
    values = itertools.count(start)
    by_rank = {name: {r: next(values) for r in ranks} for name, ranks in BY_RANK_RANKS.items()}
    return resolve_rules({"preset": "capsa-susun-id", "params": {"bonus_by_rank": by_rank}}, "susun")


def model_section() -> None:
    print("model: a suggestion under a new rule set of 237 distinct bonus values, eight in turn")
    for n in range(8):
        rules = distinct_bonuses(1 + 300 * n)

        def one(rules: RuleSet = rules) -> Any:
            return suggest(HAND, rules, limit=1)

        cpu, _ = timed(one, 1)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  rule set {n + 1}: {cpu:7.1f} ms CPU, peak memory {peak:6.0f} MB  ({load()})")


def void_section(games: int, repeat: int) -> None:
    players = ["a", "b"]
    entries: list[dict[str, Any]] = []
    for n in range(games):
        entries, _ = match.add_game(players, entries, 10**9, f"g{n}", f"r{n}", "a", {"a": 0, "b": 1})
    victim = f"r{games * 4 // 5}"
    cpu, _ = timed(lambda: match.void_game(players, entries, 10**9, victim), repeat)
    print(f"void: a game of a match of {games:,} games: {cpu:.1f} ms CPU  ({load()})")


def pg_sections(admin: str, repeat: int) -> None:
    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients, deals
    from service.services.ledger import reports

    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_bench")
    try:
        upgrade(url)
        db = Database(url)
        clients.create_client(db, "costs")
        with db.engine.begin() as conn:
            client_id: str = conn.execute(text("SELECT id FROM clients WHERE name = 'costs'")).scalar_one()
            start = datetime(2023, 12, 1, tzinfo=UTC)
            quarters = [{"c": client_id, "k": (start + timedelta(minutes=15 * i)).strftime("%Y-%m-%dT%H:%M")}
                        for i in range(3 * 365 * 96)]
            conn.execute(text(
                "INSERT INTO ledger_rollups (client_id, currency, grouping, key, rounds, points, result, winnings,"
                " fees, net, house) VALUES (:c, 'IDR', 'quarter', :k, 1, 0, 0, 0, 0, 0, 0)"), quarters)
            conn.execute(text("UPDATE chain_heads SET sequence = 1 WHERE client_id = :c"), {"c": client_id})
            conn.execute(text("INSERT INTO ledger_rollup_cursors (client_id, sequence) VALUES (:c, 1)"), {"c": client_id})
            conn.execute(text(
                "INSERT INTO deals (id, client_id, nonce, server_seed, commitment, client_seed, players, hands, created_at)"
                " SELECT 'dl_' || lpad(g::text, 26, '0'), :c, g, '\\x00'::bytea, 'x', 's', '[\"a\",\"b\"]', '[[],[]]',"
                " now() - (g || ' seconds')::interval FROM generate_series(1, 500000) g"), {"c": client_id})
            conn.execute(text("UPDATE deals SET revealed_at = now() WHERE client_id = :c AND nonce = 400000"),
                         {"c": client_id})
            conn.execute(text("ANALYZE"))  # as autovacuum would, after a bulk load
        print(f"zone: an all-time summary by day over {len(quarters):,} quarter hours (three years), zones not kept")
        for zone in ("Asia/Jakarta", "America/Santiago", "Australia/Lord_Howe"):

            def summary(zone: str = zone) -> Any:
                return reports.summary(db, client_id, currency="IDR", tz=zone, group_by=reports.Grouping.DAY)

            cpu, wall = timed(summary, 1)
            print(f"  {zone:20s} {cpu:7.1f} ms CPU here, {wall:7.1f} ms wall  ({load()})")
        print("deals: a page of 500 by status among 500,000 deals of one client")
        for status in ("revealed", "used", "open", None):

            def page(status: str | None = status) -> Any:
                return deals.list_(db, client_id, writer=True, status=status, limit=500)

            cpu, wall = timed(page, repeat)
            print(f"  status={status!s:9s} {cpu:7.1f} ms CPU here, {wall:7.1f} ms wall  ({load()})")
        db.dispose()
    finally:
        drop_database(admin, name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--games", type=int, default=5000, help="games of the match whose game is voided")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores ({load()})")
    model_section()
    void_section(args.games, args.repeat)
    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if admin and admin.startswith("postgresql"):
        pg_sections(admin, args.repeat)
    else:
        print("zone, deals: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
