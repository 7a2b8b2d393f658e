"""POST /v1/arrangements/suggest: the best legal settings over HTTP, and its errors."""

from __future__ import annotations

from httpkit import fields_of, problem

from service.domain.cards import Card
from service.domain.rules import resolve_rules
from service.domain.susun.arrangement import Arrangement, evaluate

QUADS = ["9c", "9d", "9h", "9s", "Tc", "Jc", "Qc", "Kc", "Ac", "2d", "3h", "5s", "7d"]
DRAGON = ["2c", "3d", "4h", "5s", "6c", "7d", "8h", "9s", "Tc", "Jd", "Qh", "Ks", "Ac"]


def test_suggest_returns_distinct_legal_settings_best_first(http, tenant):
    response = http.post("/v1/arrangements/suggest", json={"hand": QUADS, "limit": 3},
                         headers=tenant.headers)
    assert response.status_code == 200, response.get_json()
    doc = response.get_json()
    assert doc["natural"] is None and doc["rules"]["preset"] == "capsa-susun-id"
    scores = [s["score"] for s in doc["suggestions"]]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)
    params = resolve_rules("capsa-susun-id", "susun").params
    seen = set()
    for s in doc["suggestions"]:
        rows = s["arrangement"]
        arrangement = Arrangement.from_strings(*(" ".join(rows[r]) for r in ("front", "middle", "back")))
        ev = evaluate(arrangement, params)
        assert not ev.foul and ev.bonus_total == s["bonus_total"]
        assert sorted(map(str, arrangement.cards)) == sorted(
            str(Card.from_str(c)) for c in QUADS)  # exactly the hand
        seen.add(tuple(map(tuple, rows.values())))
    assert len(seen) == 3
    # four nines under a royal flush: the quads go to the middle for 14, the royal pays 11
    best = doc["suggestions"][0]
    assert best["rows"]["middle"]["category"] == "four_of_a_kind"
    assert best["rows"]["middle"]["bonus"] == 14 and best["bonus_total"] == 25


def test_a_read_key_may_suggest_and_a_dragon_is_reported(http, tenant):
    response = http.post("/v1/arrangements/suggest", json={"hand": DRAGON, "limit": 1},
                         headers=tenant.read_headers)
    assert response.status_code == 200
    assert response.get_json()["natural"] == "dragon"


def test_suggest_errors_name_the_field(http, tenant):
    body = problem(http.post("/v1/arrangements/suggest", json={"hand": QUADS[:12]},
                             headers=tenant.headers), 422, "invalid-cards")
    assert "hand" in fields_of(body)
    body = problem(http.post("/v1/arrangements/suggest", json={"hand": QUADS[:12] + ["Xx"]},
                             headers=tenant.headers), 422, "invalid-cards")
    assert "hand[12]" in fields_of(body)
    body = problem(http.post("/v1/arrangements/suggest", json={"hand": QUADS, "limit": 0},
                             headers=tenant.headers), 422, "validation")
    assert "limit" in fields_of(body)
    problem(http.post("/v1/arrangements/suggest", json={"hand": QUADS, "rules": "capsa-banting-id"},
                      headers=tenant.headers), 422, "unknown-rules")
    problem(http.post("/v1/arrangements/suggest", json={"hand": QUADS}), 401, "unauthorized")
