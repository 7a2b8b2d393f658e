"""The JSON statement and the CSV statement agree on every balance, on both engines.

They are computed two ways: the JSON answer's closing balance is the opening balance plus
the period's sum (from the rollups over all history), each line's balance the opening plus
the lines before it; the CSV's closing row is the running balance of the rows it wrote,
answer after answer. A history of rounds at several stakes and times, two of them voided,
is read for random players, periods (dates or times, open at either end), zones, JSON page
sizes and CSV answer and page sizes: every line's balance, the opening and the closing
balance must be the same in both, and the closing must be the opening plus every amount.
The CSV answers stop only at their cap: each but the last carries exactly that many lines.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from httpkit import four_player_round
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

START = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
# (hours after START, stake): 14 rounds over four days, across the days of three zones
PLACED = [(0, "1000"), (5, "500"), (9, "2000"), (15.5, "1000"), (16.99, "750"), (17, "1000"), (23.5, "3000"),
          (30, "1000"), (38, "250"), (41, "1000"), (47.25, "1500"), (55, "1000"), (70, "2000"), (80, "1000")]
VOIDED = {2: 60, 7: 75}  # round index -> hours after START of its void
ZONES = ["UTC", "Asia/Jakarta", "America/New_York"]


def _history(http: Any, tenant: Any, clock: Any) -> None:
    ids = []
    for hours, stake in PLACED:
        clock.set(START + timedelta(hours=hours))
        r = http.post("/v1/rounds", json=four_player_round(stake=stake), headers=tenant.headers)
        assert r.status_code == 201, r.get_json()
        ids.append(r.get_json()["id"])
    for index, hours in VOIDED.items():
        clock.set(START + timedelta(hours=hours))
        r = http.post(f"/v1/rounds/{ids[index]}/void", json={"reason": "misdeal"}, headers=tenant.headers)
        assert r.status_code == 200, r.get_json()


def _json_statement(http: Any, tenant: Any, base: str, limit: int) -> tuple[str, str, list[tuple[Any, ...]], Any]:
    url, lines, heads, until = f"{base}&limit={limit}", [], set(), None
    while url:
        r = http.get(url, headers=tenant.read_headers)
        assert r.status_code == 200, r.get_json()
        doc = r.get_json()
        heads.add((doc["opening_balance"], doc["closing_balance"]))
        until = doc["until"]
        assert len(doc["lines"]) <= limit
        lines += [(x["created_at"], x["round"], x["sequence"], x["kind"], x["amount"], x["balance"]) for x in doc["lines"]]
        url = f"{base}&limit={limit}&cursor={doc['next_cursor']}" if doc["next_cursor"] else None
    assert len(heads) == 1, heads  # every page names the same opening and closing balance
    (opening, closing), = heads
    return opening, closing, lines, until


def _csv_statement(
    http: Any, tenant: Any, base: str, sizes: list[int] | None = None
) -> tuple[str, str, list[tuple[Any, ...]], str]:
    """The answers' opening, closing, lines and the closing row's date; `sizes` gets the
    number of lines of each answer."""
    url, lines, opening, closing, stamp = base, [], None, None, ""
    while url:
        r = http.get(url, headers={**tenant.read_headers, "Accept": "text/csv"})
        assert r.status_code == 200, r.get_data(as_text=True)
        header, first, *body, last = list(csv.reader(io.StringIO(r.get_data(as_text=True))))
        assert header[:6] == ["created_at", "round", "sequence", "kind", "amount", "balance"]
        if opening is None:
            assert first[3] == "opening_balance"
            opening = first[5]
        else:  # an answer after the first opens with what the one before carried forward
            assert (first[3], first[5]) == ("brought_forward", closing), (first, closing)
        lines += [(x[0], x[1], int(x[2]), x[3], x[4], x[5]) for x in body]
        if sizes is not None:
            sizes.append(len(body))
        closing, stamp = last[5], last[0]
        link = r.headers.get("Link")
        assert (last[3] == "carried_forward") == (link is not None), (last, link)
        url = link.removeprefix("<").split(">;")[0] if link else None
    assert opening is not None and closing is not None
    return opening, closing, lines, stamp


def _moment(value: date | datetime | None) -> str | None:
    if value is None:
        return None
    return value.isoformat() if not isinstance(value, datetime) else value.isoformat().replace("+00:00", "Z")


days = st.dates(min_value=date(2026, 11, 27), max_value=date(2026, 12, 3))
times = st.builds(lambda h: START + timedelta(minutes=h * 15), st.integers(-8, 4 * 96 + 8))
moments = st.one_of(st.none(), days, times)


def test_json_and_csv_statements_agree_on_every_balance(http, tenant, clock, monkeypatch):
    from service.services.ledger import reports as ledger

    _history(http, tenant, clock)
    clock.set(START + timedelta(days=5))

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(player=st.sampled_from("abcd"), since=moments, until=moments, tz=st.sampled_from(ZONES),
           limit=st.integers(1, 12), cap=st.integers(1, 12), page=st.integers(1, 5))
    def agree(player: str, since: Any, until: Any, tz: str, limit: int, cap: int, page: int) -> None:
        query = f"currency=IDR&tz={quote(tz)}"
        for name, value in (("since", since), ("until", until)):
            if value is not None:
                query += f"&{name}={quote(_moment(value) or '')}"
        base = f"/v1/ledger/players/{player}/statement?{query}"
        first = http.get(base, headers=tenant.read_headers)
        if first.status_code == 422:  # until before since (in the zone): both refuse alike
            assert http.get(base, headers={**tenant.read_headers, "Accept": "text/csv"}).status_code == 422
            return
        monkeypatch.setattr(ledger, "CSV_MAX_LINES", cap)
        monkeypatch.setattr(ledger, "CSV_PAGE", page)
        j_open, j_close, j_lines, j_until = _json_statement(http, tenant, base, limit)
        sizes: list[int] = []
        c_open, c_close, c_lines, c_until = _csv_statement(http, tenant, base, sizes)
        # every answer but the last is full, and the last is not empty unless it is the only one
        assert sizes[:-1] == [cap] * (len(sizes) - 1), (sizes, cap)
        assert len(sizes) == max(1, -(-len(c_lines) // cap)), (sizes, cap)
        assert (j_open, j_close) == (c_open, c_close)
        assert j_lines == c_lines
        assert c_until == (j_until or "")  # the closing row is dated at the period's end
        total = Decimal(j_open) + sum((Decimal(x[4]) for x in j_lines), Decimal(0))
        assert Decimal(j_close) == total
        if j_lines:
            assert j_lines[-1][5] == j_close

    agree()


def test_the_agreement_check_sees_a_closing_balance_that_ignores_until(http, tenant, clock, monkeypatch):
    """The check above fails when the JSON closing balance is computed without `until`:
    the bug a hand-made mutant planted (the CSV's running balance stays right)."""
    from service.services.ledger import reports as ledger

    _history(http, tenant, clock)
    clock.set(START + timedelta(days=5))
    head = ledger._statement_head

    def without_until(uow: Any, client_id: str, player_id: str, currency: str, since: Any, until: Any,
                      as_of: Any, start: Any = None) -> tuple[int, int]:
        opening, _ = head(uow, client_id, player_id, currency, since, until, as_of, start)
        _, closing = head(uow, client_id, player_id, currency, since, None, as_of, start)
        return opening, closing

    monkeypatch.setattr(ledger, "_statement_head", without_until)
    base = "/v1/ledger/players/a/statement?currency=IDR&since=2026-11-28&until=2026-11-29"
    j_open, j_close, _, _ = _json_statement(http, tenant, base, 5)
    c_open, c_close, _, _ = _csv_statement(http, tenant, base)
    assert j_open == c_open and j_close != c_close
