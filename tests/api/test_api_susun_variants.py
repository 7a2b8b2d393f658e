"""Susun rule versions over HTTP: rounds stored under version 1 re-verify, the latest version
is the default, the new presets score, contradictory parameters are a 422 naming both."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Tenant
from httpkit import four_player_round, problem, two_player_round

from service.domain import rules as rules_module

V1_PRESETS = ("capsa-susun-id", "chinese-poker-2-4", "chinese-poker-1-6")


def store(http: Any, tenant: Tenant, body: dict[str, Any]) -> dict[str, Any]:
    r = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert r.status_code == 201, r.get_data(as_text=True)
    return dict(r.get_json())


def verify(http: Any, tenant: Tenant, round_id: str) -> dict[str, Any]:
    return dict(http.get(f"/v1/rounds/{round_id}/verify", headers=tenant.read_headers).get_json())


@pytest.mark.parametrize("preset", V1_PRESETS)
def test_rounds_stored_under_version_1_keep_their_19_parameters_and_re_verify(http, tenant, preset):
    stored = [
        store(http, tenant, two_player_round(rules={"preset": preset, "version": 1})),
        store(http, tenant, four_player_round(rules={"preset": preset, "version": 1})),
    ]
    for doc in stored:
        assert doc["rules"]["version"] == 1 and len(doc["rules"]["params"]) == 19
        assert verify(http, tenant, doc["id"]) == {"ok": True, "differences": []}
    chain = http.get("/v1/audit/verify", headers=tenant.read_headers).get_json()
    assert chain["ok"] is True and chain["records_checked"] == 2


@pytest.mark.parametrize("preset", V1_PRESETS)
def test_versions_2_and_3_the_default_score_as_version_1(http, tenant, preset):
    v1 = store(http, tenant, four_player_round(rules={"preset": preset, "version": 1}))
    v2 = store(http, tenant, four_player_round(rules={"preset": preset, "version": 2}))
    v3 = store(http, tenant, four_player_round(rules=preset))
    assert v2["rules"]["version"] == 2 and len(v2["rules"]["params"]) == 23
    assert v3["rules"]["version"] == 3 and len(v3["rules"]["params"]) == 24
    assert v3["rules"]["params"]["front_vs_five"] == "five_stronger"
    for later in (v2, v3):
        assert [p["points"] for p in later["players"]] == [p["points"] for p in v1["players"]]
        assert [p["net"] for p in later["players"]] == [p["net"] for p in v1["players"]]
        assert verify(http, tenant, later["id"])["ok"] is True


def test_a_round_stored_before_contradictions_were_refused_still_re_verifies(http, tenant, monkeypatch):
    # As stored before the check existed: super x1 below tembus x2 (the round's sweep pays x2).
    body = two_player_round(rules={"preset": "capsa-susun-id", "version": 1, "params": {"super_multiplier": 1}})
    with monkeypatch.context() as m:
        m.setattr(rules_module, "CONTRADICTIONS", {})
        doc = store(http, tenant, body)
    assert doc["pairs"][0]["points"] == 3 * 2 + 5  # a sweep x2 (two players: no super) + front trips 5
    refused = http.post("/v1/rounds", json=body, headers=tenant.headers)
    answer = problem(refused, 422, "validation")
    assert [e["field"] for e in answer["errors"]] == [
        "rules.params.super_multiplier", "rules.params.tembus_multiplier"]
    assert "tembus_multiplier" in answer["errors"][0]["message"]
    assert "super_multiplier" in answer["errors"][1]["message"]
    assert verify(http, tenant, doc["id"]) == {"ok": True, "differences": []}


def test_a_version_1_request_with_a_version_2_parameter_is_unknown_rules(http, tenant):
    body = two_player_round(rules={"preset": "chinese-poker-2-4", "version": 1,
                                   "params": {"row_points": [2, 2, 4]}})
    answer = problem(http.post("/v1/score", json=body, headers=tenant.headers), 422, "unknown-rules")
    assert answer["errors"][0]["field"] == "rules.params.row_points"
    assert "version 2 has it" in answer["errors"][0]["message"]


def test_the_new_presets_score_and_store_with_every_parameter(http, tenant):
    for preset in ("chinese-poker-tw", "chinese-poker-royalties"):
        for rules, version, count in (({"preset": preset, "version": 1}, 1, 23), (preset, 2, 24)):
            doc = store(http, tenant, four_player_round(rules=rules))
            assert doc["rules"]["preset"] == preset and doc["rules"]["version"] == version
            assert len(doc["rules"]["params"]) == count
            assert sum(p["points"] for p in doc["players"]) == 0
            assert verify(http, tenant, doc["id"])["ok"] is True


def test_suggest_takes_the_new_parameters(http, tenant):
    hand = ["Ah", "Ad", "7c", "9s", "9h", "4d", "4c", "2s", "Ts", "Js", "Qs", "Ks", "As"]
    hand[12] = "3h"
    body = {"hand": hand, "rules": {"preset": "chinese-poker-1-6",
                                     "params": {"row_points": [1, 2, 6], "scoop_bonus": 9}}}
    r = http.post("/v1/arrangements/suggest", json=body, headers=tenant.headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_json()["rules"]["params"]["row_points"] == [1, 2, 6]
