"""bench/chainload.py (the loader of bench/growth.py) writes what the service writes.

2,000 rounds loaded in bulk must pass the service's own checks, so the loader cannot drift
from the write path unnoticed: `GET /v1/audit/verify` over the whole chain, a loaded round
re-scored by `GET /v1/rounds/{id}/verify`, every receipt checked against the public key,
the ledger summed to the templates' money, and a round posted after the load chained on.
PostgreSQL only (the loader uses COPY).
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 2_000


def _chainload() -> Any:
    return load_script("bench/chainload.py", "chainload", register=True)


@pytest.fixture(scope="module")
def loaded(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from conftest import make_app

    from service.adapters import keyfile
    from service.domain.signing import Keyring
    from service.services import clients

    chainload = _chainload()
    start = datetime(2026, 3, 1, tzinfo=UTC)
    keyring = Keyring().rotated(start - timedelta(hours=1))[0]
    key_file = tmp_path_factory.mktemp("keys") / "signing-keys.json"
    keyfile.save(key_file, keyring)
    app = make_app(postgres_url, SIGNING_KEY_FILE=str(key_file))
    db = app.extensions["capsa"].db
    client_id, key = clients.create_client(db, "growth-loader")
    deals = chainload.templates(50)
    dsn = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    result = chainload.load(dsn, client_id, ROUNDS, start=start, spacing=timedelta(seconds=1, milliseconds=7),
                            keyring=keyring, deals=deals, chunk=700)
    chainload.analyze(dsn)
    yield {"app": app, "client": client_id, "headers": {"Authorization": f"Bearer {key}"}, "result": result,
           "keyring": keyring, "deals": deals, "chainload": chainload, "start": start}
    db.dispose()


def test_the_loaded_chain_verifies_with_the_services_verifier(loaded: Any) -> None:
    http = loaded["app"].test_client()
    assert loaded["result"].head == ROUNDS
    page = http.get(f"/v1/audit/verify?from_sequence=1&limit={ROUNDS}", headers=loaded["headers"]).get_json()
    assert (page["ok"], page["records_checked"], page["first_bad_sequence"], page["reason"]) == (
        True, ROUNDS, None, None
    )
    assert page["next_from_sequence"] is None
    head = http.get("/v1/audit/head", headers=loaded["headers"]).get_json()
    assert head["sequence"] == ROUNDS


def test_loaded_rounds_rescore_and_carry_their_reference_and_time(loaded: Any) -> None:
    http = loaded["app"].test_client()
    for sequence in (1, 999, ROUNDS):
        found = http.get(f"/v1/rounds?reference=load-{sequence}", headers=loaded["headers"]).get_json()["items"]
        assert len(found) == 1
        got = found[0]
        assert got["audit"]["sequence"] == sequence
        at = loaded["start"] + timedelta(seconds=1, milliseconds=7) * (sequence - 1)
        assert got["created_at"] == at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"
        verdict = http.get(f"/v1/rounds/{got['id']}/verify", headers=loaded["headers"]).get_json()
        assert (verdict["ok"], verdict.get("differences", [])) == (True, [])


def test_every_receipt_is_the_active_keys_signature(loaded: Any) -> None:
    from service.adapters.uow import Database
    from service.domain.signing import receipt_message

    db: Database = loaded["app"].extensions["capsa"].db
    keyring = loaded["keyring"]
    with db.unit_of_work() as uow:
        records = uow.chain.records(loaded["client"], 1, ROUNDS + 1)
    assert len(records) == ROUNDS
    kid = keyring.active.kid
    bad = [r.sequence for r in records if r.kid != kid or not keyring.verify(
        kid, receipt_message(loaded["client"], r.sequence, r.hash), r.signature)]
    assert bad == []


def test_the_ledger_holds_the_templates_money(loaded: Any) -> None:
    # The loader's random choice of templates, replayed: the summary must be their sum.
    import random

    from service.domain.money import format_money

    rng = random.Random(5)
    deals = loaded["deals"]
    results: Counter[str] = Counter()
    fee = 0
    for _ in range(ROUNDS):
        t = deals[rng.randrange(len(deals))]
        for p in t.players:
            results[p.id] += p.result - p.fee
        fee += t.house_fee
    http = loaded["app"].test_client()
    body = http.get("/v1/ledger/summary?currency=IDR&group_by=player", headers=loaded["headers"]).get_json()
    assert {row["key"]: row["net"] for row in body["rows"]} == {
        p: format_money(v, "IDR") for p, v in results.items()
    }
    assert body["house_fee"] == format_money(fee, "IDR")
    assert sum(results.values()) + fee == 0


def test_a_round_posted_after_the_load_chains_on(loaded: Any) -> None:
    body = (ROOT / "service/examples/round-4p-capsa-susun-id.json").read_bytes()
    http = loaded["app"].test_client()
    headers = {**loaded["headers"], "Content-Type": "application/json", "Idempotency-Key": "after-load"}
    created = http.post("/v1/rounds", data=body, headers=headers)
    assert created.status_code == 201, created.get_data(as_text=True)
    assert created.get_json()["audit"]["sequence"] == ROUNDS + 1
    page = http.get(f"/v1/audit/verify?from_sequence={ROUNDS - 1}&limit=10", headers=loaded["headers"]).get_json()
    assert (page["ok"], page["records_checked"]) == (True, 3)


def test_a_page_of_rounds_reads_that_page_not_every_round_of_the_client(loaded: Any) -> None:
    """`GET /v1/rounds` (newest first, by table, by player) on the loaded, analysed chain
    reads the page's rounds (and those its filter passes over), each with its records by
    key; by player, the player's currencies, then a page of the player's lines, then their
    rounds by key. In one statement the planner misjudged the join of a round to its record
    (three equal columns: it believed a single row), hashed every round of the client and
    sorted them all: 64 ms a page at 20,000 rounds, growing with the history."""
    from conftest import explained, most_rows
    from sqlalchemy import text

    app, client_id, chainload = loaded["app"], loaded["client"], loaded["chainload"]
    http = app.test_client()
    engine = app.extensions["capsa"].db.engine
    table, player = chainload.TABLES_REF[0], chainload.PLAYERS[0]

    def reads_rounds(statement: str) -> bool:
        start = statement.lstrip()
        return start.startswith(("SELECT", "WITH")) and any(
            table in statement for table in ("FROM rounds", "FROM ledger_lines", "FROM chain_records")
        )

    for query, where, statements in (
        ("", "", 2),
        (f"&table={table}", "AND r.table_ref = :table", 2),
        (f"&player={player}", "AND EXISTS (SELECT 1 FROM ledger_lines l WHERE l.client_id = r.client_id"
                              " AND l.sequence = r.sequence AND l.player_id = :player)", 5),
    ):
        with engine.connect() as conn:
            newest = conn.execute(
                text(f"SELECT id FROM rounds r WHERE client_id = :c {where} ORDER BY created_at DESC, id DESC LIMIT 10"),
                {"c": client_id, "table": table, "player": player},
            ).scalars().all()
        with explained(engine, reads_rounds) as plans:
            page = http.get(f"/v1/rounds?limit=5{query}", headers=loaded["headers"]).get_json()
            rest = http.get(f"/v1/rounds?limit=5{query}&cursor={page['next_cursor']}", headers=loaded["headers"])
        assert [r["id"] for r in page["items"] + rest.get_json()["items"]] == newest, query
        for plan in plans:
            assert "Hash" not in plan and "Seq Scan" not in plan, plan
            # the page and the rounds its filter passes over on the way: not the 2,000 of the history
            assert most_rows(plan) <= 50, plan
        # each page: its keys (by player: the player's currencies, lines, their records and
        # their rounds), then its rounds by key
        assert len(plans) == 2 * statements, (query, plans)
