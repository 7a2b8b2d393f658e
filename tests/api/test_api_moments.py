"""`since` / `until` on rounds and ledgers: every documented form, and a message listing them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from httpkit import problem, two_player_round

# One round at 2026-11-30 23:30 UTC and one at 2026-12-01 00:30 UTC (07:30 in Jakarta).
EARLY, LATE = datetime(2026, 11, 30, 23, 30, tzinfo=UTC), datetime(2026, 12, 1, 0, 30, tzinfo=UTC)


@pytest.fixture
def two_rounds(http: Any, tenant: Any, clock: Any) -> dict[str, str]:
    ids = {}
    for name, at in (("early", EARLY), ("late", LATE)):
        clock.set(at)
        made = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
        assert made.status_code == 201
        ids[name] = made.get_json()["id"]
    return ids


@pytest.mark.parametrize(
    ("since", "expected"),
    [
        ("2026-12-01", ["late"]),  # a date: 00:00 UTC
        ("2026-12-01T00:00:00Z", ["late"]),
        ("2026-12-01T00:00Z", ["late"]),  # seconds may be left out
        ("2026-12-01 00:00:00Z", ["late"]),  # a space for T
        ("2026-12-01t00:00:00z", ["late"]),  # lower case, as RFC 3339 allows
        ("2026-12-01T07:00:00+07:00", ["late"]),  # the same instant in Jakarta
        ("2026-12-01T07:00:00+0700", ["late"]),
        ("2026-11-30T23:30:00.000Z", ["late", "early"]),  # inclusive, to the millisecond
        ("2026-11-30T23:30:00.001Z", ["late"]),
        ("2026-11-30T18:00:00-05:00", ["late", "early"]),
    ],
)
def test_every_documented_form_of_since_selects_the_same_instant(http, tenant, two_rounds, since, expected):
    answer = http.get("/v1/rounds", query_string={"since": since}, headers=tenant.headers)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert [r["id"] for r in answer.get_json()["items"]] == [two_rounds[e] for e in expected]


def test_until_is_exclusive_and_periods_of_the_player_ledger_use_the_same_forms(http, tenant, two_rounds):
    url = "/v1/ledger/players/a"
    day_one = http.get(url, query_string={"currency": "IDR", "until": "2026-12-01"}, headers=tenant.headers)
    day_two = http.get(
        url, query_string={"currency": "IDR", "since": "2026-12-01T07:00:00+07:00", "until": "2026-12-02"},
        headers=tenant.headers,
    )
    assert (day_one.get_json()["rounds"], day_one.get_json()["result"]) == (1, "11000")
    assert (day_two.get_json()["rounds"], day_two.get_json()["result"]) == (1, "11000")


@pytest.mark.parametrize(
    "value",
    ["2026-12-01T00:00:00", "2026-12-01T07:00:00 07:00", "2026-13-01", "yesterday", "1764547200", ""],
)
def test_a_time_that_is_not_accepted_is_422_listing_the_accepted_forms(http, tenant, value):
    body = problem(
        http.get("/v1/ledger/summary", query_string={"currency": "IDR", "since": value}, headers=tenant.headers),
        422,
        "validation",
    )
    [error] = body["errors"]
    assert error["field"] == "query.since"
    assert error["message"] == (
        f"{value!r} is not a time: use an RFC 3339 time with its offset, such as "
        '"2026-12-01T00:00:00Z", "2026-12-01T07:00:00+07:00" (write + as %2B in a URL) or '
        '"2026-12-01T00:00:00.250Z", or a date such as "2026-12-01" (its 00:00 in `tz`, default UTC)'
    )
