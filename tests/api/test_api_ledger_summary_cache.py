"""All-history summaries are kept per worker and brought up to date with the records since
(services/ledger.py): every answer must equal the full sums over the ledger lines, on both
engines, whatever was stored, voided or read in between.

The full sums come from the same route with `since=0001-01-01T00:00:00Z`, which sums every
line again (a period is never kept).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from conftest import make_app, make_tenant
from httpkit import four_player_round, two_player_round

from service.adapters.ledger import LedgerRepository
from service.services import ledger

GROUPINGS = ["group_by=player", "group_by=table", "group_by=day", "group_by=day&tz=Asia/Jakarta"]
EVER = "since=0001-01-01T00:00:00Z"


def summary(http: Any, tenant: Any, query: str) -> dict[str, Any]:
    r = http.get(f"/v1/ledger/summary?currency=IDR&{query}", headers=tenant.read_headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    return dict(r.get_json())


def store(http: Any, tenant: Any, body: dict[str, Any]) -> str:
    r = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert r.status_code == 201, r.get_data(as_text=True)
    return str(r.get_json()["id"])


def agree(http: Any, tenant: Any) -> list[dict[str, Any]]:
    answers = []
    for query in GROUPINGS:
        kept = summary(http, tenant, query)
        assert kept == summary(http, tenant, f"{query}&{EVER}"), query
        answers.append(kept)
    return answers


@pytest.fixture
def spy(monkeypatch: Any) -> list[Any]:
    """The `records` range of every summary query the service runs."""
    seen: list[Any] = []
    original = LedgerRepository.summary

    def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("records"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LedgerRepository, "summary", recording)
    return seen


def test_an_all_history_summary_stays_the_full_sums_as_rounds_and_voids_are_stored(http, tenant, clock):
    assert [a["rows"] for a in agree(http, tenant)] == [[], [], [], []]  # nothing booked yet
    ids = []
    for day in range(3):
        clock.set(datetime(2026, 11, 29, 16, 30, tzinfo=UTC) + timedelta(days=day))  # WIB's day turns at 17:00
        ids.append(store(http, tenant, four_player_round(table=f"table-{day % 2}")))
        ids.append(store(http, tenant, two_player_round(reference=f"r-{day}")))
        agree(http, tenant)
        clock.advance(hours=1)
        ids.append(store(http, tenant, four_player_round(table=None)))
        agree(http, tenant)
    clock.advance(hours=2)
    r = http.post(f"/v1/rounds/{ids[0]}/void", json={"reason": "misdeal"}, headers=tenant.headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    by_player, by_table, by_day, by_wib_day = agree(http, tenant)
    # the void took the first round's share back: a played 9 rounds, counted 8
    assert {row["key"]: row["rounds"] for row in by_player["rows"]}["a"] == 6 + 3 - 1
    assert [row["key"] for row in by_table["rows"]] == [None, "table-0", "table-1", "table-7"]
    assert [row["key"] for row in by_day["rows"]] == ["2026-11-29", "2026-11-30", "2026-12-01"]
    assert [row["key"] for row in by_wib_day["rows"]] == [
        "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02"]


def test_a_summary_sums_only_the_records_since_the_one_before(http, tenant, spy):
    store(http, tenant, four_player_round())
    store(http, tenant, four_player_round())
    first = summary(http, tenant, "group_by=player")
    assert spy == [(0, 2)]  # the chain's records 1 and 2
    assert summary(http, tenant, "group_by=player") == first and spy == [(0, 2)]  # head unchanged: no query
    store(http, tenant, four_player_round())
    third = summary(http, tenant, "group_by=player")
    assert spy == [(0, 2), (2, 3)]  # only record 3's lines
    assert third == summary(http, tenant, f"group_by=player&{EVER}")
    assert spy[-1] is None  # a period is summed in full, and not kept
    summary(http, tenant, "group_by=table")  # another grouping keeps its own
    assert spy[-1] == (0, 3)


def test_two_workers_keep_their_own_totals_and_agree(db_url, tenant, app):
    other = make_app(db_url)  # a second worker process on the same database
    try:
        mine, theirs = app.test_client(), other.test_client()
        for n in range(4):
            store(mine if n % 2 else theirs, tenant, four_player_round())
            assert summary(mine, tenant, "group_by=player") == summary(theirs, tenant, "group_by=player")
            agree(mine, tenant)
    finally:
        other.extensions["capsa"].db.dispose()


def test_a_summary_with_too_many_rows_is_not_kept(http, tenant, spy, monkeypatch):
    monkeypatch.setattr(ledger, "SUMMARY_CHECKPOINT_ROWS", 3)  # the summary by player has 4
    store(http, tenant, four_player_round())
    summary(http, tenant, "group_by=player")
    summary(http, tenant, "group_by=player")
    assert spy == [(0, 1), (0, 1)]
    summary(http, tenant, "group_by=table")  # one row: kept
    summary(http, tenant, "group_by=table")
    assert spy == [(0, 1), (0, 1), (0, 1)]


def test_the_least_recently_read_summary_is_dropped_past_the_bound(http, tenant, spy, monkeypatch):
    monkeypatch.setattr(ledger, "SUMMARY_CHECKPOINTS", 2)
    ledger._CHECKPOINTS.clear()
    store(http, tenant, four_player_round())
    for query in ("group_by=player", "group_by=table", "group_by=player", "group_by=day", "group_by=player",
                  "group_by=table"):
        summary(http, tenant, query)
    # player, table kept; player read again; day drops table; player kept; table read in full again
    assert spy == [(0, 1), (0, 1), (0, 1), (0, 1)]


def test_a_chain_that_went_back_is_summed_in_full(app, tenant):
    from sqlalchemy import select

    from service.adapters.models import ChainHead

    db = app.extensions["capsa"].db
    http = app.test_client()
    store(http, tenant, four_player_round())
    kept = summary(http, tenant, "group_by=player")
    # a database restored from an older backup: the worker's totals are ahead of the head
    with db.unit_of_work() as uow:
        head = uow.session.scalar(select(ChainHead.sequence).where(ChainHead.client_id == tenant.id))
    checkpoints = ledger._CHECKPOINTS[db]
    key = (tenant.id, "IDR", "player", "UTC")
    checkpoints.put(key, ledger._Checkpoint(head + 5, checkpoints.get(key).groups))
    assert summary(http, tenant, "group_by=player") == kept
    assert checkpoints.get(key).through == head


def test_a_new_tenant_reads_zero_rows_and_then_its_first_round(app):
    http = app.test_client()
    tenant = make_tenant(app)
    assert summary(http, tenant, "group_by=player")["rows"] == []
    store(http, tenant, four_player_round())
    assert [r["key"] for r in summary(http, tenant, "group_by=player")["rows"]] == ["a", "b", "c", "d"]
