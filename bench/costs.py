"""What a client can make one request cost: the worst cases the cost audits found, measured.

Each line is the CPU of this process (`time.process_time`) for one call, the best of
`--repeat`, with the load average beside it; on PostgreSQL the call's wall time too (its
backend's work is in it). The sections:

  model     a suggestion under a rule set of 237 distinct bonus values, eight such rule sets
            in turn: the CPU of each and this process's peak memory after it (it grew 175 MB
            a rule set before the model was built small and the cache bounded)
  match     a Big Two match of N games loaded directly: the move that ends its next game, a
            void of its game N x 4/5, its document and a page of its games (the move rewrote
            the match's JSON list of every game: 207 ms of CPU at 10,000 games; a void was
            O(N^2) before that, 2.5 s at 5,000)
  webhook   DELETE of an endpoint with 200,000 deliveries and 600,000 attempts waiting (its one
            transaction deleted them all: 1 s here, past the statement timeout at a few million);
            then the dispatchers' purge of them, a batch a transaction
  zone      an all-time summary by day in a zone whose days are not kept, over three years of
            quarter-hour rollups loaded directly (a heavy read; 210 ms of PostgreSQL)
  deals     a page of GET /v1/deals by status among 500,000 deals loaded directly (it read the
            whole history: 30 ms; an index a status since migration 0025)

The PostgreSQL sections (match, webhook, zone, deals) need $BENCH_DATABASE_URL or $TEST_DATABASE_URL and make (and drop) a
database `capsa_bench_<random>` of their own; without one they are skipped. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/costs.py [--repeat 3] [--games 10000]
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


TWO = {"a": "3d 4c 5h 6s 7d 8h 9h Jh Kh 2h Qc Qd Qs", "b": "3c 4d 5d 6d 8d 9d Td Jd Kd 2c 2s As Ah"}
TWO_SCRIPT = ["a: 3d 4c 5h 6s 7d", "b: pass", "a: 8h 9h Jh Kh 2h", "b: pass", "a: Qc Qd Qs"]


def match_section(url: str, games: int, repeat: int) -> None:
    from service.api.app import create_app
    from service.services import clients
    from service.services.clock import utcnow_ms

    app = create_app({"DATABASE_URL": url, "LOG_LEVEL": "WARNING"})
    db = app.extensions["capsa"].db
    client_id, key = clients.create_client(db, "matches")
    headers = {"Authorization": f"Bearer {key}"}
    http = app.test_client()
    made = http.post("/v1/banting/matches", headers=headers, json={
        "currency": "IDR", "stake": "1000", "players": ["a", "b"], "target_points": match.MAX_TARGET})
    match_id = made.get_json()["id"]
    with db.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO match_games (client_id, match_id, n, game_id, round_id, winner, void, points_0, points_1,"
            " total_0, total_1) SELECT :c, :m, g, 'gm_' || lpad(g::text, 26, '0'), 'rnd_' || lpad(g::text, 26, '0'),"
            " 'a', false, 0, 0, 0, 0 FROM generate_series(1, :n) g"), {"c": client_id, "m": match_id, "n": games})
        conn.execute(text("UPDATE matches SET played = :n WHERE client_id = :c AND id = :m"),
                     {"c": client_id, "m": match_id, "n": games})
        conn.execute(text("ANALYZE match_games"))
    print(f"match: a match of {games:,} games")

    def next_game() -> str:
        body = {"players": [{"id": pid, "hand": hand.split()} for pid, hand in TWO.items()]}
        game_id = str(http.post(f"/v1/banting/matches/{match_id}/games", json=body, headers=headers).get_json()["id"])
        for line in TWO_SCRIPT[:-1]:
            http.post(f"/v1/banting/games/{game_id}/moves", json=move(line), headers=headers)
        return game_id

    best = (float("inf"), 0.0)
    for _ in range(repeat):
        game_id = next_game()

        def last_move(game_id: str = game_id) -> Any:
            return http.post(f"/v1/banting/games/{game_id}/moves", json=move(TWO_SCRIPT[-1]), headers=headers)

        cpu, wall = timed(last_move, 1)
        best = min(best, (cpu, wall))
    print(f"  the move that ends a game  {best[0]:7.1f} ms CPU here, {best[1]:7.1f} ms wall  ({load()})")

    def void() -> None:
        with db.unit_of_work(write=True) as uow:  # rolled back: the same void each time
            record = uow.matches.get(client_id, match_id)
            assert record is not None
            entry = uow.matches.entry_of_round(record, f"rnd_{games * 4 // 5:026d}")
            assert entry is not None
            totals, status = match.void_game(record.players, record.totals, record.target_points, entry)
            uow.matches.void_game(record, entry, totals, status, utcnow_ms())

    cpu, wall = timed(void, repeat)
    print(f"  a void of game {games * 4 // 5:,}      {cpu:7.1f} ms CPU here, {wall:7.1f} ms wall  ({load()})")
    for what, path in (("its document", ""), ("a page of 500 games", "/games?limit=500")):

        def read(path: str = path) -> Any:
            return http.get(f"/v1/banting/matches/{match_id}{path}", headers=headers)

        cpu, wall = timed(read, repeat)
        print(f"  {what:26s} {cpu:7.1f} ms CPU here, {wall:7.1f} ms wall  ({load()})")
    db.dispose()


def webhook_section(url: str) -> None:
    from service.adapters.uow import Database
    from service.adapters.webhook_queue import DeliveryQueue
    from service.services import clients
    from service.services.webhooks import dispatcher, endpoints

    os.environ["WEBHOOK_ALLOW_PRIVATE"] = "1"
    db = Database(url)
    client_id, _ = clients.create_client(db, "webhooks")
    hook = endpoints.create(db, client_id, {"url": "http://127.0.0.1:9/hook", "events": ["*"]})["id"]
    keys = {"c": client_id, "w": hook}
    with db.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO webhook_deliveries (client_id, webhook_id, event_id, sequence, event_type, event_at, state,"
            " attempts, next_attempt_at, created_at) SELECT :c, :w, 'evt_' || g, g, 'round.settled', now(),"
            " 'pending', 3, now() + interval '1 hour', now() FROM generate_series(1, 200000) g"), keys)
        conn.execute(text(
            "INSERT INTO webhook_attempts (client_id, webhook_id, event_id, attempted_at, outcome, status_code,"
            " latency_ms) SELECT :c, :w, 'evt_' || (g % 200000 + 1), now(), 'http_error', 500, 1"
            " FROM generate_series(1, 600000) g"), keys)
        conn.execute(text("ANALYZE webhook_deliveries, webhook_attempts"))
    print("webhook: an endpoint with 200,000 deliveries and 600,000 attempts")
    cpu, wall = timed(lambda: endpoints.delete(db, client_id, hook), 1)
    print(f"  DELETE /v1/webhooks/{{id}}  {cpu:7.1f} ms CPU here, {wall:7.1f} ms wall  ({load()})")
    queue, batches, wall0 = DeliveryQueue(db.engine), 0, time.perf_counter()
    while not queue.purge_deleted(client_id, hook, dispatcher.PRUNE_BATCH)[1]:
        batches += 1
    wall = (time.perf_counter() - wall0) * 1e3
    print(f"  the purge after it          {batches:,} transactions, {wall:7.1f} ms wall in all"
          f" ({wall / max(batches, 1):.1f} ms each)  ({load()})")
    db.dispose()


def move(line: str) -> dict[str, Any]:
    player, _, what = line.partition(": ")
    return {"player": player, "pass": True} if what == "pass" else {"player": player, "play": what.split()}


def pg_sections(admin: str, repeat: int, games: int) -> None:
    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients, deals
    from service.services.ledger import reports

    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_bench")
    try:
        upgrade(url)
        match_section(url, games, repeat)
        webhook_section(url)
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
    parser.add_argument("--games", type=int, default=10_000, help="games of the match loaded")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores ({load()})")
    model_section()
    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if admin and admin.startswith("postgresql"):
        pg_sections(admin, args.repeat, args.games)
    else:
        print("match, webhook, zone, deals: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
