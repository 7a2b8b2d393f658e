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


def test_a_revoked_key_is_401(app, http, tenant):
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    clients.revoke_key(app.extensions["capsa"].db, tenant.key.split("_")[1])
    problem(http.get("/v1/rules", headers=tenant.headers), 401, "unauthorized")


def test_keys_are_stored_only_as_hashes(app, tenant):
    from service.adapters.models import ApiKey

    with app.extensions["capsa"].db.unit_of_work() as uow:
        stored = uow.clients.key_by_prefix(tenant.key.split("_")[1])
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
    assert http.get(f"/v1/rounds/{stored['id']}", headers=read).status_code == 200
    assert http.get("/v1/rounds", headers=read).get_json()["items"][0]["id"] == stored["id"]
    assert http.get("/v1/rules", headers=read).status_code == 200
    assert http.post("/v1/score", json=two_player_round(), headers=read).status_code == 200
    body = {"arrangement": two_player_round()["players"][0]["arrangement"]}
    assert http.post("/v1/arrangements/evaluate", json=body, headers=read).status_code == 200


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
    assert http.post("/v1/rounds", json=body, headers=tenant.headers).status_code == 201
    assert http.post("/v1/rounds", json=body, headers=other_tenant.headers).status_code == 201


def test_a_key_has_a_short_prefix_and_at_least_256_random_bits(tenant):
    import base64

    scheme, prefix, secret = tenant.key.split("_", 2)
    assert scheme == "capsa" and len(prefix) == 8
    assert len(base64.urlsafe_b64decode(secret + "=")) * 8 >= 256
