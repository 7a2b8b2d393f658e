"""Error wording a client developer reads: keys, turns, money, cards, empty bodies; problem pages."""

from __future__ import annotations

from typing import Any

import pytest
from banting_scripts import FOUR
from httpkit import fields_of, problem, two_player_round
from test_api_access import concrete_path, make_owner
from test_api_banting import game_body, send, start
from test_api_hostile import body_is_optional, post_routes

from service.api.blueprints.problem_pages import code_spans
from service.api.schemas.problems import PROBLEM_TYPES

ACCEPTED = (
    "a card is a rank (2-9, T or 10, J, Q, K, A) then a suit (c, d, h, s or ♣ ♦ ♥ ♠), "
    "in either case: 'Qh', '10s', 'a♠'"
)


@pytest.mark.parametrize("token", ["capsa_nope", "capsa_00000000_" + "A" * 43, "sk-live-123"])
def test_a_well_formed_bearer_header_with_no_such_key_says_the_key_is_unknown(http, token):
    body = problem(http.get("/v1/rounds", headers={"Authorization": f"Bearer {token}"}), 401, "unauthorized")
    assert body["detail"] == "unknown API key"


@pytest.mark.parametrize("header", ["Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "capsa_nope", "Bearer a b"])
def test_a_header_that_is_not_bearer_and_one_token_is_malformed(http, header):
    body = problem(http.get("/v1/rounds", headers={"Authorization": header}), 401, "unauthorized")
    assert body["detail"] == "the Authorization header must be 'Bearer <API key>'"


def test_not_your_turn_names_the_player_whose_turn_it_is_without_doubled_quotes(http, tenant):
    game = start(http, tenant, FOUR)
    body = problem(send(http, tenant, game["id"], "b: 3c"), 422, "illegal-move")
    assert body["detail"] == "not your turn: it is the turn of 'a'"


MONEY = 'money is a decimal string such as "1000", not the JSON value 1000'


def test_a_numeric_stake_says_money_is_a_decimal_string_for_rounds_and_games(http, tenant):
    answer = http.post("/v1/rounds", json=two_player_round(stake=1000), headers=tenant.headers)
    assert {(e["field"], e["message"]) for e in problem(answer, 422, "validation")["errors"]} == {("stake", MONEY)}
    answer = http.post("/v1/banting/games", json=game_body(FOUR, stake=1000), headers=tenant.headers)
    assert {(e["field"], e["message"]) for e in problem(answer, 422, "validation")["errors"]} == {("stake", MONEY)}


def test_a_bad_card_names_the_accepted_notations(http, tenant):
    body = two_player_round()
    body["players"][0]["arrangement"]["front"][0] = "Qx"
    answer = problem(http.post("/v1/rounds", json=body, headers=tenant.headers), 422, "invalid-cards")
    assert answer["errors"] == [
        {"field": "players[0].arrangement.front[0]", "message": f"unknown card 'Qx': {ACCEPTED}"}
    ]


def test_a_void_with_no_body_and_no_content_type_is_422_naming_reason(http, tenant):
    made = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
    assert made.status_code == 201
    url = f"/v1/rounds/{made.get_json()['id']}/void"
    answer = problem(http.post(url, headers=tenant.headers), 422, "validation")
    assert fields_of(answer) == {"reason"}
    empty_json = http.post(url, data=b"", content_type="application/json", headers=tenant.headers)
    assert problem(empty_json, 400, "malformed-json")["detail"] == (
        "the request body is empty; a JSON object is expected"
    )
    assert http.get(f"/v1/rounds/{made.get_json()['id']}", headers=tenant.headers).get_json()["status"] == "settled"


def _no_body(http: Any, url: str, headers: dict[str, str], content_type: str | None = None) -> Any:
    environ: dict[str, Any] = {"CONTENT_LENGTH": "0"}
    if content_type:
        environ["CONTENT_TYPE"] = content_type
    return http.post(url, headers=headers, environ_overrides=environ)


def test_every_post_route_reads_an_empty_body_without_content_type_as_an_empty_object(app, http):
    owner = make_owner(app, http)
    failures = []
    for rule in post_routes(app):
        url, _ = concrete_path(rule, owner)
        bare = _no_body(http, url, owner.tenant.headers)
        if bare.status_code in (400, 415) or bare.status_code >= 500:
            failures.append(f"POST {rule} without a body: {bare.status_code} {bare.get_data(as_text=True)}")
        typed = _no_body(http, url, owner.tenant.headers, "application/json")
        expected = (200, 201, 202) if body_is_optional(app, rule) else (400,)
        if typed.status_code not in expected:
            failures.append(f"POST {rule} empty application/json: {typed.status_code}, expected {expected}")
    assert not failures, "\n".join(failures)


def test_the_round_post_without_a_body_names_every_required_field(http, tenant):
    answer = problem(_no_body(http, "/v1/rounds", tenant.headers), 422, "validation")
    assert {"currency", "stake", "players"} <= fields_of(answer)


# -- /problems/<type> -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PROBLEM_TYPES))
def test_every_problem_type_uri_opens_a_page_for_people(http, name):
    page = http.get(f"/problems/{name}")
    assert page.status_code == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    html = page.get_data(as_text=True)
    status, meaning = PROBLEM_TYPES[name]
    assert f"<code>/problems/{name}</code>, HTTP {status}" in html
    assert str(code_spans(meaning)) in html and "`" not in html  # code spans, no backticks
    assert "docs/api.md#problem-types" in html


def test_the_problem_page_title_is_the_one_the_api_answers_with(http, tenant):
    body = two_player_round()
    body["players"][0]["arrangement"]["front"][0] = "Qx"
    answer = problem(http.post("/v1/rounds", json=body, headers=tenant.headers), 422, "invalid-cards")
    page = http.get(answer["type"]).get_data(as_text=True)
    assert f"<h1>{answer['title']}</h1>" in page


def test_the_problem_index_links_every_type_and_an_unknown_type_is_a_404_page(http):
    index = http.get("/problems").get_data(as_text=True)
    assert all(f'href="/problems/{name}"' in index for name in PROBLEM_TYPES)
    unknown = http.get("/problems/no-such-type")
    assert unknown.status_code == 404 and unknown.headers["Content-Type"].startswith("text/html")
    assert "Unknown problem type" in unknown.get_data(as_text=True)
