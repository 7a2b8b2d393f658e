"""Rounds through HTTP: exact numbers, stored = previewed, fetch, list filters and pages."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from conftest import TAMPERED, make_tenant
from httpkit import four_player_round, problem, two_player_round
from test_api_audit import LINES_OF_ROUND, sql

from service.adapters import rounds as round_rows
from service.domain.rules import list_presets, resolve_rules
from service.domain.susun.rules import SUSUN

PREVIEW_ONLY_ABSENT = {"id", "created_at", "status", "void", "audit"}


def money(doc: dict[str, Any]) -> list[tuple[str, int, str, str, str, str]]:
    return [
        (p["id"], p["points"], p["result"], p["winnings"], p["fee"], p["net"])
        for p in doc["players"]
    ]


def test_a_sweep_with_three_of_a_kind_in_front_scores_eleven_points_and_pays_the_fee(
    http, tenant
):
    response = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
    assert response.status_code == 201
    doc = response.get_json()
    assert response.headers["Location"] == f"/v1/rounds/{doc['id']}"
    assert doc["id"].startswith("rnd_") and len(doc["id"]) == 30
    assert money(doc) == [
        ("a", 11, "11000", "11000", "330", "10670"),
        ("b", -11, "-11000", "0", "0", "-11000"),
    ]
    assert doc["house_fee"] == "330"
    (pair,) = doc["pairs"]
    assert pair["players"] == ["a", "b"]
    assert pair["outcome"] == "tembus" and pair["multiplier"] == 2
    assert pair["rows"] == {"front": 1, "middle": 1, "back": 1}
    assert pair["bonus"] == {"a": 5, "b": 0}
    assert (pair["points"], pair["amount"], pair["stake"]) == (11, "11000", "1000")
    assert doc["players"][0]["rows"]["front"]["category"] == "three_of_a_kind"
    assert doc["status"] == "settled" and doc["void"] is None
    # The tenant's first record: sequence 1 after the genesis hash.
    assert doc["audit"]["sequence"] == 1 and doc["audit"]["previous_hash"] == "0" * 64
    assert len(doc["audit"]["hash"]) == 64
    assert doc["rules"]["preset"] == "capsa-susun-id"
    assert doc["rules"]["params"]["tembus_multiplier"] == 2
    assert doc["engine_version"] == "1.0.0" and doc["game"] == "susun"
    assert doc["created_at"].endswith("Z")


def test_the_four_player_example_settles_every_player_exactly(http, tenant):
    response = http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers)
    assert response.status_code == 201
    doc = response.get_json()
    # a: 13 vs b (1 row + 12 bonus), 18 vs c and d (sweep x2 + 12); 3% of winnings.
    assert money(doc) == [
        ("a", 49, "49000", "49000", "1470", "47530"),
        ("b", -1, "-1000", "12000", "360", "-1360"),
        ("c", -25, "-25000", "0", "0", "-25000"),
        ("d", -23, "-23000", "1000", "30", "-23030"),
    ]
    assert doc["house_fee"] == "1860"
    assert sum(int(p["result"]) for p in doc["players"]) == 0
    assert sum(int(p["net"]) for p in doc["players"]) + int(doc["house_fee"]) == 0


def test_score_returns_what_rounds_stores_minus_id_time_status_void_and_audit(http, tenant):
    body = two_player_round(pair_stakes=[{"players": ["a", "b"], "stake": "2500"}])
    preview = http.post("/v1/score", json=body, headers=tenant.headers)
    stored = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert preview.status_code == 200 and stored.status_code == 201
    stored_doc = stored.get_json()
    assert set(stored_doc) - set(preview.get_json()) == PREVIEW_ONLY_ABSENT
    assert {k: v for k, v in stored_doc.items() if k not in PREVIEW_ONLY_ABSENT} == (
        preview.get_json()
    )
    assert preview.get_json()["pairs"][0]["amount"] == "27500"
    fetched = http.get(f"/v1/rounds/{stored_doc['id']}", headers=tenant.headers)
    assert fetched.status_code == 200
    assert fetched.get_json() == stored_doc


def test_score_stores_nothing(http, tenant):
    body = two_player_round()
    assert http.post("/v1/score", json=body, headers=tenant.headers).status_code == 200
    listed = http.get(f"/v1/rounds?reference={body['reference']}", headers=tenant.headers)
    assert listed.get_json() == {"items": [], "next_cursor": None}


def test_money_in_usd_keeps_two_decimals_and_a_stake_with_zero_cents_is_normalised(http, tenant):
    doc = http.post(
        "/v1/score", json=two_player_round(currency="USD", stake="0.50"), headers=tenant.headers
    ).get_json()
    assert money(doc)[0] == ("a", 11, "5.50", "5.50", "0.17", "5.33")
    doc = http.post(
        "/v1/score", json=two_player_round(stake="1000.00"), headers=tenant.headers
    ).get_json()
    assert doc["stake"] == "1000"


def test_a_used_reference_is_a_conflict_and_writes_nothing(http, tenant):
    body = two_player_round()
    assert http.post("/v1/rounds", json=body, headers=tenant.headers).status_code == 201
    again = problem(http.post("/v1/rounds", json=body, headers=tenant.headers), 409, "conflict")
    assert again["errors"][0]["field"] == "reference"
    listed = http.get(f"/v1/rounds?reference={body['reference']}", headers=tenant.headers)
    assert len(listed.get_json()["items"]) == 1


def test_rounds_without_reference_may_repeat(http, tenant):
    body = two_player_round(reference=None)
    first = http.post("/v1/rounds", json=body, headers=tenant.headers)
    second = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert first.status_code == second.status_code == 201
    ids = [first.get_json()["id"], second.get_json()["id"]]
    assert ids[0] != ids[1] and [r.get_json()["reference"] for r in (first, second)] == [None, None]
    listed = http.get("/v1/rounds", headers=tenant.headers).get_json()["items"]
    assert sorted(r["id"] for r in listed) == sorted(ids)


def test_an_unknown_round_is_not_found(http, tenant):
    problem(http.get("/v1/rounds/rnd_nope", headers=tenant.headers), 404, "not-found")


def _post(http, tenant, **overrides: Any) -> dict[str, Any]:
    response = http.post("/v1/rounds", json=two_player_round(**overrides), headers=tenant.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return dict(response.get_json())


def test_the_list_is_newest_first_and_pages_with_an_opaque_cursor(http, tenant):
    ids = [_post(http, tenant)["id"] for _ in range(5)]
    seen: list[str] = []
    url = "/v1/rounds?limit=2"
    while True:
        page = http.get(url, headers=tenant.headers).get_json()
        assert len(page["items"]) <= 2
        seen += [r["id"] for r in page["items"]]
        if page["next_cursor"] is None:
            break
        url = f"/v1/rounds?limit=2&cursor={page['next_cursor']}"
    assert seen == list(reversed(ids))


@pytest.fixture(params=["race", "lines", "table"])
def walk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How a page of a player's rounds is found: the race of the player's lines and (with a
    table or a reference) those rounds, as served, or one walk alone (each must give the
    same pages)."""
    first_done = round_rows._first_done

    def alone(walks: list[Any]) -> Any:
        chosen = walks[0] if request.param == "lines" else walks[-1]
        for other in walks:
            if other is not chosen:
                other.close()
        return first_done([chosen])

    if request.param != "race":
        monkeypatch.setattr(round_rows, "_first_done", alone)
    return str(request.param)


def test_the_list_filters_by_table_player_and_reference(http, tenant, walk):
    one = _post(http, tenant, table="t-1")
    two = _post(http, tenant, table="t-2")
    four = http.post("/v1/rounds", json=four_player_round(table="t-2"), headers=tenant.headers)
    four_doc = four.get_json()

    def ids(query: str) -> list[str]:
        response = http.get(f"/v1/rounds?{query}", headers=tenant.headers)
        assert response.status_code == 200
        return [r["id"] for r in response.get_json()["items"]]

    assert ids("table=t-1") == [one["id"]]
    assert ids("table=t-2") == [four_doc["id"], two["id"]]
    assert ids("player=c") == [four_doc["id"]]
    assert ids(f"reference={two['reference']}") == [two["id"]]
    assert ids("table=t-2&player=a") == [four_doc["id"], two["id"]]
    assert ids("table=t-2&player=c") == [four_doc["id"]]
    assert ids("table=t-1&player=c") == []
    assert ids(f"reference={two['reference']}&player=a") == [two["id"]]
    assert ids(f"reference={two['reference']}&player=c") == []
    assert ids(f"reference={four_doc['reference']}&table=t-2&player=c") == [four_doc["id"]]
    assert ids("player=zz") == []


def test_a_players_pages_hold_the_rounds_the_player_played_newest_first_in_every_currency(http, tenant, clock, walk):
    """`player=` reads the player's own lines rather than walking the history: followed page
    by page (2 a page), it gives exactly the rounds the player played, voided ones too, in
    the unfiltered list's order, with players in several currencies, rounds sharing a
    millisecond, and with a table or a time window too."""
    rng = random.Random(7)
    names = ["p1", "p2", "p3", "p4", "p5"]
    for _ in range(30):
        ids = rng.sample(names, rng.choice([2, 4]))
        currency, stake = rng.choice([("IDR", "1000"), ("USD", "1.25"), ("KWD", "0.125")])
        body = (four_player_round if len(ids) == 4 else two_player_round)(
            table=rng.choice(["t-1", "t-2"]), currency=currency, stake=stake
        )
        for player, name in zip(body["players"], ids):
            player["id"] = name
        stored = http.post("/v1/rounds", json=body, headers=tenant.headers)
        assert stored.status_code == 201, stored.get_json()
        if rng.random() < 0.2:
            voided = http.post(f"/v1/rounds/{stored.get_json()['id']}/void", json={"reason": "x"},
                               headers=tenant.headers)
            assert voided.status_code == 200
        if rng.random() < 0.5:  # else the next round has the same millisecond
            clock.advance(milliseconds=1)
    listed = http.get("/v1/rounds?limit=500", headers=tenant.headers).get_json()
    assert listed["next_cursor"] is None and len(listed["items"]) == 30
    everything = listed["items"]
    middle = everything[15]["created_at"]

    def pages(query: str) -> list[str]:
        seen: list[str] = []
        url = f"/v1/rounds?limit=2&{query}"
        while True:
            response = http.get(url, headers=tenant.headers)
            assert response.status_code == 200, response.get_data(as_text=True)
            page = response.get_json()
            seen += [r["id"] for r in page["items"]]
            if page["next_cursor"] is None:
                return seen
            url = f"/v1/rounds?limit=2&{query}&cursor={page['next_cursor']}"

    windows = {
        "": lambda r: True,
        "&table=t-1": lambda r: r["table"] == "t-1",
        f"&since={middle}": lambda r: r["created_at"] >= middle,
        f"&until={middle}": lambda r: r["created_at"] < middle,
    }
    for name in [*names, "nobody"]:
        for extra, keep in windows.items():
            expected = [r["id"] for r in everything if name in {p["id"] for p in r["players"]} and keep(r)]
            assert pages(f"player={name}{extra}") == expected, (name, extra)
    assert len({r["currency"] for r in everything}) == 3


def test_a_players_rounds_at_one_millisecond_are_paged_by_id_whatever_the_batch(http, tenant, clock, walk):
    """Six rounds of the player stored in the same millisecond, between others: pages of 2
    (the player's lines are read in batches of 4, each a single moment, read whole; the
    table's rounds by time and id) give them newest id first, then the older ones, as the
    unfiltered list does."""
    for n in range(10):
        body = two_player_round()
        body["players"][0]["id"] = "x" if 2 <= n < 8 else "y"
        assert http.post("/v1/rounds", json=body, headers=tenant.headers).status_code == 201
        if not 2 <= n < 7:
            clock.advance(milliseconds=1)
    listed = http.get("/v1/rounds?limit=500", headers=tenant.headers).get_json()["items"]
    expected = [r["id"] for r in listed if r["players"][0]["id"] == "x"]
    assert len(expected) == 6 and len({r["created_at"] for r in listed if r["players"][0]["id"] == "x"}) == 1
    for query in ("player=x", "player=x&table=table-7"):  # every round is at table-7
        seen: list[str] = []
        url = f"/v1/rounds?limit=2&{query}"
        while url:
            page = http.get(url, headers=tenant.headers).get_json()
            seen += [r["id"] for r in page["items"]]
            url = page["next_cursor"] and f"/v1/rounds?limit=2&{query}&cursor={page['next_cursor']}"
        assert seen == expected, query


def test_a_round_whose_player_line_is_not_its_own_is_left_out_of_the_players_pages(app, http, walk):
    """A settlement line whose time is not its round's (a tampered copy, which the verifier
    reports) does not bring its round into the player's pages, by either walk."""
    tenant = make_tenant(app)
    TAMPERED.add(tenant.id)
    ids = [_post(http, tenant, table="t-1")["id"] for _ in range(3)]
    sql(app, f"UPDATE ledger_lines SET created_at = '2020-01-01 00:00:00' WHERE {LINES_OF_ROUND}"
             " AND player_id = 'a' AND kind = 'settlement'", r=ids[1])
    for query in ("player=a", "player=a&table=t-1"):
        page = http.get(f"/v1/rounds?{query}", headers=tenant.headers).get_json()
        assert [r["id"] for r in page["items"]] == [ids[2], ids[0]], query


@pytest.mark.parametrize("query", ["reference={ref}", "table=t-rare"])
def test_a_players_page_at_a_rare_table_or_reference_reads_a_batch_of_the_players_lines(app, http, tenant, query):
    """The player's oldest round is the only one at the table, and the only one with the
    reference: its page is found by the rounds' walk, while the player's lines were read
    in one batch (alone, their walk read all 60 in five)."""
    from sqlalchemy import event

    stored = [_post(http, tenant, table="t-rare" if n == 0 else "t-busy") for n in range(60)]
    query = query.format(ref=stored[0]["reference"])
    reads: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "ledger_lines" in statement:
            reads.append(statement)

    engine = app.extensions["capsa"].db.engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        page = http.get(f"/v1/rounds?limit=2&player=a&{query}", headers=tenant.headers).get_json()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert [r["id"] for r in page["items"]] == [stored[0]["id"]] and page["next_cursor"] is None
    # the player's currencies, a batch of the player's lines, the rounds' batch's lines
    assert len(reads) == 3, reads


def test_since_is_inclusive_and_until_exclusive(http, tenant, clock):
    first = _post(http, tenant)
    clock.advance(milliseconds=10)
    second = _post(http, tenant)
    at = first["created_at"]

    def ids(query: str) -> list[str]:
        response = http.get(f"/v1/rounds?{query}", headers=tenant.headers)
        assert response.status_code == 200, response.get_data(as_text=True)
        return [r["id"] for r in response.get_json()["items"]]

    assert ids(f"since={at}") == [second["id"], first["id"]]
    assert ids(f"until={at}") == []
    assert ids(f"since={at}&until={second['created_at']}") == [first["id"]]
    later = (clock.now() + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    assert ids(f"since={later}") == []


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "query.limit"),
        ("limit=501", "query.limit"),
        ("limit=ten", "query.limit"),
        ("since=yesterday", "query.since"),
        ("since=2026-11-29T10:00:00", "query.since"),
        ("cursor=not-a-cursor", "query.cursor"),
        ("table=bad%20id", "query.table"),
    ],
)
def test_bad_list_parameters_are_422_with_the_parameter_named(http, tenant, query, field):
    body = problem(http.get(f"/v1/rounds?{query}", headers=tenant.headers), 422, "validation")
    assert field in {e["field"] for e in body["errors"]}


def test_limit_500_is_accepted(http, tenant):
    made = [_post(http, tenant)["id"] for _ in range(3)]
    page = http.get("/v1/rounds?limit=500", headers=tenant.headers)
    assert page.status_code == 200
    assert sorted(r["id"] for r in page.get_json()["items"]) == sorted(made)
    assert page.get_json()["next_cursor"] is None


_SUSUN_PRESETS = sorted({rules.preset for rules, _ in list_presets() if rules.game == SUSUN})


@pytest.mark.parametrize("preset", _SUSUN_PRESETS)
def test_a_stored_rounds_answer_is_the_round_read_back_byte_for_byte(http, tenant, preset):
    """The write path answers the document the domain built, whose parts are in the documented
    order already; a read puts a record's sorted keys back into that order. The two agree byte
    for byte, key order included: under every preset, with pair stakes and with a surrender."""
    bodies = [
        four_player_round(rules=preset),
        two_player_round(rules=preset, pair_stakes=[{"players": ["a", "b"], "stake": "2500"}]),
    ]
    if resolve_rules(preset, SUSUN).params.surrender_allowed:
        surrendered = four_player_round(rules=preset)
        surrendered["players"][3] = {"id": "d", "surrender": True}
        bodies.append(surrendered)
    for body in bodies:
        stored = http.post("/v1/rounds", json=body, headers=tenant.headers)
        assert stored.status_code == 201, stored.get_json()
        fetched = http.get(f"/v1/rounds/{stored.get_json()['id']}", headers=tenant.headers)
        assert fetched.status_code == 200
        assert fetched.data == stored.data


def test_tables_a_client_sends_in_its_own_order_are_answered_in_the_documented_order(http, tenant):
    """The 201 and every read give a rule table in one order, whatever the order the client
    wrote it in: rows and categories as documented, ranks from 2 to A (the 201 echoed a
    royalty table in the client's order and a read in sorted order, "T" after "Q")."""
    params = {
        "bonus_by_rank": {"middle.straight": {"A": 4, "9": 4}, "front.pair": {"K": 8, "T": 5, "6": 1}},
        "natural_values": {"six_pairs": 3, "dragon": 13, "three_flushes": 3, "three_straights": 3},
    }
    body = four_player_round(rules={"preset": "chinese-poker-royalties", "params": params})
    stored = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert stored.status_code == 201, stored.get_json()
    by_rank = stored.get_json()["rules"]["params"]["bonus_by_rank"]
    assert list(by_rank) == ["front.pair", "middle.straight"]
    assert list(by_rank["front.pair"]) == ["6", "T", "K"]
    assert list(by_rank["middle.straight"]) == ["9", "A"]
    assert list(stored.get_json()["rules"]["params"]["natural_values"]) == [
        "dragon", "three_straights", "three_flushes", "six_pairs"
    ]
    fetched = http.get(f"/v1/rounds/{stored.get_json()['id']}", headers=tenant.headers)
    assert fetched.data == stored.data
