"""API keys: 401 without a valid key, 403 for a read key that writes, 404 across clients."""

from __future__ import annotations

import pytest
from httpkit import problem, two_player_round

from service.services import clients


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Basic dXNlcjpwYXNz",
        "Bearer capsa_00000000_" + "A" * 43,
        "Bearer not-a-key",
    ],
)
def test_missing_or_unknown_keys_are_401_with_www_authenticate(http, authorization):
    headers = {} if authorization is None else {"Authorization": authorization}
    response = http.get("/v1/rules", headers=headers)
    problem(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_key_with_a_known_prefix_but_another_secret_is_401(http, tenant):
    forged = tenant.key[: len("capsa_12345678_")] + "B" * 43
    problem(http.get("/v1/rules", headers={"Authorization": f"Bearer {forged}"}), 401,
            "unauthorized")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(app, monkeypatch):
    """The key cache's clock, moved by the test instead of sleeping."""
    fake = FakeClock()
    cache = app.extensions["capsa"].keys
    cache.clear()
    monkeypatch.setattr(cache, "clock", fake)
    yield fake
    cache.clear()


def test_a_revoked_key_is_refused_once_the_cache_delay_has_passed(app, http, tenant, clock):
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    clients.revoke_key(app.extensions["capsa"].db, tenant.key.split("_")[1])
    clock.now += clients.CACHE_SECONDS - 0.1
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200  # the documented delay
    clock.now += 0.2
    body = problem(http.get("/v1/rules", headers=tenant.headers), 401, "unauthorized")
    assert body["detail"] == "this API key has been revoked"


def test_a_known_key_costs_no_database_query_while_it_is_cached(app, http, tenant, clock, monkeypatch):
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    looked_up = []
    real = clients._look_up
    monkeypatch.setattr(clients, "_look_up", lambda *a: looked_up.append(a) or real(*a))
    for _ in range(5):
        assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    assert looked_up == []
    clock.now += clients.CACHE_SECONDS + 1
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    assert len(looked_up) == 1


def test_a_wrong_key_does_not_cost_a_database_query_every_time(app, http, tenant, clock, monkeypatch):
    forged = {"Authorization": "Bearer " + tenant.key[: len("capsa_12345678_")] + "C" * 43}
    looked_up = []
    real = clients._look_up
    monkeypatch.setattr(clients, "_look_up", lambda *a: looked_up.append(a) or real(*a))
    for _ in range(5):
        body = problem(http.get("/v1/rules", headers=forged), 401, "unauthorized")
        assert body["detail"] == "unknown API key"
    assert len(looked_up) == 1


def test_the_key_cache_is_bounded_and_forgets_the_least_recently_used():
    cache = clients.KeyCache(seconds=60, size=3, clock=lambda: 0.0)
    for n in range(5):
        cache.put(f"h{n}", f"reason {n}")
    assert [cache.get(f"h{n}") for n in range(5)] == [None, None, "reason 2", "reason 3", "reason 4"]


def test_keys_are_stored_only_as_hashes(app, tenant):
    from sqlalchemy import select

    from service.adapters.models import ApiKey

    with app.extensions["capsa"].db.unit_of_work() as uow:
        stored = uow.session.scalar(select(ApiKey).where(ApiKey.prefix == tenant.key.split("_")[1]))
        assert isinstance(stored, ApiKey)
        assert stored.key_hash == clients.hash_key(tenant.key) != tenant.key
        assert tenant.key not in (stored.key_hash, stored.prefix)


def test_a_read_key_cannot_store_a_round(http, tenant):
    problem(http.post("/v1/rounds", json=two_player_round(), headers=tenant.read_headers), 403,
            "forbidden")
    assert http.get("/v1/rounds", headers=tenant.headers).get_json()["items"] == []


def test_a_read_key_may_read_score_and_evaluate(http, tenant):
    stored = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).get_json()
    read = tenant.read_headers
    one = http.get(f"/v1/rounds/{stored['id']}", headers=read)
    assert one.status_code == 200 and one.get_json() == stored
    assert http.get("/v1/rounds", headers=read).get_json()["items"][0]["id"] == stored["id"]
    rules = http.get("/v1/rules", headers=read)
    assert rules.status_code == 200 and "capsa-susun-id" in {p["preset"] for p in rules.get_json()["items"]}
    scored = http.post("/v1/score", json=two_player_round(), headers=read)
    assert scored.status_code == 200
    assert [(p["id"], p["points"], p["result"]) for p in scored.get_json()["players"]] == [
        ("a", 11, "11000"), ("b", -11, "-11000")]
    body = {"arrangement": two_player_round()["players"][0]["arrangement"]}
    evaluated = http.post("/v1/arrangements/evaluate", json=body, headers=read)
    assert evaluated.status_code == 200 and evaluated.get_json()["foul"] is False


def test_another_clients_round_is_not_found_and_not_listed(http, tenant, other_tenant):
    stored = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).get_json()
    problem(http.get(f"/v1/rounds/{stored['id']}", headers=other_tenant.headers), 404,
            "not-found")
    problem(http.get(f"/v1/rounds/{stored['id']}", headers=other_tenant.read_headers), 404,
            "not-found")
    assert http.get("/v1/rounds", headers=other_tenant.headers).get_json()["items"] == []
    listed = http.get(f"/v1/rounds?reference={stored['reference']}",
                      headers=other_tenant.headers)
    assert listed.get_json()["items"] == []


def test_references_are_unique_per_client_only(http, tenant, other_tenant):
    body = two_player_round()
    mine = http.post("/v1/rounds", json=body, headers=tenant.headers)
    theirs = http.post("/v1/rounds", json=body, headers=other_tenant.headers)
    assert mine.status_code == theirs.status_code == 201
    assert mine.get_json()["reference"] == theirs.get_json()["reference"] == body["reference"]
    assert mine.get_json()["id"] != theirs.get_json()["id"]


def test_a_key_has_a_short_prefix_and_at_least_256_random_bits(tenant):
    import base64

    scheme, prefix, secret = tenant.key.split("_", 2)
    assert scheme == "capsa" and len(prefix) == 8
    assert len(base64.urlsafe_b64decode(secret + "=")) * 8 >= 256
