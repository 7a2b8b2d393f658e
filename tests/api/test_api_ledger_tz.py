"""Reports in the operator's time zone and player statements, on both engines.

Asia/Jakarta (WIB) is UTC+7 all year: its day turns at 17:00 UTC. Every round here is the
README's four-player example (a: result 49000, fee 1470, net 47530; house fee 1860).
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from httpkit import four_player_round, problem

# (UTC time, its UTC day, its WIB day)
TIMES = [
    (datetime(2026, 11, 30, 10, 0, tzinfo=UTC), "2026-11-30", "2026-11-30"),
    (datetime(2026, 11, 30, 16, 59, 59, 999000, tzinfo=UTC), "2026-11-30", "2026-11-30"),
    (datetime(2026, 11, 30, 17, 0, tzinfo=UTC), "2026-11-30", "2026-12-01"),
    (datetime(2026, 12, 1, 18, 0, tzinfo=UTC), "2026-12-01", "2026-12-02"),
]
A_NET, A_RESULT, A_FEE, HOUSE = 47530, 49000, 1470, 1860


def _next(link):
    """The next answer's URL from a Link header (None without one)."""
    return link.removeprefix("<").split(">;")[0] if link else None


def _spied_reads(monkeypatch, method):
    """Every call of LedgerRepository.`method` from now on, as ("look", rows) for a look past
    a cut (an offset) and ("page", rows) for a page."""
    from service.adapters.ledger import LedgerRepository

    reads: list[tuple[str, int]] = []
    original = getattr(LedgerRepository, method)

    def counting(self, *args, **kwargs):
        rows = original(self, *args, **kwargs)
        reads.append(("look" if kwargs.get("offset") else "page", len(rows)))
        return rows

    monkeypatch.setattr(LedgerRepository, method, counting)
    return reads


@pytest.fixture
def placed(http, tenant, clock):
    ids = []
    for when, _, _ in TIMES:
        clock.set(when)
        r = http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers)
        assert r.status_code == 201, r.get_json()
        ids.append(r.get_json()["id"])
    return ids


def _days(http, tenant, query):
    r = http.get(f"/v1/ledger/summary?currency=IDR&group_by=day&{query}", headers=tenant.read_headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_a_day_summary_in_asia_jakarta_cuts_days_at_17_utc(http, tenant, placed):
    utc = _days(http, tenant, "")
    assert [(row["key"], row["rounds"]) for row in utc["rows"]] == [("2026-11-30", 3), ("2026-12-01", 1)]
    wib = _days(http, tenant, "tz=Asia/Jakarta")
    assert [(row["key"], row["rounds"]) for row in wib["rows"]] == [
        ("2026-11-30", 2), ("2026-12-01", 1), ("2026-12-02", 1)]
    # Players' lines only: the house's fee is the rest, so each day's net is minus the fees it took.
    assert [row["net"] for row in wib["rows"]] == [str(-2 * HOUSE), str(-HOUSE), str(-HOUSE)]
    assert wib["house_fee"] == utc["house_fee"] == str(4 * HOUSE)


def test_the_default_zone_stays_utc_and_utc_by_name_agrees(http, tenant, placed):
    assert _days(http, tenant, "") == _days(http, tenant, "tz=UTC") == _days(http, tenant, "tz=Etc/UTC")


def test_a_date_is_read_as_midnight_in_the_zone(http, tenant, placed):
    wib = _days(http, tenant, "tz=Asia/Jakarta&since=2026-12-01&until=2026-12-02")
    assert [(row["key"], row["rounds"]) for row in wib["rows"]] == [("2026-12-01", 1)]
    utc = _days(http, tenant, "since=2026-11-30&until=2026-12-01")
    assert [(row["key"], row["rounds"]) for row in utc["rows"]] == [("2026-11-30", 3)]
    player = http.get("/v1/ledger/players/a?currency=IDR&since=2026-12-01&tz=Asia/Jakarta",
                      headers=tenant.read_headers).get_json()
    assert (player["rounds"], player["net"]) == (2, str(2 * A_NET))


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("tz=Nowhere/Atlantis", "query.tz"),
        ("tz=../../etc/passwd", "query.tz"),
        ("tz=%20UTC", "query.tz"),
        # Files of the zone folder that are not zones of their own: the host's zone (one
        # node's days would differ from another's), a template, a placeholder, and copies
        # of real zones under other names (each would take one of the zones kept).
        ("tz=localtime", "query.tz"),
        ("tz=posixrules", "query.tz"),
        ("tz=Factory", "query.tz"),
        ("tz=posix/Asia/Jakarta", "query.tz"),
        ("tz=right/UTC", "query.tz"),
        ("tz=Asia/Jakarta&since=0001-01-01", "query.since"),
        ("tz=Asia/Jakarta&until=0001-01-01", "query.until"),
        ("since=2026-02-30", "since"),
        ("tz=Asia/Jakarta&since=2026-12-02&until=2026-12-01", "query.until"),
    ],
)
def test_a_bad_zone_or_a_date_out_of_range_is_422_naming_the_field(http, tenant, query, field):
    body = problem(http.get(f"/v1/ledger/summary?currency=IDR&group_by=day&{query}", headers=tenant.read_headers),
                   422, "validation")
    assert any(field in e["field"] for e in body["errors"]), body


REFUSALS = [
    ("currency=ZZZ", "unknown currency 'ZZZ'", "query.currency", "unknown currency 'ZZZ'"),
    ("currency=IDR&tz=Nowhere/Atlantis", "unknown time zone 'Nowhere/Atlantis'", "query.tz",
     "'Nowhere/Atlantis' is not an IANA time zone name (e.g. Asia/Jakarta)"),
    # a + the client did not encode reads as a space: the message says how to send it
    ("currency=IDR&tz=Etc/GMT+5", "unknown time zone 'Etc/GMT 5'", "query.tz",
     "'Etc/GMT 5' is not an IANA time zone name (e.g. Asia/Jakarta); a + in a query reads as a space:"
     " send it as %2B"),
    ("currency=IDR&tz=Asia/Jakarta&since=0001-01-01",
     "since '0001-01-01' in Asia/Jakarta is outside the supported range", "query.since",
     "'0001-01-01' in Asia/Jakarta is out of range"),
    ("currency=IDR&tz=Asia/Jakarta&until=0001-01-01",
     "until '0001-01-01' in Asia/Jakarta is outside the supported range", "query.until",
     "'0001-01-01' in Asia/Jakarta is out of range"),
    ("currency=IDR&since=2026-12-02&until=2026-12-01", "until is before since", "query.until",
     "must not be before since"),
]


@pytest.mark.parametrize("path", ["/v1/ledger/players/a", "/v1/ledger/summary"])
@pytest.mark.parametrize(("query", "detail", "field", "message"), REFUSALS)
def test_a_refused_currency_zone_date_or_period_says_what_is_wrong_and_where(
    http, tenant, path, query, detail, field, message
):
    """The whole refusal: the detail names the value (and the zone it was read in), and the
    one field error names the parameter and says what is wrong with it."""
    body = problem(http.get(f"{path}?{query}", headers=tenant.read_headers), 422, "validation")
    assert (body["detail"], body["errors"]) == (detail, [{"field": field, "message": message}])


@pytest.mark.parametrize("bounds", ["since=2026-11-30T17:00:00Z&until=2026-11-30T17:00:00Z",
                                    "since=2026-12-01&until=2026-12-01&tz=Asia/Jakarta"])
def test_a_period_that_ends_where_it_starts_is_empty_not_refused(http, tenant, placed, bounds):
    """until equal to since is a period of no time: nothing in it, not an until before since,
    though a round is dated exactly at that instant (placed[2], 17:00 UTC: WIB midnight)."""
    r = http.get(f"/v1/ledger/summary?currency=IDR&{bounds}", headers=tenant.read_headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_json()
    assert body.pop("as_of")["sequence"] == len(placed)
    assert body == {"currency": "IDR", "rows": [], "house_fee": "0"}  # the whole answer
    r = http.get(f"/v1/ledger/players/a?currency=IDR&{bounds}", headers=tenant.read_headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_json()
    assert body.pop("as_of")["sequence"] == len(placed)
    assert body == {"player": "a", "currency": "IDR", "rounds": 0, "points": 0,
                    "result": "0", "winnings": "0", "fees": "0", "net": "0"}


@pytest.fixture
def far_east_host():
    """The process's local time zone set to UTC+14 (Pacific/Kiritimati) for the test."""
    import os
    import time

    before = os.environ.get("TZ")
    os.environ["TZ"] = "Pacific/Kiritimati"
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


def test_a_dates_midnight_is_held_in_utc_whatever_the_hosts_own_zone(http, tenant, placed, far_east_host):
    """The last day in a zone west of UTC starts at an instant UTC can carry (Honolulu's
    midnight of 9999-12-31 is 10:00 UTC) but the host's UTC+14 cannot (24:00 there): it is
    a bound like any other, not out of range, on a host in any zone."""
    assert datetime(2026, 1, 1, 10, tzinfo=UTC).astimezone().utcoffset() == timedelta(hours=14)
    period = "since=2026-11-30&until=9999-12-31&tz=Pacific/Honolulu"
    days = http.get(f"/v1/ledger/summary?currency=IDR&group_by=day&{period}", headers=tenant.read_headers)
    assert days.status_code == 200, days.get_data(as_text=True)
    # Honolulu is UTC-10: the first round opens its 30 November, three rounds fall on that day.
    rows = days.get_json()["rows"]
    assert [(row["key"], row["rounds"]) for row in rows] == [("2026-11-30", 3), ("2026-12-01", 1)]
    a = http.get(f"/v1/ledger/players/a?currency=IDR&{period}", headers=tenant.read_headers)
    assert a.status_code == 200, a.get_data(as_text=True)
    assert (a.get_json()["rounds"], a.get_json()["net"]) == (4, str(4 * A_NET))


def test_a_statement_echoes_a_bound_to_the_microsecond_it_was_applied_at(http, tenant, placed):
    """A bound between two milliseconds was echoed cut to the millisecond below it: the echo
    `.000Z` then named a bound that takes a line at .000, which the answer left out."""
    r = http.get("/v1/ledger/players/a/statement?currency=IDR&since=2026-11-30T17:00:00.0005Z"
                 "&until=2026-12-31T00:00:00.123456789Z", headers=tenant.read_headers)
    doc = r.get_json()
    assert (doc["since"], doc["until"]) == ("2026-11-30T17:00:00.000500Z", "2026-12-31T00:00:00.123456Z")


def test_a_statement_has_the_opening_balance_the_lines_and_the_closing_balance(http, tenant, placed):
    r = http.get("/v1/ledger/players/a/statement?currency=IDR&since=2026-12-01&tz=Asia/Jakarta",
                 headers=tenant.read_headers)
    doc = r.get_json()
    assert (doc["since"], doc["until"], doc["tz"]) == ("2026-11-30T17:00:00.000Z", None, "Asia/Jakarta")
    assert doc["opening_balance"] == str(2 * A_NET)  # the two rounds before WIB 1 December
    assert doc["closing_balance"] == str(4 * A_NET)
    assert [(x["round"], x["kind"], x["amount"], x["balance"]) for x in doc["lines"]] == [
        (placed[2], "settlement", str(A_RESULT), str(2 * A_NET + A_RESULT)),
        (placed[2], "fee", str(-A_FEE), str(3 * A_NET)),
        (placed[3], "settlement", str(A_RESULT), str(3 * A_NET + A_RESULT)),
        (placed[3], "fee", str(-A_FEE), str(4 * A_NET)),
    ]
    assert doc["next_cursor"] is None


def test_statement_pages_carry_the_running_balance_across_the_cursor(http, tenant, placed):
    url = "/v1/ledger/players/a/statement?currency=IDR&since=2026-12-01&tz=Asia/Jakarta&limit=3"
    first = http.get(url, headers=tenant.read_headers).get_json()
    second = http.get(url + f"&cursor={first['next_cursor']}", headers=tenant.read_headers).get_json()
    assert [x["balance"] for x in first["lines"] + second["lines"]] == [
        str(2 * A_NET + A_RESULT), str(3 * A_NET), str(3 * A_NET + A_RESULT), str(4 * A_NET)]
    assert second["next_cursor"] is None and second["closing_balance"] == first["closing_balance"]


def test_a_void_shows_in_the_statement_as_reversals_dated_at_the_void(http, tenant, placed, clock):
    clock.set(datetime(2026, 12, 2, 1, 0, tzinfo=UTC))
    assert http.post(f"/v1/rounds/{placed[0]}/void", json={"reason": "misdeal"}, headers=tenant.headers).status_code == 200
    doc = http.get("/v1/ledger/players/a/statement?currency=IDR&since=2026-12-02&tz=Asia/Jakarta",
                   headers=tenant.read_headers).get_json()
    assert doc["opening_balance"] == str(3 * A_NET)  # the voided round still counts before the void
    assert [(x["round"], x["kind"], x["amount"]) for x in doc["lines"]] == [
        (placed[3], "settlement", str(A_RESULT)), (placed[3], "fee", str(-A_FEE)),
        (placed[0], "reversal", str(-A_RESULT)), (placed[0], "reversal", str(A_FEE))]
    assert doc["closing_balance"] == str(3 * A_NET)


def test_a_statement_as_csv_opens_and_closes_with_its_balances(http, tenant, placed):
    r = http.get("/v1/ledger/players/a/statement?currency=IDR&since=2026-12-01&until=2026-12-02&tz=Asia/Jakarta",
                 headers={**tenant.read_headers, "Accept": "text/csv"})
    assert r.status_code == 200 and r.content_type.startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True))))
    assert rows == [
        ["created_at", "round", "sequence", "kind", "amount", "balance", "currency"],
        ["2026-11-30T17:00:00.000Z", "", "", "opening_balance", "", str(2 * A_NET), "IDR"],
        ["2026-11-30T17:00:00.000Z", placed[2], rows[2][2], "settlement", str(A_RESULT), str(2 * A_NET + A_RESULT), "IDR"],
        ["2026-11-30T17:00:00.000Z", placed[2], rows[2][2], "fee", str(-A_FEE), str(3 * A_NET), "IDR"],
        ["2026-12-01T17:00:00.000Z", "", "", "closing_balance", "", str(3 * A_NET), "IDR"],
    ]


def test_a_statement_of_an_unknown_player_is_zero_and_empty(http, tenant, placed):
    doc = http.get("/v1/ledger/players/zed/statement?currency=IDR", headers=tenant.read_headers).get_json()
    assert (doc["opening_balance"], doc["closing_balance"], doc["lines"]) == ("0", "0", [])


def _statement_csv(http, tenant, url):
    r = http.get(url, headers={**tenant.read_headers, "Accept": "text/csv"})
    assert r.status_code == 200 and r.content_type.startswith("text/csv"), r.get_data(as_text=True)
    return list(csv.reader(io.StringIO(r.get_data(as_text=True)))), r.headers.get("Link")


@pytest.mark.parametrize("cap, sizes", [(3, [3, 3, 2]), (4, [4, 4]), (8, [8]), (100, [8])])
def test_a_statement_csv_stops_at_its_cap_and_carries_the_balance_forward(http, tenant, placed, monkeypatch, cap, sizes):
    from urllib.parse import parse_qs, urlsplit

    from service.services.ledger import reports as ledger

    url = "/v1/ledger/players/a/statement?currency=IDR"
    whole, link = _statement_csv(http, tenant, url)
    assert link is None and len(whole) == 1 + 1 + 8 + 1  # header, opening, 4 rounds x 2 lines, closing
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", cap)
    answers, lines, balance, stamp = [], [], "0", ""
    while url:
        rows, link = _statement_csv(http, tenant, url)
        header, opening, *body, closing = rows
        assert header == whole[0]
        # each answer opens with the balance the one before closed with
        # dated at the last line before it (the period's start has none: no `since`)
        assert opening == (["", "", "", "opening_balance", "", "0", "IDR"] if not answers
                           else [stamp, "", "", "brought_forward", "", balance, "IDR"])
        assert closing == [body[-1][0] if link else "", "", "",
                           "carried_forward" if link else "closing_balance", "", body[-1][5], "IDR"]
        balance, stamp = closing[5], body[-1][0]
        answers.append(len(body))
        lines += body
        url = None
        if link:
            assert link.endswith('; rel="next"')
            url = _next(link)
            assert parse_qs(urlsplit(url).query)["currency"] == ["IDR"] and urlsplit(url).path.endswith("/statement")
    assert answers == sizes
    assert lines == whole[2:-1]  # every line once, in order, with the same running balance
    assert balance == whole[-1][5] == str(4 * A_NET)


def test_a_statement_csv_from_a_forged_cursor_is_422(http, tenant, placed):
    r = http.get("/v1/ledger/players/a/statement?currency=IDR&cursor=garbage",
                 headers={**tenant.read_headers, "Accept": "text/csv"})
    problem(r, 422, "validation")


def _entries(http, tenant, query):
    r = http.get(f"/v1/ledger/entries?currency=IDR&limit=500&{query}", headers=tenant.read_headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_a_page_of_lines_takes_its_period_zone_player_and_size(http, tenant, placed):
    """The lines' page reads the same period as the summaries: each bound, in its zone."""
    everything = _entries(http, tenant, "")["items"]
    per_round = len(everything) // len(placed)
    assert per_round * len(placed) == len(everything) and {line["round"] for line in everything} == set(placed)
    # A UTC day: the first three rounds; from a date on: the last one; up to a date: the first three.
    day = _entries(http, tenant, "since=2026-11-30&until=2026-12-01")["items"]
    assert {line["round"] for line in day} == set(placed[:3])
    assert {line["round"] for line in _entries(http, tenant, "since=2026-12-01")["items"]} == {placed[3]}
    assert {line["round"] for line in _entries(http, tenant, "until=2026-12-01")["items"]} == set(placed[:3])
    # The same dates in Asia/Jakarta (UTC+7): 17:00 UTC on 30 November is 1 December there.
    wib = _entries(http, tenant, "since=2026-12-01&until=2026-12-02&tz=Asia/Jakarta")["items"]
    assert {line["round"] for line in wib} == {placed[2]} and len(wib) == per_round
    # One player's lines, and a page of two with a cursor to the rest (newest first).
    mine = _entries(http, tenant, "player=a")["items"]
    assert {line["account"] for line in mine} == {"player:a"} and {line["round"] for line in mine} == set(placed)
    assert len(mine) == sum(line["account"] == "player:a" for line in everything)
    page = http.get("/v1/ledger/entries?currency=IDR&limit=2", headers=tenant.read_headers).get_json()
    assert page["items"] == everything[:2] and page["next_cursor"] is not None
    whole = http.get(f"/v1/ledger/entries?currency=IDR&limit={len(everything)}", headers=tenant.read_headers)
    assert whole.get_json()["items"] == everything and whole.get_json()["next_cursor"] is None  # nothing more


def test_a_cursor_keeps_its_first_pages_as_of_even_for_a_round_dated_earlier(http, tenant, placed, clock):
    """A round stored after the first page, dated before every line (a client's clock may
    be behind), is past the first page's as_of: the later pages do not show it."""
    h = tenant.read_headers
    first = http.get("/v1/ledger/entries?currency=IDR&limit=4", headers=h).get_json()
    clock.set(datetime(2026, 11, 29, 9, 0, tzinfo=UTC))
    late = http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).get_json()["id"]
    rest, cursor = [], first["next_cursor"]
    while cursor:
        page = http.get(f"/v1/ledger/entries?currency=IDR&limit=4&cursor={cursor}", headers=h).get_json()
        assert page["as_of"] == first["as_of"]
        rest += page["items"]
        cursor = page["next_cursor"]
    assert {line["round"] for line in first["items"] + rest} == set(placed)
    assert late in {line["round"] for line in _entries(http, tenant, "")["items"]}  # a new first page has it


def test_a_page_of_lines_reads_one_line_past_its_size_and_its_cursors_give_each_line_once(
    http, tenant, placed, monkeypatch
):
    """A page reads `limit + 1` lines (the one more says whether a cursor is due), never the
    rest of the history: its cost is its size's. Following the cursors gives every line once."""
    everything = _entries(http, tenant, "")["items"]
    reads = _spied_reads(monkeypatch, "entries")
    seen, cursor = [], None
    while True:
        url = "/v1/ledger/entries?currency=IDR&limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = http.get(url, headers=tenant.read_headers).get_json()
        seen += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert len(page["items"]) == 3
    assert seen == everything  # newest first, each line once
    pages = -(-len(everything) // 3)
    assert [n for _, n in reads] == [4] * (pages - 1) + [len(everything) - 3 * (pages - 1)]
    # One round's lines: its own, all of them.
    mine = _entries(http, tenant, f"round={placed[1]}")["items"]
    assert mine == [line for line in everything if line["round"] == placed[1]] and len(mine) == len(everything) // 4


STANDBY_ROUTES = [
    ("/v1/ledger/players/a?currency=IDR", "application/json"),
    ("/v1/ledger/players/a?currency=IDR&since=2026-12-01", "application/json"),
    ("/v1/ledger/summary?currency=IDR", "application/json"),
    ("/v1/ledger/summary?currency=IDR&since=2026-12-01", "application/json"),
    ("/v1/ledger/entries?currency=IDR", "application/json"),
    ("/v1/ledger/entries?currency=IDR", "text/csv"),
    ("/v1/ledger/players/a/statement?currency=IDR", "application/json"),
    ("/v1/ledger/players/a/statement?currency=IDR&since=2026-12-01", "application/json"),
    ("/v1/ledger/players/a/statement?currency=IDR", "text/csv"),
]


@pytest.mark.parametrize(("path", "accept"), STANDBY_ROUTES)
def test_every_report_waits_for_min_sequence_on_the_standby_then_asks_the_primary(
    standing_in, http, tenant, placed, monkeypatch, path, accept
):
    """A standby at the head serves; asked for a sequence past it (a reader that stored a
    round the standby has not replayed), the report goes to the primary after the wait."""
    from service.adapters import replicas

    monkeypatch.setattr(replicas, "MIN_SEQUENCE_WAIT_S", 0.2)

    def reach(query: str) -> tuple[str, str]:
        r = http.get(path + query, headers={**tenant.read_headers, "Accept": accept})
        assert r.status_code == 200, r.get_data(as_text=True)
        if accept == "text/csv":
            r.get_data()  # the whole answer
            sequence, _, source = r.headers["Capsa-As-Of"].split("; ")
            return sequence, source
        as_of = r.get_json()["as_of"]
        return f"sequence={as_of['sequence']}", f"source={as_of['source']}"

    head = len(placed)
    assert reach("") == (f"sequence={head}", "source=replica")
    assert reach(f"&min_sequence={head}") == (f"sequence={head}", "source=replica")
    assert reach(f"&min_sequence={head + 1}") == (f"sequence={head}", "source=primary")


@pytest.mark.parametrize(("path", "accept"), STANDBY_ROUTES)
def test_a_min_sequence_past_the_primarys_head_goes_to_the_primary_without_a_wait(
    standing_in, http, tenant, placed, monkeypatch, path, accept
):
    """No standby reaches a sequence the client has not stored: asked for one (any number
    up to 2^62), the standby is not waited for (a second of a worker's time, each request)."""
    from service.adapters import replicas

    naps: list[float] = []
    monkeypatch.setattr(replicas.time, "sleep", naps.append)
    for need in (len(placed) + 1, 2**62):
        r = http.get(f"{path}&min_sequence={need}", headers={**tenant.read_headers, "Accept": accept})
        assert r.status_code == 200, r.get_data(as_text=True)
        r.get_data()
        source = r.headers["Capsa-As-Of"].split("; ")[-1] if accept == "text/csv" else f"source={r.get_json()['as_of']['source']}"
        assert source == "source=primary"
    assert naps == []


def test_a_statement_csvs_next_answers_keep_the_first_answers_as_of_and_balances(
    http, tenant, placed, clock, monkeypatch
):
    """Rounds stored after the first answer, one dated before the period, one inside it
    before every line (a client's clock may be behind) and one after them, are past its
    as_of: the answers its Link leads to name the same as_of, neither show those rounds nor
    count them in a balance (the opening's or the lines' before the cursor), and end with the
    closing balance the first snapshot had. Pages of 2 in answers of 3."""
    from service.services.ledger import reports as ledger

    url = "/v1/ledger/players/a/statement?currency=IDR&since=2026-11-30T12:00:00Z"
    whole, link = _statement_csv(http, tenant, url)
    assert link is None and len(whole) == 1 + 1 + 6 + 1  # placed[1:]: 3 rounds x 2 lines
    assert (whole[1][5], whole[-1][5]) == (str(A_NET), str(4 * A_NET))
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", 3)
    monkeypatch.setattr(ledger, "CSV_PAGE", 2)
    h = {**tenant.read_headers, "Accept": "text/csv"}
    first = http.get(url, headers=h)
    answers = [(first.headers["Capsa-As-Of"], list(csv.reader(io.StringIO(first.get_data(as_text=True)))))]
    for when in (datetime(2026, 11, 29, tzinfo=UTC), datetime(2026, 11, 30, 12, 30, tzinfo=UTC),
                 datetime(2026, 12, 3, tzinfo=UTC)):
        clock.set(when)
        assert http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).status_code == 201
    link = first.headers.get("Link")
    while link:
        r = http.get(_next(link), headers=h)
        assert r.status_code == 200, r.get_data(as_text=True)
        answers.append((r.headers["Capsa-As-Of"], list(csv.reader(io.StringIO(r.get_data(as_text=True))))))
        link = r.headers.get("Link")
    assert {as_of for as_of, _ in answers} == {first.headers["Capsa-As-Of"]}
    assert first.headers["Capsa-As-Of"].startswith(f"sequence={len(placed)}; ")
    bodies = [rows[2:-1] for _, rows in answers]
    assert [len(b) for b in bodies] == [3, 3]
    assert [line for b in bodies for line in b] == whole[2:-1]
    (_, one), (_, two) = answers
    assert one[1] == whole[1] and one[-1] == [whole[4][0], "", "", "carried_forward", "", whole[4][5], "IDR"]
    assert two[1] == [whole[4][0], "", "", "brought_forward", "", whole[4][5], "IDR"]
    assert two[-1] == whole[-1] == ["", "", "", "closing_balance", "", str(4 * A_NET), "IDR"]


def test_a_statement_csv_looks_at_two_lines_for_its_cut_and_reads_pages_of_csv_page(
    http, tenant, placed, monkeypatch
):
    """Each answer's cost is bounded whatever the history: one look at two lines CSV_MAX_LINES
    on (is there a line past the cap?), then its lines in pages of CSV_PAGE, each after the
    last line of the one before, none past its cut. a's 8 lines in answers of 5, pages of 3:
    (look, pages...) per answer."""
    from service.services.ledger import reports as ledger

    whole, _ = _statement_csv(http, tenant, "/v1/ledger/players/a/statement?currency=IDR")
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", 5)
    monkeypatch.setattr(ledger, "CSV_PAGE", 3)
    reads = _spied_reads(monkeypatch, "statement_lines")
    url, per_answer, lines = "/v1/ledger/players/a/statement?currency=IDR", [], []
    while url:
        reads.clear()
        rows, link = _statement_csv(http, tenant, url)
        per_answer.append((len(rows) - 3, list(reads)))
        lines += rows[2:-1]
        url = _next(link)
    assert per_answer == [
        (5, [("look", 2), ("page", 3), ("page", 3)]),  # lines 1-3, then 4-6: 6 is past the cut
        (3, [("look", 0), ("page", 3), ("page", 0)]),  # no line past the cap: 6-8, then none
    ]
    assert lines == whole[2:-1]  # each line once, in order


def test_a_statement_csv_cursor_followed_with_an_earlier_until_closes_at_that_periods_balance(
    http, tenant, placed, monkeypatch
):
    """A Link's cursor used with a shorter period (`until` moved before the cursor's line):
    the balance brought forward counts the period's lines only, so the answer, with no line
    left, closes at the period's closing balance, as the JSON statement of it says."""
    from urllib.parse import quote

    from service.services.ledger import reports as ledger

    monkeypatch.setattr(ledger, "CSV_MAX_LINES", 3)
    url = "/v1/ledger/players/a/statement?currency=IDR"
    rows, link = _statement_csv(http, tenant, url)
    assert [r[4] for r in rows[2:-1]] == [str(A_RESULT), str(-A_FEE), str(A_RESULT)]  # the cut: placed[1]'s first
    cursor = link.split("cursor=")[1].split(">")[0]
    until = quote("2026-11-30T12:00:00Z")  # after placed[0], before placed[1]
    shorter = http.get(f"{url}&until={until}", headers=tenant.read_headers).get_json()
    assert shorter["closing_balance"] == str(A_NET)
    rows, link = _statement_csv(http, tenant, f"{url}&until={until}&cursor={cursor}")
    assert link is None
    assert [r[3:] for r in rows[1:]] == [
        ["brought_forward", "", str(A_NET), "IDR"], ["closing_balance", "", str(A_NET), "IDR"]
    ]
    assert rows[-1][0] == "2026-11-30T12:00:00.000Z"


@pytest.mark.parametrize(("cap", "sizes"), [(5, [5, 1]), (6, [6]), (7, [6])])
def test_a_statement_csv_with_until_stops_only_when_the_period_has_a_line_past_its_cap(
    http, tenant, placed, monkeypatch, cap, sizes
):
    """Lines after `until` are not the period's: with 6 lines in the period and 2 after it,
    an answer of 6 or more lines is the only one, closing at the closing balance."""
    from service.services.ledger import reports as ledger

    monkeypatch.setattr(ledger, "CSV_MAX_LINES", cap)
    url, answers, closing = "/v1/ledger/players/a/statement?currency=IDR&until=2026-12-01", [], None
    while url:
        rows, link = _statement_csv(http, tenant, url)
        answers.append(len(rows) - 3)
        closing = rows[-1]
        url = _next(link)
    assert answers == sizes
    assert closing == ["2026-12-01T00:00:00.000Z", "", "", "closing_balance", "", str(3 * A_NET), "IDR"]


def test_a_statements_later_json_pages_keep_the_first_pages_balances_over_a_period(http, tenant, placed, clock):
    """Over a period, a later page's balances are of the first page's snapshot: rounds stored
    after it, dated before the period, inside it before every line and after it, change
    neither the opening and closing balances nor any line's balance."""
    url = "/v1/ledger/players/a/statement?currency=IDR&since=2026-11-30T12:00:00Z&until=2026-12-02&limit=4"
    whole = http.get(url.replace("limit=4", "limit=500"), headers=tenant.read_headers).get_json()
    first = http.get(url, headers=tenant.read_headers).get_json()
    for when in (datetime(2026, 11, 29, tzinfo=UTC), datetime(2026, 11, 30, 12, 30, tzinfo=UTC),
                 datetime(2026, 12, 3, tzinfo=UTC)):
        clock.set(when)
        assert http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).status_code == 201
    second = http.get(f"{url}&cursor={first['next_cursor']}", headers=tenant.read_headers).get_json()
    assert (whole["opening_balance"], whole["closing_balance"]) == (str(A_NET), str(4 * A_NET))
    for page in (first, second):
        assert (page["opening_balance"], page["closing_balance"], page["as_of"]) == (
            whole["opening_balance"], whole["closing_balance"], whole["as_of"])
    assert first["lines"] + second["lines"] == whole["lines"] and second["next_cursor"] is None


def test_a_statement_over_a_period_names_its_player_account_currency_zone_and_bounds(http, tenant, placed):
    """The whole JSON statement of WIB 1 December: placed[3], after `until`, is neither a
    line nor in the closing balance; a page of exactly the period's lines has no cursor."""
    url = "/v1/ledger/players/a/statement?currency=IDR&since=2026-12-01&until=2026-12-02&tz=Asia/Jakarta"
    doc = http.get(url, headers=tenant.read_headers).get_json()
    as_of = doc.pop("as_of")
    assert (as_of["sequence"], as_of["source"]) == (len(placed), "primary")
    stamp = "2026-11-30T17:00:00.000Z"
    assert doc == {
        "player": "a", "account": "player:a", "currency": "IDR", "tz": "Asia/Jakarta",
        "since": stamp, "until": "2026-12-01T17:00:00.000Z",
        "opening_balance": str(2 * A_NET), "closing_balance": str(3 * A_NET),
        "lines": [
            {"created_at": stamp, "round": placed[2], "sequence": 3, "kind": "settlement",
             "amount": str(A_RESULT), "balance": str(2 * A_NET + A_RESULT)},
            {"created_at": stamp, "round": placed[2], "sequence": 3, "kind": "fee",
             "amount": str(-A_FEE), "balance": str(3 * A_NET)},
        ],
        "next_cursor": None,
    }
    exact = http.get(url + "&limit=2", headers=tenant.read_headers).get_json()
    assert exact["lines"] == doc["lines"] and exact["next_cursor"] is None  # nothing after the second
    short = http.get(url + "&limit=1", headers=tenant.read_headers).get_json()
    assert short["lines"] == doc["lines"][:1] and short["next_cursor"] is not None


def test_an_all_time_statements_later_pages_keep_the_first_pages_as_of_and_read_one_line_past_their_size(
    http, tenant, placed, clock, monkeypatch
):
    """Over all history (the rollups' branch) a cursor keeps its first page's snapshot: rounds
    stored after it, one dated after every line and one before them, neither show on a later
    page nor change its balances. Each page reads `limit + 1` lines, no more."""
    url = "/v1/ledger/players/a/statement?currency=IDR&limit=3"
    whole = http.get("/v1/ledger/players/a/statement?currency=IDR&limit=500", headers=tenant.read_headers).get_json()
    assert len(whole["lines"]) == 8 and whole["closing_balance"] == str(4 * A_NET)
    reads = _spied_reads(monkeypatch, "statement_lines")
    first = http.get(url, headers=tenant.read_headers).get_json()
    for when in (datetime(2026, 12, 3, tzinfo=UTC), datetime(2026, 11, 29, tzinfo=UTC)):
        clock.set(when)
        assert http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).status_code == 201
    pages, cursor = [first], first["next_cursor"]
    while cursor:
        pages.append(http.get(f"{url}&cursor={cursor}", headers=tenant.read_headers).get_json())
        cursor = pages[-1]["next_cursor"]
    assert [n for _, n in reads] == [4, 4, 2]  # 3 lines and one more, twice, then the last 2
    for page in pages:
        assert (page["opening_balance"], page["closing_balance"], page["as_of"]) == (
            "0", whole["closing_balance"], whole["as_of"])
    assert [line for page in pages for line in page["lines"]] == whole["lines"]


def _entries_csv(http, tenant, url):
    r = http.get(url, headers={**tenant.read_headers, "Accept": "text/csv"})
    assert r.status_code == 200 and r.content_type.startswith("text/csv"), r.get_data(as_text=True)
    rows = [{**row, "sequence": int(row["sequence"])} for row in csv.DictReader(io.StringIO(r.get_data(as_text=True)))]
    return rows, r.headers.get("Link"), r.headers["Capsa-As-Of"]


@pytest.mark.parametrize("query", ["player=a", "round=1", "since=2026-12-01", "until=2026-12-01",
                                   "since=2026-12-01&until=2026-12-02&tz=Asia/Jakarta"])
def test_a_csv_of_lines_takes_the_pages_filters_and_its_cap_counts_only_the_matching_lines(
    http, tenant, placed, monkeypatch, query
):
    """The CSV carries the lines the JSON pages do for the same player, round or period (in
    its zone); an answer stops at its cap only when a matching line lies past it (the look
    past the cap takes the same filters), and its Link leads to the rest."""
    from service.services.ledger import reports as ledger

    query = query.replace("round=1", f"round={placed[1]}")
    want = _entries(http, tenant, query)["items"]
    assert 1 < len(want) < len(_entries(http, tenant, "")["items"])
    url = f"/v1/ledger/entries?currency=IDR&{query}"
    rows, link, _ = _entries_csv(http, tenant, url)
    assert rows == want and link is None
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", len(want))
    rows, link, _ = _entries_csv(http, tenant, url)
    assert rows == want and link is None  # every matching line fits: no line past the cap
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", len(want) - 1)
    rows, link, _ = _entries_csv(http, tenant, url)
    assert rows == want[:-1] and link is not None
    rest, link, _ = _entries_csv(http, tenant, _next(link))
    assert rest == want[-1:] and link is None


def test_a_csv_of_lines_keeps_its_first_answers_as_of_in_every_read_of_the_later_answers(
    http, tenant, placed, clock, monkeypatch
):
    """Rounds stored after the first answer, dated before every line (a client's clock may be
    behind), between the first two rounds and after them all, are past its as_of: the
    answers its Link leads to name the same as_of, show none of their lines and still stop
    at exactly the cap (the look past it reads the same snapshot). Pages of 2, answers of 5."""
    from service.services.ledger import reports as ledger

    whole = _entries(http, tenant, "")["items"]
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", 5)
    monkeypatch.setattr(ledger, "CSV_PAGE", 2)
    url = "/v1/ledger/entries?currency=IDR"
    rows, link, first_as_of = _entries_csv(http, tenant, url)
    answers = [rows]
    for when in (datetime(2026, 11, 29, tzinfo=UTC), datetime(2026, 11, 30, 12, 30, tzinfo=UTC),
                 datetime(2026, 12, 3, tzinfo=UTC)):
        clock.set(when)
        assert http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).status_code == 201
    while link:
        rows, link, as_of = _entries_csv(http, tenant, _next(link))
        assert as_of == first_as_of
        answers.append(rows)
    assert first_as_of.startswith(f"sequence={len(placed)}; ")
    assert [len(a) for a in answers] == [5] * (len(whole) // 5) + ([len(whole) % 5] if len(whole) % 5 else [])
    assert [line for a in answers for line in a] == whole


def test_a_csv_of_lines_looks_at_two_lines_for_its_cut_and_reads_pages_of_csv_page(http, tenant, placed, monkeypatch):
    """Each answer's reads are bounded whatever the history: one look at two lines
    CSV_MAX_LINES on, then pages of CSV_PAGE, each after the last line of the one before."""
    from service.services.ledger import reports as ledger

    whole = _entries(http, tenant, "")["items"]
    assert len(whole) == 32  # 8 lines a round
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", 10)
    monkeypatch.setattr(ledger, "CSV_PAGE", 4)
    reads = _spied_reads(monkeypatch, "entries")
    url, per_answer, lines = "/v1/ledger/entries?currency=IDR", [], []
    while url:
        reads.clear()
        rows, link, _ = _entries_csv(http, tenant, url)
        per_answer.append((len(rows), list(reads)))
        lines += rows
        url = _next(link)
    assert per_answer == [
        (10, [("look", 2), ("page", 4), ("page", 4), ("page", 4)]),  # lines 1-12: 11 is past the cut
        (10, [("look", 2), ("page", 4), ("page", 4), ("page", 4)]),
        (10, [("look", 2), ("page", 4), ("page", 4), ("page", 4)]),
        (2, [("look", 0), ("page", 2)]),  # no line past the cap: 31-32, a page short of CSV_PAGE
    ]
    assert lines == whole  # each line once, in order


def test_a_primary_that_cannot_be_asked_leaves_the_standby_serving(standing_in, tenant, placed, monkeypatch):
    """Asked for a sequence past the standby's head, the primary's head is read; when the
    primary is down, that failure is not the standby's: it is waited for as before, and
    keeps serving the reports that need no more than it has."""
    from service.adapters import replicas
    from service.adapters.errors import DatabaseUnavailable

    monkeypatch.setattr(replicas, "MIN_SEQUENCE_WAIT_S", 0.1)

    def down() -> Any:
        raise DatabaseUnavailable("the primary does not answer")

    monkeypatch.setattr(standing_in, "snapshot", down)
    head = len(placed)

    def work(uow: Any, as_of: Any) -> Any:
        return as_of

    with pytest.raises(DatabaseUnavailable):  # the standby stays behind; then the primary is asked
        replicas.report(standing_in, tenant.id, work, min_sequence=head + 1)
    assert standing_in.replica.state().serves
    served = replicas.report(standing_in, tenant.id, work)
    assert (served.sequence, served.source) == (head, replicas.ReportSource.REPLICA)


def test_a_summary_by_day_in_a_zone_is_served_by_the_standby_while_the_primary_is_down(
    standing_in, tenant, placed, monkeypatch
):
    """The heavy-read slot for gathering a zone's days is taken inside the report, wherever it
    runs: asking the primary first whether the zone's days are kept made this summary 503
    while the primary was down, though the standby could answer it (as it did by player)."""
    from service.adapters.errors import DatabaseUnavailable
    from service.services.ledger import reports, rollups

    rollups.sweep(standing_in)  # folded: all time reads the rollups, and gathers the zone's days

    def down(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseUnavailable("the primary does not answer")

    monkeypatch.setattr(standing_in, "snapshot", down)
    monkeypatch.setattr(standing_in, "unit_of_work", down)
    ran: list[str] = []

    def guard(work: Any) -> Any:
        ran.append("slot")
        return work()

    for zone in ("Asia/Jakarta", "Asia/Jakarta"):  # not kept (the primary is down): gathered each time
        found = reports.summary(standing_in, tenant.id, currency="IDR", tz=zone, group_by=reports.Grouping.DAY,
                               guard=guard)
        assert found["as_of"]["source"] == "replica" and found["rows"]
    assert ran == ["slot", "slot", "slot", "slot"]  # each read: the gather, then keeping the zone (which fails)


def test_over_http_a_summary_by_day_in_a_zone_is_served_while_the_primary_is_down(
    standing_in, http, tenant, placed, monkeypatch
):
    from service.adapters.errors import DatabaseUnavailable
    from service.services.ledger import rollups

    rollups.sweep(standing_in)
    assert http.get("/v1/ledger/summary?currency=IDR", headers=tenant.read_headers).status_code == 200  # the key, cached

    def down(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseUnavailable("the primary does not answer")

    monkeypatch.setattr(standing_in, "snapshot", down)
    monkeypatch.setattr(standing_in, "unit_of_work", down)
    for query in ("group_by=player", "group_by=day&tz=Asia/Tokyo"):
        r = http.get(f"/v1/ledger/summary?currency=IDR&{query}", headers=tenant.read_headers)
        assert r.status_code == 200 and r.get_json()["as_of"]["source"] == "replica", (query, r.get_json())


@pytest.mark.parametrize("alias", ["Etc/UTC", "Zulu", "UCT", "Etc/Universal", "GMT", "Etc/Greenwich"])
def test_utcs_other_names_cut_utc_days_and_take_none_of_the_kept_zones(app, http, tenant, placed, alias):
    """UTC's aliases in the time zone database were summed by quarter hour and kept as zones
    of their own, each taking one of a currency's 8 kept zones for days that are UTC's."""
    from service.services.ledger import rollups

    db = app.extensions["capsa"].db
    # This client's fold (a sweep pass folds the 100 clients furthest behind of the session's
    # database, not always this one, and an unfolded client's days are summed from its lines).
    assert rollups.fold(db, tenant.id) > 0
    assert _days(http, tenant, f"tz={alias}")["rows"] == _days(http, tenant, "")["rows"]
    with db.unit_of_work() as uow:
        assert uow.rollups.zones(tenant.id) == {}
