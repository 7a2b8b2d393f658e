"""Lists of deals and Big Two games: newest first, filters, cursor pages, one client's only."""

from __future__ import annotations

from typing import Any

from banting_scripts import BOMB_SCRIPT, FOUR
from conftest import make_tenant
from httpkit import fields_of, problem
from test_api_banting import play, start
from test_api_deals import make_deal


def pages(http: Any, tenant: Any, url: str, **query: Any) -> list[list[str]]:
    """Every page's ids, following next_cursor to the end."""
    out: list[list[str]] = []
    params = dict(query)
    while True:
        answer = http.get(url, query_string=params, headers=tenant.read_headers)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        doc = answer.get_json()
        out.append([item["id"] for item in doc["items"]])
        if doc["next_cursor"] is None:
            return out
        params = {**query, "cursor": doc["next_cursor"]}


def test_post_deals_answers_the_same_document_as_get(http, tenant):
    made = make_deal(http, tenant, "n e s w", "seed-same")
    shown = http.get(f"/v1/deals/{made['id']}", headers=tenant.headers).get_json()
    assert made == shown
    assert made["players"] == ["n", "e", "s", "w"] and made["status"] == "open"
    assert made["used_at"] is None and made["revealed_at"] is None and "server_seed" not in made


def test_deals_are_listed_newest_first_in_pages_with_a_status_filter(app, http):
    tenant = make_tenant(app)
    made = [make_deal(http, tenant, "a b", f"s{i}") for i in range(5)]
    newest_first = [d["id"] for d in reversed(made)]
    assert pages(http, tenant, "/v1/deals", limit=2) == [newest_first[:2], newest_first[2:4], newest_first[4:]]
    assert pages(http, tenant, "/v1/deals") == [newest_first]
    # reveal the oldest, use the second oldest in a Big Two game
    assert http.post(f"/v1/deals/{made[0]['id']}/reveal", headers=tenant.headers).status_code == 200
    game = http.post("/v1/banting/games", json={"currency": "IDR", "stake": "1000", "deal": made[1]["id"],
                     "players": [{"id": "a"}, {"id": "b"}]}, headers=tenant.headers)
    assert game.status_code == 201, game.get_data(as_text=True)
    assert pages(http, tenant, "/v1/deals", status="revealed") == [[made[0]["id"]]]
    assert pages(http, tenant, "/v1/deals", status="used") == [[made[1]["id"]]]
    assert pages(http, tenant, "/v1/deals", status="open") == [newest_first[:3]]
    listed = http.get("/v1/deals", query_string={"status": "used"}, headers=tenant.headers).get_json()["items"][0]
    assert listed == http.get(f"/v1/deals/{made[1]['id']}", headers=tenant.headers).get_json()
    assert listed["status"] == "used" and listed["used_by"] == game.get_json()["id"]
    assert "server_seed" not in listed and "hands" not in listed  # its game is in play


def test_a_client_lists_only_its_own_deals_and_games(app, http):
    mine, theirs = make_tenant(app), make_tenant(app)
    make_deal(http, theirs)
    start(http, theirs, FOUR)
    assert pages(http, mine, "/v1/deals") == [[]]
    assert pages(http, mine, "/v1/banting/games") == [[]]


def test_games_are_listed_newest_first_by_status_and_table_in_pages(app, http):
    tenant = make_tenant(app)
    at_7 = [start(http, tenant, FOUR) for _ in range(3)]
    at_9 = start(http, tenant, FOUR, table="table-9")
    finished = play(http, tenant, at_7[1]["id"], BOMB_SCRIPT)
    assert finished["status"] == "finished"
    all_ids = [at_9["id"]] + [g["id"] for g in reversed(at_7)]
    assert pages(http, tenant, "/v1/banting/games", limit=3) == [all_ids[:3], all_ids[3:]]
    assert pages(http, tenant, "/v1/banting/games", status="finished") == [[at_7[1]["id"]]]
    assert pages(http, tenant, "/v1/banting/games", status="playing", table="table-7") == [
        [at_7[2]["id"], at_7[0]["id"]]
    ]
    assert pages(http, tenant, "/v1/banting/games", table="table-9") == [[at_9["id"]]]
    items = http.get("/v1/banting/games", query_string={"status": "finished"}, headers=tenant.headers).get_json()
    assert items["items"] == [finished]  # each item is the game's state, as GET /v1/banting/games/{id}


def test_list_queries_out_of_range_are_422_naming_the_parameter(http, tenant):
    for url, query, field in [
        ("/v1/deals", {"status": "done"}, "query.status"),
        ("/v1/deals", {"limit": "501"}, "query.limit"),
        ("/v1/deals", {"cursor": "not-a-cursor"}, "query.cursor"),
        ("/v1/banting/games", {"status": "over"}, "query.status"),
        ("/v1/banting/games", {"limit": "101"}, "query.limit"),
        ("/v1/banting/games", {"table": "a b"}, "query.table"),
        ("/v1/banting/games", {"cursor": "eyJ4Ijox"}, "query.cursor"),
    ]:
        body = problem(http.get(url, query_string=query, headers=tenant.headers), 422, "validation")
        assert fields_of(body) == {field}, (url, query, body)


def test_an_unknown_query_parameter_is_422_naming_it_on_every_query_route(http, tenant):
    for url in ("/v1/deals", "/v1/banting/games", "/v1/rounds", "/v1/audit/verify",
                "/v1/ledger/summary?currency=IDR", "/v1/ledger/entries?currency=IDR",
                "/v1/ledger/players/a?currency=IDR"):
        query = url + ("&" if "?" in url else "?") + "state=open"
        body = problem(http.get(query, headers=tenant.headers), 422, "validation")
        assert fields_of(body) == {"query.state"}, body
