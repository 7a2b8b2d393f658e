"""Ledger reports against a Python recomputation over a generated history of 2,000 rounds."""

from __future__ import annotations

import csv
import io
import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from conftest import Tenant, make_tenant
from httpkit import problem

from service.domain.money import format_money, parse_stake
from service.services.clock import FixedClock, use_clock
from service.services.rounds import store as rounds
from service.services.rounds import voids

PLAYERS = [f"p{i}" for i in range(1, 7)]
TABLES = ["t1", "t2", "t3"]
CURRENCIES = {"IDR": "1000", "USD": "12.50", "JPY": "300"}
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROUNDS = 2000


def arrangement(cards: list[str]) -> dict[str, list[str]]:
    # Dealt order is random: some settings foul, which the ledger must book like any other.
    return {"front": cards[:3], "middle": cards[3:8], "back": cards[8:13]}


@dataclass
class History:
    tenant: Tenant
    docs: list[dict[str, Any]] = field(default_factory=list)
    voids: dict[str, datetime] = field(default_factory=dict)  # round id -> void time


@pytest.fixture(scope="module")
def history(app: Any) -> History:
    """2,000 rounds over 6 players, 3 tables, 3 currencies and 20 days; 1 in 15 voided later."""
    rng = random.Random(20261129)
    tenant = make_tenant(app)
    db = app.extensions["capsa"].db
    h = History(tenant)
    clock = FixedClock(START)
    previous = use_clock(clock)
    try:
        for i in range(ROUNDS):
            clock.set(START + timedelta(minutes=14 * i + rng.randrange(10), milliseconds=rng.randrange(1000)))
            ids = rng.sample(PLAYERS, rng.randint(2, 4))
            deck = DECK[:]
            rng.shuffle(deck)
            currency = rng.choice(list(CURRENCIES))
            body = {
                "rules": rng.choice(["capsa-susun-id", "chinese-poker-2-4"]),
                "table": rng.choice(TABLES),
                "currency": currency,
                "stake": CURRENCIES[currency],
                "players": [{"id": p, "arrangement": arrangement(deck[13 * k : 13 * k + 13])} for k, p in enumerate(ids)],
            }
            created = rounds.create(db, tenant.id, body, None)
            h.docs.append(json.loads(created.response.body))
            if rng.random() < 1 / 15:
                victim = rng.choice(h.docs)
                if victim["id"] not in h.voids:
                    h.voids[victim["id"]] = clock.advance(seconds=30)
                    voids.void(db, tenant.id, victim["id"], "generated void")
    finally:
        use_clock(previous)
    return h


@dataclass
class Expected:
    rounds: int = 0
    points: int = 0
    result: int = 0
    winnings: int = 0
    fees: int = 0


def expected(h: History, currency: str, since: datetime | None, until: datetime | None) -> tuple[dict[str, Expected], int, dict[str, list[int]], dict[str, list[int]]]:
    """Per player totals, the house fee, and (rounds, fees, net) per table and per day."""

    def inside(t: datetime) -> bool:
        return (since is None or t >= since) and (until is None or t < until)

    players: dict[str, Expected] = defaultdict(Expected)
    house = 0
    tables: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    days: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for doc in h.docs:
        if doc["currency"] != currency:
            continue
        created = datetime.fromisoformat(doc["created_at"].replace("Z", "+00:00"))
        bookings = [(created, 1)]
        if doc["id"] in h.voids:
            bookings.append((h.voids[doc["id"]], -1))
        for when, sign in bookings:
            if not inside(when):
                continue
            day = when.strftime("%Y-%m-%d")
            for groups, key in ((tables, doc["table"]), (days, day)):
                groups[key][0] += sign
            house += sign * parse_or_zero(doc["house_fee"], currency)
            for p in doc["players"]:
                e = players[p["id"]]
                fee = parse_or_zero(p["fee"], currency)
                result = signed(p["result"], currency)
                e.rounds += sign
                e.points += sign * p["points"]
                e.result += sign * result
                e.winnings += sign * parse_or_zero(p["winnings"], currency)
                e.fees += sign * fee
                for groups, key in ((tables, doc["table"]), (days, day)):
                    groups[key][1] += sign * fee
                    groups[key][2] += sign * (result - fee)
    return players, house, tables, days


def parse_or_zero(text: str, currency: str) -> int:
    return 0 if text.strip("0.") == "" else parse_stake(text, currency, "x")


def signed(text: str, currency: str) -> int:
    return -parse_or_zero(text[1:], currency) if text.startswith("-") else parse_or_zero(text, currency)


PERIODS = [
    (None, None),
    (START + timedelta(days=3), START + timedelta(days=9)),
    (START + timedelta(days=12, hours=5, minutes=7), None),
]


def q(since: datetime | None, until: datetime | None) -> str:
    out = ""
    if since:
        out += "&since=" + since.isoformat().replace("+00:00", "Z")
    if until:
        out += "&until=" + until.isoformat().replace("+00:00", "Z")
    return out


@pytest.mark.parametrize("period", range(len(PERIODS)))
def test_player_ledgers_equal_a_python_recomputation(http, history, period):
    since, until = PERIODS[period]
    for currency in CURRENCIES:
        players, _house, _t, _d = expected(history, currency, since, until)
        for player in PLAYERS:
            got = http.get(f"/v1/ledger/players/{player}?currency={currency}{q(since, until)}",
                           headers=history.tenant.read_headers).get_json()
            e = players.get(player, Expected())
            as_of = got.pop("as_of")
            assert (as_of["sequence"], as_of["source"]) == (len(history.docs) + len(history.voids), "primary")
            assert got == {
                "player": player, "currency": currency, "rounds": e.rounds, "points": e.points,
                "result": format_money(e.result, currency), "winnings": format_money(e.winnings, currency),
                "fees": format_money(e.fees, currency), "net": format_money(e.result - e.fees, currency),
            }, (player, currency)


@pytest.mark.parametrize("period", range(len(PERIODS)))
def test_summaries_by_player_table_and_day_equal_a_python_recomputation(http, history, period):
    since, until = PERIODS[period]
    h = history.tenant.read_headers
    for currency in CURRENCIES:
        players, house, tables, days = expected(history, currency, since, until)
        by_player = http.get(f"/v1/ledger/summary?currency={currency}&group_by=player{q(since, until)}", headers=h).get_json()
        assert by_player["house_fee"] == format_money(house, currency)
        assert by_player["rows"] == [
            {"key": p, "rounds": e.rounds, "result": format_money(e.result, currency),
             "fees": format_money(e.fees, currency), "net": format_money(e.result - e.fees, currency)}
            for p, e in sorted(players.items())
        ]
        for group, want in (("table", tables), ("day", days)):
            got = http.get(f"/v1/ledger/summary?currency={currency}&group_by={group}{q(since, until)}", headers=h).get_json()
            assert got["house_fee"] == format_money(house, currency)
            assert got["rows"] == [
                {"key": k, "rounds": r, "result": format_money(0, currency),
                 "fees": format_money(f, currency), "net": format_money(n, currency)}
                for k, (r, f, n) in sorted(want.items())
            ], (group, currency)


def test_over_all_time_every_voided_round_nets_to_zero(http, history):
    assert history.voids, "the generated history has voids"
    currency_of = {d["id"]: d for d in history.docs}
    for rid in history.voids:
        doc = currency_of[rid]
        currency = doc["currency"]
        lines = http.get(f"/v1/ledger/entries?currency={currency}&round={rid}&limit=500",
                         headers=history.tenant.read_headers).get_json()["items"]
        booked = sum(1 + (p["fee"] != format_money(0, currency)) for p in doc["players"])
        booked += doc["house_fee"] != format_money(0, currency)
        assert len(lines) == 2 * booked, rid  # every line of the round and its reversal
        assert sum(signed(line["amount"], currency) for line in lines) == 0
        assert sorted(line["kind"] for line in lines).count("reversal") == booked
        assert {line["round"] for line in lines} == {rid}


def test_entries_page_newest_first_and_the_csv_parses_back_to_the_same_lines(http, history):
    h = history.tenant.read_headers
    pages, cursor = [], None
    while True:
        url = "/v1/ledger/entries?currency=USD&limit=500" + (f"&cursor={cursor}" if cursor else "")
        body = http.get(url, headers=h).get_json()
        pages += body["items"]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    stamps = [line["created_at"] for line in pages]
    assert stamps == sorted(stamps, reverse=True)
    usd_docs = [d for d in history.docs if d["currency"] == "USD"]
    voided = sum(1 for d in usd_docs if d["id"] in history.voids)
    per_round = {d["id"]: sum(1 + (p["fee"] != "0.00") for p in d["players"]) + (d["house_fee"] != "0.00") for d in usd_docs}
    assert len(pages) == sum(per_round.values()) + sum(per_round[r] for r in history.voids if r in per_round)
    assert voided > 0
    response = http.get("/v1/ledger/entries?currency=USD", headers={**h, "Accept": "text/csv"})
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert list(rows[0]) == ["round", "sequence", "created_at", "account", "kind", "amount", "currency"]
    assert [{**r, "sequence": int(r["sequence"])} for r in rows] == pages
    # A player's lines sum to the player's ledger net.
    mine = [line for line in pages if line["account"] == "player:p3"]
    net = http.get("/v1/ledger/players/p3?currency=USD", headers=h).get_json()["net"]
    assert format_money(sum(signed(line["amount"], "USD") for line in mine), "USD") == net


def test_a_csv_export_stops_at_its_cap_and_links_the_rest_without_a_gap(http, history, monkeypatch):
    from urllib.parse import parse_qs, urlsplit

    from service.services.ledger import reports as ledger

    h = {**history.tenant.read_headers, "Accept": "text/csv"}
    whole = list(csv.DictReader(io.StringIO(
        http.get("/v1/ledger/entries?currency=USD", headers=h).get_data(as_text=True))))
    # a prime, so over some 40 answers a page ends at every place within a round's lines
    cap = 61
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", cap)
    assert len(whole) > 30 * cap
    got, url, answers = [], "/v1/ledger/entries?currency=USD", 0
    while url:
        response = http.get(url, headers=h)
        assert response.status_code == 200
        rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
        link = response.headers.get("Link")
        assert len(rows) == (cap if link else len(whole) % cap or cap), (answers, link)
        got += rows
        answers += 1
        url = None
        if link:
            target = link.removeprefix("<").split(">;")[0]
            assert link.endswith('; rel="next"')
            assert parse_qs(urlsplit(target).query)["currency"] == ["USD"]
            url = target
    assert got == whole  # every line once, in order
    assert answers == -(-len(whole) // cap)


def test_the_history_chain_verifies_in_pages_and_whole(http, history):
    h = history.tenant.read_headers
    total = len(history.docs) + len(history.voids)
    whole = http.get("/v1/audit/verify", headers=h).get_json()
    assert (whole["as_of"]["sequence"], whole["as_of"]["source"]) == (total, "primary")
    assert {k: v for k, v in whole.items() if k != "as_of"} == {
        "ok": True, "records_checked": total, "first_bad_sequence": None, "reason": None, "next_from_sequence": None
    }
    page = http.get("/v1/audit/verify?from_sequence=101&limit=700", headers=h).get_json()
    assert page["ok"] and page["records_checked"] == 700 and page["next_from_sequence"] == 801


@pytest.mark.parametrize(
    "query, field",
    [
        ("", "query.currency"),
        ("?currency=ZZZ", "query.currency"),
        ("?currency=IDR&group_by=week", "query.group_by"),
        ("?currency=IDR&since=yesterday", "query.since"),
        ("?currency=IDR&since=2026-03-02T00:00:00", "query.since"),
        ("?currency=IDR&since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z", "query.until"),
    ],
)
def test_bad_ledger_parameters_are_422_with_the_parameter_named(http, tenant, query, field):
    body = problem(http.get(f"/v1/ledger/summary{query}", headers=tenant.read_headers), 422, "validation")
    assert field in {e["field"] for e in body["errors"]}


def test_bad_entry_parameters_are_422(http, tenant):
    h = tenant.read_headers
    problem(http.get("/v1/ledger/entries?currency=IDR&limit=0", headers=h), 422, "validation")
    problem(http.get("/v1/ledger/entries?currency=IDR&limit=501", headers=h), 422, "validation")
    problem(http.get("/v1/ledger/entries?currency=IDR&cursor=garbage", headers=h), 422, "validation")
    problem(http.get("/v1/ledger/entries?currency=IDR&cursor=garbage", headers={**h, "Accept": "text/csv"}),
            422, "validation")
    problem(http.get("/v1/ledger/entries?currency=IDR", headers={**h, "Accept": "image/png"}), 406, "not-acceptable")
    problem(http.get("/v1/ledger/summary?currency=IDR", headers={**h, "Accept": "text/csv"}), 406, "not-acceptable")
