"""RateLimit-Policy and RateLimit header fields (IETF httpapi ratelimit-headers draft) on /v1."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import make_app, make_tenant
from httpkit import two_player_round

FIELD = re.compile(r'^"(client|anonymous)";r=(\d+);t=(\d+)$')


def figures(response: Any) -> tuple[str, int, int]:
    match = FIELD.fullmatch(response.headers["RateLimit"])
    assert match, response.headers.get("RateLimit")
    return match.group(1), int(match.group(2)), int(match.group(3))


@pytest.fixture(scope="module")
def limited_app(db_url: str) -> Iterator[Any]:
    app = make_app(db_url, RATE_LIMIT="5/minute", RATE_LIMIT_ANONYMOUS="3/minute")
    yield app
    app.extensions["capsa"].db.dispose()


def test_each_request_of_a_client_shows_the_policy_and_what_is_left(limited_app):
    http, tenant = limited_app.test_client(), make_tenant(limited_app)
    left = []
    for _ in range(4):
        answer = http.get("/v1/rules", headers=tenant.headers)
        assert answer.status_code == 200
        assert answer.headers["RateLimit-Policy"] == '"client";q=5;w=60'
        policy, remaining, reset = figures(answer)
        assert policy == "client" and 1 <= reset <= 60
        left.append(remaining)
    created = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
    assert created.status_code == 201 and figures(created)[1] == 0
    assert left == [4, 3, 2, 1]
    refused = http.get("/v1/rules", headers=tenant.read_headers)  # the client's other key
    assert refused.status_code == 429
    _, remaining, reset = figures(refused)
    assert remaining == 0 and reset == int(refused.headers["Retry-After"])


def test_requests_without_a_valid_key_show_the_anonymous_policy(limited_app):
    http = limited_app.test_client()
    address = {"REMOTE_ADDR": f"10.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}"}
    answer = http.get("/v1/rounds", headers={"Authorization": "Bearer capsa_nope"}, environ_base=address)
    assert answer.status_code == 401
    assert answer.headers["RateLimit-Policy"] == '"anonymous";q=3;w=60'
    assert figures(answer)[:2] == ("anonymous", 2)


def test_pages_outside_v1_carry_no_rate_limit_fields(limited_app):
    http = limited_app.test_client()
    for path in ("/healthz", "/problems/validation"):
        answer = http.get(path, environ_base={"REMOTE_ADDR": "10.8.0.1"})
        assert "RateLimit" not in answer.headers and "RateLimit-Policy" not in answer.headers


def test_with_limits_off_no_fields_are_sent(db_url):
    app = make_app(db_url, RATE_LIMIT="off", RATE_LIMIT_ANONYMOUS="off")
    try:
        http, tenant = app.test_client(), make_tenant(app)
        answer = http.get("/v1/rules", headers=tenant.headers)
        assert answer.status_code == 200 and "RateLimit" not in answer.headers
    finally:
        app.extensions["capsa"].db.dispose()


@pytest.mark.skipif(not os.environ.get("TEST_REDIS_URL"), reason="TEST_REDIS_URL is not set")
def test_counts_shared_in_redis_show_the_same_figures(db_url):
    prefix = f"capsa-test-{secrets.token_hex(4)}"
    app = make_app(db_url, RATE_LIMIT="4/minute", RATELIMIT_STORAGE_URI=os.environ["TEST_REDIS_URL"],
                   RATELIMIT_KEY_PREFIX=prefix)
    try:
        http, tenant = app.test_client(), make_tenant(app)
        assert [figures(http.get("/v1/rules", headers=tenant.headers))[1] for _ in range(3)] == [3, 2, 1]
    finally:
        import redis

        client = redis.Redis.from_url(os.environ["TEST_REDIS_URL"])
        for key in client.scan_iter(f"*{prefix}*"):  # the keys begin LIMITS:LIMITER/
            client.delete(key)
        client.close()
        app.extensions["capsa"].db.dispose()


def test_with_the_client_limit_off_a_keyed_request_never_enters_the_limiter_and_a_keyless_one_is_counted(db_url):
    app = make_app(db_url, RATE_LIMIT="off", RATE_LIMIT_ANONYMOUS="3/minute")
    try:
        limiter = app.extensions["capsa_limiter"]
        calls = []
        real = limiter.count
        limiter.count = lambda policy, key: (calls.append(policy.name), real(policy, key))[1]
        http, tenant = app.test_client(), make_tenant(app)
        for _ in range(4):  # over the anonymous 3/minute: it does not count a valid key
            answer = http.get("/v1/rules", headers=tenant.headers)
            assert answer.status_code == 200
            assert "RateLimit" not in answer.headers and "RateLimit-Policy" not in answer.headers
        assert calls == []
        address = {"REMOTE_ADDR": f"10.8.{secrets.randbelow(250)}.{secrets.randbelow(250)}"}
        answer = http.get("/v1/rounds", headers={"Authorization": "Bearer capsa_nope"}, environ_base=address)
        assert answer.status_code == 401 and figures(answer)[:2] == ("anonymous", 2)
        assert len(calls) == 1
    finally:
        app.extensions["capsa"].db.dispose()
