"""No shared or private cache may keep an answer of the API: hands, deals, secrets, view-link
tokens and ledgers are one client's (often one player's), and one key's view of a resource
differs from another's (a write key sees an open deal's hands, a read key does not).

Every answer under /v1 says `Cache-Control: no-store` and `Vary: Authorization` (RFC 9111
5.2.2.5 and 4.1); an answer chosen by `Accept` (JSON or CSV) varies by it too (RFC 9110
12.5.5)."""

from __future__ import annotations

from typing import Any

import pytest
from httpkit import two_player_round
from test_api_banting import FOUR, start


def caching(answer: Any) -> tuple[str | None, set[str]]:
    vary = {v.strip() for v in answer.headers.get("Vary", "").split(",") if v.strip()}
    return answer.headers.get("Cache-Control"), vary


def test_a_players_hand_a_deal_a_secret_and_a_view_link_are_never_stored(http, tenant):
    game = start(http, tenant, FOUR)
    answers = [
        http.get(f"/v1/banting/games/{game['id']}/hands/a", headers=tenant.headers),
        http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": "s"}, headers=tenant.headers),
        http.post("/v1/webhooks", json={"url": "https://example.com/hook", "events": ["*"]}, headers=tenant.headers),
        http.get("/v1/rules", headers=tenant.headers),
        http.get("/v1/banting/games/none", headers=tenant.headers),  # a refusal too
        http.get("/v1/rounds"),  # and the 401
    ]
    stored = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
    answers += [stored, http.post(f"/v1/rounds/{stored.get_json()['id']}/view-link", json={}, headers=tenant.headers)]
    for answer in answers:
        assert answer.status_code < 500
        cache_control, vary = caching(answer)
        assert cache_control == "no-store" and "Authorization" in vary, (answer.request.path, answer.headers)


@pytest.mark.parametrize("accept", ["application/json", "text/csv"])
@pytest.mark.parametrize("route", ["/v1/ledger/entries?currency=IDR", "/v1/ledger/players/a/statement?currency=IDR"])
def test_an_answer_chosen_by_accept_varies_by_it(http, tenant, accept, route):
    assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
    answer = http.get(route, headers={**tenant.headers, "Accept": accept})
    assert answer.status_code == 200 and answer.mimetype == accept
    assert caching(answer) == ("no-store", {"Authorization", "Accept"})


@pytest.mark.parametrize("path", ["/v1/ledger/players/a%2Fstatement?currency=IDR", "/v1/banting/games/{game}%2Fhands%2Fa",
                                  "/v1/banting/games/{game}%2fhands/a"])
def test_an_encoded_slash_in_a_path_reaches_no_other_resource(http, tenant, path):
    # The server decodes %2F before routing: a's statement, or a player's hand, answered a
    # path whose id held a slash.
    game = start(http, tenant, FOUR)
    answer = http.get(path.format(game=game["id"]), headers=tenant.headers)
    assert answer.status_code == 404 and answer.get_json()["type"] == "/problems/not-found"
