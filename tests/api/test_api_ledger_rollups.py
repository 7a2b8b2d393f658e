"""All-time ledger reports read the rollups the database keeps up to a record sequence plus
the lines of the records after it (services/ledger/rollups.py): every answer must equal the full
sums over the ledger lines, on both engines, whatever was stored, voided, folded or read in
between, by any app (worker) and after a restart.

The full sums come from the same routes with `since=0001-01-01T00:00:00Z`, which sum every
line of the period (a period never reads the rollups).
"""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from conftest import explained, make_app, make_tenant
from httpkit import four_player_round, two_player_round
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.adapters.ledger import LedgerRepository
from service.adapters.rollups import RollupRepository
from service.services.ledger import rollups

GROUPINGS = ["group_by=player", "group_by=table", "group_by=day", "group_by=day&tz=Asia/Jakarta",
             "group_by=day&tz=Asia/Kathmandu", "group_by=day&tz=America/St_Johns"]
PLAYERS = ["a", "b", "c", "d", "nobody"]
EVER = "since=0001-01-01T00:00:00Z"


def get(http: Any, tenant: Any, path: str) -> dict[str, Any]:
    r = http.get(path, headers=tenant.read_headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    return dict(r.get_json())


def store(http: Any, tenant: Any, body: dict[str, Any]) -> str:
    r = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert r.status_code == 201, r.get_data(as_text=True)
    return str(r.get_json()["id"])


def void(http: Any, tenant: Any, round_id: str) -> None:
    r = http.post(f"/v1/rounds/{round_id}/void", json={"reason": "misdeal"}, headers=tenant.headers)
    assert r.status_code == 200, r.get_data(as_text=True)


def all_time(http: Any, tenant: Any) -> list[dict[str, Any]]:
    """Every all-time answer, each checked against the full sums of the same snapshot."""
    answers = []
    for query in GROUPINGS:
        kept = get(http, tenant, f"/v1/ledger/summary?currency=IDR&{query}")
        assert kept == get(http, tenant, f"/v1/ledger/summary?currency=IDR&{query}&{EVER}"), query
        answers.append(kept)
    for p in PLAYERS:
        kept = get(http, tenant, f"/v1/ledger/players/{p}?currency=IDR")
        assert kept == get(http, tenant, f"/v1/ledger/players/{p}?currency=IDR&{EVER}"), p
        answers.append(kept)
        statement = get(http, tenant, f"/v1/ledger/players/{p}/statement?currency=IDR&limit=500")
        full = get(http, tenant, f"/v1/ledger/players/{p}/statement?currency=IDR&limit=500&{EVER}")
        assert statement["closing_balance"] == full["closing_balance"], p
        assert statement["lines"] == full["lines"] and statement["as_of"] == full["as_of"], p
        answers.append(statement)
    return answers


def cursor(app: Any, tenant: Any) -> int:
    with app.extensions["capsa"].db.snapshot() as uow:
        return uow.rollups.cursor(tenant.id)


def fold_all(app: Any, tenant: Any) -> int:
    return rollups.fold(app.extensions["capsa"].db, tenant.id)


@pytest.fixture
def spy(monkeypatch: Any) -> list[Any]:
    """The `records` range of every summary query of the ledger (reads and folds)."""
    seen: list[Any] = []
    original = LedgerRepository.summary

    def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("records"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LedgerRepository, "summary", recording)
    return seen


def test_all_time_reports_stay_the_full_sums_through_rounds_voids_zones_and_folds(app, http, tenant, clock):
    assert [a["rows"] for a in all_time(http, tenant)[:len(GROUPINGS)]] == [[]] * len(GROUPINGS)
    ids = []
    for day in range(3):
        clock.set(datetime(2026, 11, 29, 16, 30, tzinfo=UTC) + timedelta(days=day))  # WIB's day turns at 17:00
        ids.append(store(http, tenant, four_player_round(table=f"table-{day % 2}")))
        ids.append(store(http, tenant, two_player_round(reference=f"r-{day}")))
        all_time(http, tenant)  # the tail alone: nothing folded yet
        assert fold_all(app, tenant) == (3 if day else 2)  # and the last round of the day before
        all_time(http, tenant)  # the rollups alone
        clock.advance(minutes=20)  # Kathmandu (+05:45) and St John's (-03:30) turn on quarters
        ids.append(store(http, tenant, four_player_round(table=None)))
        all_time(http, tenant)  # rollups and a tail
    clock.advance(hours=2)
    void(http, tenant, ids[0])
    answers = all_time(http, tenant)
    assert fold_all(app, tenant) == 2 and cursor(app, tenant) == 10  # the last round's and the void's record
    assert all_time(http, tenant) == answers
    by_player, by_table, by_day, by_wib_day = answers[:4]
    # the void took the first round's share back: a played 9 rounds, counted 8
    assert {row["key"]: row["rounds"] for row in by_player["rows"]}["a"] == 6 + 3 - 1
    assert [row["key"] for row in by_table["rows"]] == [None, "table-0", "table-1", "table-7"]
    assert [row["key"] for row in by_day["rows"]] == ["2026-11-29", "2026-11-30", "2026-12-01"]
    assert [row["key"] for row in by_wib_day["rows"]] == ["2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02"]
    # a's net: 5 four-player rounds left at 47,530 (README's example) and 3 two-player sweeps
    # of b at 11,000 less the 3% fee
    assert answers[len(GROUPINGS)]["rounds"] == 8
    assert answers[len(GROUPINGS)]["net"] == str(5 * 47_530 + 3 * (11_000 - 330))


def test_a_read_sums_only_the_records_after_the_rollups(app, http, tenant, spy):
    for _ in range(3):
        store(http, tenant, four_player_round())
    assert fold_all(app, tenant) == 3
    spy.clear()
    get(http, tenant, "/v1/ledger/summary?currency=IDR&group_by=player")
    assert spy == [(3, 3)]  # the rollups reach the head: an empty range of the primary key
    store(http, tenant, four_player_round())
    get(http, tenant, "/v1/ledger/summary?currency=IDR&group_by=table")
    assert spy[-1] == (3, 4)  # record 4's lines only
    get(http, tenant, f"/v1/ledger/summary?currency=IDR&group_by=table&{EVER}")
    assert spy[-1] is None  # a period sums every line of it


def test_a_read_behind_by_more_than_its_tail_folds_a_bounded_batch_first(app, http, tenant, monkeypatch):
    monkeypatch.setattr(rollups, "READ_TAIL", 1)
    monkeypatch.setattr(rollups, "READ_BATCH", 2)
    for _ in range(5):
        store(http, tenant, two_player_round())
    get(http, tenant, "/v1/ledger/players/a?currency=IDR")
    assert cursor(app, tenant) == 2  # 5 behind > 1: folded 2, then summed records 3-5
    get(http, tenant, "/v1/ledger/summary?currency=IDR")
    assert cursor(app, tenant) == 4
    get(http, tenant, "/v1/ledger/summary?currency=IDR")
    assert cursor(app, tenant) == 4  # 1 behind: within the tail, no fold
    all_time(http, tenant)


def test_the_sweep_folds_every_client_behind_in_bounded_batches(app, http, monkeypatch):
    monkeypatch.setattr(rollups, "SWEEP_BATCH", 2)
    # Every client behind is swept here: the session's database holds the other tests'
    # clients too (more than the default 100 on a busy worker), and some are further behind.
    monkeypatch.setattr(rollups, "SWEEP_CLIENTS", 1_000_000)
    first, second = make_tenant(app), make_tenant(app)
    for _ in range(3):
        store(http, first, two_player_round())
    store(http, second, four_player_round())
    db = app.extensions["capsa"].db
    with db.unit_of_work() as uow:
        behind = uow.rollups.behind(1000)
    assert behind.index(first.id) < behind.index(second.id)  # the furthest behind first
    rollups.sweep(db)
    assert (cursor(app, first), cursor(app, second)) == (2, 1)
    rollups.sweep(db)
    assert (cursor(app, first), cursor(app, second)) == (3, 1)
    with db.unit_of_work() as uow:
        assert first.id not in uow.rollups.behind(1000) and second.id not in uow.rollups.behind(1000)
    all_time(http, first)
    all_time(http, second)


def test_two_workers_fold_and_read_the_same_rollups_and_a_restart_keeps_them(db_url, app, tenant):
    other = make_app(db_url)  # a second worker process on the same database
    try:
        mine, theirs = app.test_client(), other.test_client()
        for n in range(4):
            store(mine if n % 2 else theirs, tenant, four_player_round())
            if n % 2:  # folds by either worker, one record each: two of the four are left
                rollups.fold((app if n == 1 else other).extensions["capsa"].db, tenant.id, limit=1)
            assert all_time(mine, tenant) == all_time(theirs, tenant)
        assert cursor(app, tenant) == 2
        before = all_time(mine, tenant)
    finally:
        other.extensions["capsa"].db.dispose()
    restarted = make_app(db_url)  # every worker gone and a new one started: nothing was in memory
    try:
        assert all_time(restarted.test_client(), tenant) == before
        assert rollups.fold(restarted.extensions["capsa"].db, tenant.id) == 2
        assert all_time(restarted.test_client(), tenant) == before
    finally:
        restarted.extensions["capsa"].db.dispose()


def test_totals_past_2_63_stay_exact_in_the_rollups(app, http, tenant):
    from test_api_hostile import _bonus_round

    n = 12  # 12 x 10^18 is beyond 2^63
    for k in range(n):
        store(http, tenant, _bonus_round(994, table="big"))
        if k % 5 == 0:
            fold_all(app, tenant)
    answers = all_time(http, tenant)
    assert answers[len(GROUPINGS)]["result"] == str(n * 10**18)
    fold_all(app, tenant)
    assert all_time(http, tenant) == answers


def test_rollups_past_the_chain_head_are_not_read_and_are_folded_again(app, http, tenant):
    """A chain behind its rollups (restored in part): the reads sum every line, the next
    fold starts again from record 1."""
    from sqlalchemy import update

    from service.adapters.models import LedgerRollupCursor

    for _ in range(2):
        store(http, tenant, four_player_round())
    fold_all(app, tenant)
    answers = all_time(http, tenant)
    db = app.extensions["capsa"].db
    with db.unit_of_work(write=True) as uow:
        uow.session.execute(update(LedgerRollupCursor).where(LedgerRollupCursor.client_id == tenant.id)
                            .values(sequence=7))
        uow.commit()
    assert all_time(http, tenant) == answers
    assert fold_all(app, tenant) == 2 and cursor(app, tenant) == 2
    assert all_time(http, tenant) == answers


@pytest.fixture
def postgres_only(db_url: str) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's: SQLite's write transactions are exclusive (no second fold to meet), no EXPLAIN")


@pytest.mark.postgres
def test_a_fold_never_waits_for_another_and_folds_nothing_twice(app, http, tenant, postgres_only):
    for _ in range(3):
        store(http, tenant, two_player_round())
    db = app.extensions["capsa"].db
    with db.unit_of_work(write=True) as holder:
        assert holder.rollups.claim(tenant.id) == 0  # made and locked
        holder.commit()
    with db.unit_of_work(write=True) as holder:
        assert holder.rollups.claim(tenant.id) == 0
        done: list[int] = []
        t = threading.Thread(target=lambda: done.append(rollups.fold(db, tenant.id)))
        t.start()
        t.join(10)
        assert done == [0]  # skipped the locked cursor at once
    assert rollups.fold(db, tenant.id) == 3
    all_time(http, tenant)


@pytest.fixture
def own_app(postgres_only: None) -> Any:
    """An app on a database of its own: the planner's choice depends on the table's
    statistics, which other tests' clients would skew in the session's database (under
    xdist it held a Sort over this client's few rows: a fine plan, not the one checked)."""
    from conftest import drop_pg_database, migrated_pg_database, pg_admin_url

    admin = pg_admin_url()
    assert admin is not None
    url, name = migrated_pg_database(admin)
    app = make_app(url)
    try:
        yield app
    finally:
        app.extensions["capsa"].db.dispose()
        drop_pg_database(admin, name)


def _page_plans(app: Any, http: Any, tenant: Any, path: str, needle: str) -> tuple[dict[str, Any], list[str]]:
    """GET `path` after an ANALYZE (as autovacuum would: it is off on the test server), with
    the EXPLAIN of every statement holding `needle` and an ORDER BY: (the page, the plans)."""
    from sqlalchemy import text

    engine = app.extensions["capsa"].db.engine
    with engine.connect() as conn:
        conn.execute(text("ANALYZE ledger_lines"))
        conn.execute(text("ANALYZE chain_records"))
        conn.commit()
    with explained(engine, lambda statement: needle in statement and "ORDER BY" in statement, analyze=False) as plans:
        page = get(http, tenant, path)
    return page, plans


@pytest.mark.postgres
def test_a_players_all_time_page_reads_an_index_in_order_not_the_history(own_app):
    app, http, tenant = own_app, own_app.test_client(), make_tenant(own_app)
    for _ in range(3):
        store(http, tenant, four_player_round())
    for _ in range(40):  # a is in 3 of 43 records: a history the page must not walk
        body = two_player_round()
        body["players"] = [{**p, "id": f"o{n}"} for n, p in enumerate(body["players"])]
        store(http, tenant, body)
    _, plans = _page_plans(
        app, http, tenant, "/v1/ledger/entries?currency=IDR&player=a&limit=2", "FROM ledger_lines JOIN chain_records"
    )
    assert len(plans) == 1, plans
    assert "Index Scan Backward using ix_ledger_lines_player_time on ledger_lines" in plans[0], plans[0]
    assert "Seq Scan on ledger_lines" not in plans[0], plans[0]
    assert "Incremental Sort" in plans[0] and "Presorted Key: ledger_lines.created_at" in plans[0], plans[0]


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("round4"), st.sampled_from([None, "t1", "t2"])),
        st.tuples(st.just("round2"), st.sampled_from([None, "t1"])),
        st.tuples(st.just("void"), st.integers(0, 20)),
        st.tuples(st.just("fold"), st.integers(1, 4)),
        st.tuples(st.just("later"), st.integers(1, 60 * 14)),  # minutes: days and zone boundaries
        st.tuples(st.just("read"), st.just(0)),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_property_any_history_of_rounds_voids_and_folds_reads_the_full_sums(app, clock, ops):
    http = app.test_client()
    tenant = make_tenant(app)
    db = app.extensions["capsa"].db
    clock.set(datetime(2026, 11, 29, 16, 40, tzinfo=UTC))
    stored: list[str] = []
    voided: set[str] = set()
    for op, arg in ops:
        if op == "round4":
            stored.append(store(http, tenant, four_player_round(table=arg)))
        elif op == "round2":
            stored.append(store(http, tenant, two_player_round(table=arg)))
        elif op == "void" and stored and stored[arg % len(stored)] not in voided:
            voided.add(stored[arg % len(stored)])
            void(http, tenant, stored[arg % len(stored)])
        elif op == "fold":
            rollups.fold(db, tenant.id, limit=arg)
        elif op == "later":
            clock.advance(minutes=arg)
        elif op == "read":
            all_time(http, tenant)
    all_time(http, tenant)


@pytest.mark.postgres
def test_the_clients_newest_page_reads_line_0s_index_in_order_not_every_line(own_app):
    """Client-wide lines find their records by line 0 (migration 0017): one index entry per
    record, read backward from the newest, each record's lines joined by primary key."""
    app, http, tenant = own_app, own_app.test_client(), make_tenant(own_app)
    for _ in range(60):
        store(http, tenant, four_player_round())
    page, plans = _page_plans(app, http, tenant, "/v1/ledger/entries?currency=IDR&limit=3", "FROM ledger_lines JOIN")
    assert len(page["items"]) == 3
    assert len(plans) == 1, plans
    # An index-only scan once the visibility map is set (a vacuumed table), either way in order.
    assert re.search(r"Index (Only )?Scan Backward using ix_ledger_lines_record_time on ledger_lines first_line", plans[0]), plans[0]
    assert "Seq Scan on ledger_lines" not in plans[0], plans[0]


def test_an_all_time_statement_takes_its_closing_from_the_rollups_not_a_sum_of_every_line(
    app, http, tenant, monkeypatch
):
    """Over all history the closing balance is the player's rollup plus the lines after it;
    a period's opening and closing are sums of the account's lines (two of them)."""
    for _ in range(3):
        store(http, tenant, four_player_round())
    assert fold_all(app, tenant) == 3
    sums: list[int] = []
    original = LedgerRepository.balance

    def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
        sums.append(original(self, *args, **kwargs))
        return sums[-1]

    monkeypatch.setattr(LedgerRepository, "balance", recording)
    kept = get(http, tenant, "/v1/ledger/players/a/statement?currency=IDR")
    assert sums == []
    full = get(http, tenant, f"/v1/ledger/players/a/statement?currency=IDR&{EVER}")
    assert len(sums) == 2
    assert kept["closing_balance"] == full["closing_balance"] == str(3 * 47_530)


@pytest.mark.postgres
def test_an_all_time_summary_by_day_in_a_zone_reads_the_quarters_once_not_once_a_day(own_app, clock):
    """A zone's days are gathered from the quarter rows in one pass (each quarter's day by a
    binary search of the days' bounds): joined to a list of day ranges, PostgreSQL compared
    every quarter with every day (1.2 s for 671 days of history)."""
    app, http, tenant = own_app, own_app.test_client(), make_tenant(own_app)
    clock.set(datetime(2026, 10, 1, 3, 0, tzinfo=UTC))
    for _ in range(12):
        store(http, tenant, two_player_round())
        clock.advance(hours=9)  # about 5 days, quarters on every day in Jakarta and in UTC
    assert fold_all(app, tenant) == 12
    with app.extensions["capsa"].db.engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE ledger_rollups")
        conn.commit()
    path = "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta"
    page, plans = _page_plans(app, http, tenant, path, "FROM ledger_rollups")
    assert page == get(http, tenant, f"{path}&{EVER}")
    assert [row["key"] for row in page["rows"]] == ["2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04", "2026-10-05"]
    assert plans and all("Nested Loop" not in plan and "Join" not in plan for plan in plans), plans


def _zones_passed(monkeypatch: Any, owner: Any, name: str) -> list[str]:
    """The zone (its name) of every call of `owner.name` from now on, whose last argument is
    a zone: `RollupRepository.zone_days`, `rollups.keep_zone`."""
    passed: list[str] = []
    original = getattr(owner, name)

    def spy(*args: Any) -> Any:
        passed.append(args[-1].key)
        return original(*args)

    monkeypatch.setattr(owner, name, spy)
    return passed


def test_a_zone_read_from_the_quarters_keeps_its_days_and_later_folds_add_to_them(app, http, tenant, clock, monkeypatch):
    """The first all-time summary by day in a zone gathers the quarter hours (up to 96 rows a
    day of history) and has the rollups keep that zone's days from then on: later reads take
    a row a day, later folds add theirs, and every answer stays the full sums."""
    path = "/v1/ledger/summary?currency=IDR&group_by=day&tz=America/St_Johns"  # -03:30, and DST
    clock.set(datetime(2026, 10, 30, 20, 0, tzinfo=UTC))
    for _ in range(4):
        store(http, tenant, four_player_round())
        clock.advance(hours=7)
    assert fold_all(app, tenant) == 4
    gathered = _zones_passed(monkeypatch, RollupRepository, "zone_days")
    first = get(http, tenant, path)
    assert first == get(http, tenant, f"{path}&{EVER}")
    with app.extensions["capsa"].db.snapshot() as uow:
        assert uow.rollups.zones(tenant.id) == {"IDR": ["America/St_Johns"]}
    gathered.clear()
    assert get(http, tenant, path) == first and gathered == []  # a row a day, not the quarters
    # St John's leaves daylight time on 1 November: these rounds fall on both sides of it
    for _ in range(6):
        store(http, tenant, two_player_round())
        clock.advance(hours=5)
    assert get(http, tenant, path) == get(http, tenant, f"{path}&{EVER}")  # kept days and a tail
    assert fold_all(app, tenant) == 6
    answer = get(http, tenant, path)
    assert answer == get(http, tenant, f"{path}&{EVER}") and gathered == []
    assert [row["key"] for row in answer["rows"]] == ["2026-10-30", "2026-10-31", "2026-11-01"]


def test_a_client_keeps_the_days_of_a_bounded_number_of_zones(app, http, tenant, clock, monkeypatch):
    monkeypatch.setattr(rollups, "ZONES_KEPT", 2)
    clock.set(datetime(2026, 10, 30, 20, 0, tzinfo=UTC))
    store(http, tenant, four_player_round())
    assert fold_all(app, tenant) == 1
    for zone in ("Asia/Jakarta", "Asia/Kathmandu", "Asia/Tokyo"):
        path = f"/v1/ledger/summary?currency=IDR&group_by=day&tz={zone}"
        assert get(http, tenant, path) == get(http, tenant, f"{path}&{EVER}")
    with app.extensions["capsa"].db.snapshot() as uow:
        assert uow.rollups.zones(tenant.id) == {"IDR": ["Asia/Jakarta", "Asia/Kathmandu"]}
    path = "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Tokyo"  # still answered, from the quarters
    assert get(http, tenant, path)["rows"][0]["key"] == "2026-10-31"


def test_only_a_summary_by_day_gathered_from_the_quarters_keeps_its_zone(
    app, http, tenant, clock, monkeypatch
):
    """A zone is kept only after an all-time summary by day there was gathered from the
    quarter hours: not after a read with nothing folded yet (the lines alone), one by player
    or table (whatever its `tz`), by UTC day, over a period, or by day in a zone kept
    already; each of those would take the cursor's lock in a write and could spend one of
    ZONES_KEPT on a zone no read gathers."""
    kept = _zones_passed(monkeypatch, rollups, "keep_zone")
    clock.set(datetime(2026, 10, 30, 20, 0, tzinfo=UTC))
    store(http, tenant, four_player_round())
    jakarta = "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta"
    assert [row["key"] for row in get(http, tenant, jakarta)["rows"]] == ["2026-10-31"]  # nothing folded
    assert fold_all(app, tenant) == 1
    for query in (
        "group_by=player&tz=Asia/Tokyo",
        "group_by=table&tz=Asia/Tokyo",
        "group_by=day",
        "group_by=day&tz=Etc/UTC",
        f"group_by=day&tz=Asia/Tokyo&{EVER}",
    ):
        get(http, tenant, f"/v1/ledger/summary?currency=IDR&{query}")
    assert kept == []
    with app.extensions["capsa"].db.snapshot() as uow:
        assert uow.rollups.zones(tenant.id) == {}
    first = get(http, tenant, jakarta)  # from the quarters: kept from now on
    assert kept == ["Asia/Jakarta"]
    assert get(http, tenant, jakarta) == first and kept == ["Asia/Jakarta"]  # its kept days: nothing to keep
    with app.extensions["capsa"].db.snapshot() as uow:
        assert uow.rollups.zones(tenant.id) == {"IDR": ["Asia/Jakarta"]}


def test_a_kept_zone_gone_from_the_zone_database_is_forgotten_not_left_stale(app, http, tenant, clock):
    """A kept zone that this host's zone database no longer has (a link moved out of the
    default package) must not stop the client's folds: its days are dropped, and the others
    kept as before."""
    from service.adapters.ledger import Grouping, Totals

    clock.set(datetime(2026, 10, 30, 20, 0, tzinfo=UTC))
    store(http, tenant, four_player_round())
    assert fold_all(app, tenant) == 1
    path = "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta"
    get(http, tenant, path)  # keeps Jakarta
    zero = (0,) * 7
    with app.extensions["capsa"].db.unit_of_work(write=True) as uow:  # as an older host kept it
        uow.rollups.add(tenant.id, "IDR", Grouping.ZONE, [Totals("Nowhere/Atlantis", *zero)])
        uow.rollups.add(tenant.id, "IDR", Grouping.ZONE_DAY, [Totals("Nowhere/Atlantis 2026-10-30", 1, *zero[1:])])
        uow.commit()
    store(http, tenant, two_player_round())
    assert fold_all(app, tenant) == 1
    with app.extensions["capsa"].db.snapshot() as uow:
        assert uow.rollups.zones(tenant.id) == {"IDR": ["Asia/Jakarta"]}
        assert uow.rollups.kept_days(tenant.id, "IDR", "Nowhere/Atlantis") is None
        assert uow.rollups.read(tenant.id, "IDR", Grouping.ZONE_DAY, "Nowhere/Atlantis 2026-10-30") == []
    assert get(http, tenant, path) == get(http, tenant, f"{path}&{EVER}")


@pytest.mark.parametrize("name", ["localtime", "posix/Asia/Jakarta"])
def test_a_zone_kept_before_its_name_was_refused_is_forgotten_and_not_checked(app, http, tenant, clock, name):
    """`tz=localtime` and the copies under `posix/` were once kept like any zone. They load
    on every host, so the fold went on cutting days by each node's own zone (and the audit's
    rollup check compared those cuts): the next fold forgets them."""
    from zoneinfo import ZoneInfo

    from service.adapters.ledger import Grouping
    from service.services.audit import chains

    clock.set(datetime(2026, 10, 30, 20, 0, tzinfo=UTC))
    store(http, tenant, four_player_round())
    assert fold_all(app, tenant) == 1
    db = app.extensions["capsa"].db
    assert rollups.keep_zone(db, tenant.id, "IDR", ZoneInfo(name))  # as a read before the refusal kept it
    get(http, tenant, "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta")  # keeps Jakarta
    store(http, tenant, two_player_round())
    assert fold_all(app, tenant) == 1
    with db.snapshot() as uow:
        assert uow.rollups.zones(tenant.id) == {"IDR": ["Asia/Jakarta"]}
        assert uow.rollups.kept_days(tenant.id, "IDR", name) is None
        assert uow.rollups.read(tenant.id, "IDR", Grouping.ZONE_DAY, f"{name} 2026-10-30") == []
    assert chains.rollups_differ(db, tenant.id) is None
