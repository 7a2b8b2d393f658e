"""Requests without a valid key are limited per client address (RATE_LIMIT_ANONYMOUS).

The address is REMOTE_ADDR, or the last X-Forwarded-For entry when the peer is a trusted
proxy (FORWARDED_ALLOW_IPS): the test client's `environ_base` stands for the TCP peer.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest import make_app, make_tenant
from httpkit import problem

_addresses = (f"198.51.100.{i}" for i in itertools.count(1))
SPEC = "/openapi.yaml"  # a route without a key that is counted

ANONYMOUS_ROUTES = [
    ("/docs", {}, 200),
    ("/openapi.yaml", {}, 200),
    ("/view/rounds/not-a-token", {}, 404),
    ("/v1/rules", {}, 401),
    ("/v1/rules", {"Authorization": "Bearer capsa_00000000_guessedguessedguessedguessedguessedguess"}, 401),
    ("/v1/rules", {"Authorization": "Basic Zm9vOmJhcg=="}, 401),
    # no route: a scan of made-up paths is counted like any other request
    ("/v1/nope", {}, 404),
    ("/v1/audit/records/abc", {}, 404),
    ("/wp-login.php", {}, 404),
]


def get(http: Any, path: str, peer: str, headers: dict[str, str] | None = None) -> Any:
    return http.get(path, headers=headers or {}, environ_base={"REMOTE_ADDR": peer})


def assert_anonymous_limited(response: Any) -> None:
    body = problem(response, 429, "rate-limited")
    assert 1 <= int(response.headers["Retry-After"]) <= 61
    assert "without an API key from this address" in body["detail"]


@pytest.fixture(scope="module")
def app(sqlite_url: str) -> Any:
    return make_app(sqlite_url, RATE_LIMIT="100/minute", RATE_LIMIT_ANONYMOUS="3/minute",
                    FORWARDED_ALLOW_IPS="10.0.0.2")


@pytest.mark.parametrize(("path", "headers", "status"), ANONYMOUS_ROUTES)
def test_every_route_without_a_valid_key_counts_against_the_address(app, path, headers, status):
    http, peer = app.test_client(), next(_addresses)
    for _ in range(3):
        assert get(http, path, peer, headers).status_code == status
    assert_anonymous_limited(get(http, path, peer, headers))
    # Another address has its own budget.
    assert get(http, path, next(_addresses), headers).status_code == status


def test_one_budget_per_address_over_all_routes_and_guessed_keys(app):
    http, peer = app.test_client(), next(_addresses)
    assert get(http, "/docs", peer).status_code == 200
    assert get(http, "/openapi.yaml", peer).status_code == 200
    problem(get(http, "/v1/rules", peer, {"Authorization": "Bearer capsa_deadbeef_nope"}), 401, "unauthorized")
    # Key guessing is answered 429 once the address is over its budget, not 401.
    assert_anonymous_limited(get(http, "/v1/rules", peer, {"Authorization": "Bearer capsa_deadbeef_nope2"}))
    assert_anonymous_limited(get(http, SPEC, peer))


def test_a_method_a_route_does_not_take_is_counted_and_says_its_limit(app):
    http, peer = app.test_client(), next(_addresses)
    for left in (2, 1, 0):
        answer = http.put("/v1/rounds", environ_base={"REMOTE_ADDR": peer})
        assert answer.status_code == 405
        assert answer.headers["RateLimit-Policy"] == '"anonymous";q=3;w=60'
        assert answer.headers["RateLimit"].startswith(f'"anonymous";r={left};')
    assert_anonymous_limited(http.put("/v1/rounds", environ_base={"REMOTE_ADDR": peer}))


def test_a_clients_request_for_no_route_counts_against_the_client(app):
    http, peer, tenant = app.test_client(), next(_addresses), make_tenant(app)
    answer = get(http, "/v1/nope", peer, tenant.headers)
    assert answer.status_code == 404 and answer.headers["RateLimit-Policy"] == '"client";q=100;w=60'
    for _ in range(3):  # not the address's budget
        assert get(http, "/v1/nope", peer, tenant.headers).status_code == 404


def test_an_authenticated_client_is_never_counted_as_anonymous(app):
    http, peer, tenant = app.test_client(), next(_addresses), make_tenant(app)
    for _ in range(3):
        get(http, SPEC, peer)
    assert_anonymous_limited(get(http, SPEC, peer))
    # The address is over its anonymous budget; the client behind a valid key is not.
    for _ in range(10):
        assert get(http, "/v1/rules", peer, tenant.headers).status_code == 200


def test_x_forwarded_for_names_the_address_only_from_a_trusted_proxy(app):
    http = app.test_client()
    proxy, untrusted = "10.0.0.2", next(_addresses)
    alice, bob = next(_addresses), next(_addresses)
    # Through the proxy, the last entry is the address it saw; earlier ones are the
    # client's own words and ignored (a client cannot pick its key by prepending).
    for spoof in ("1.2.3.4", "5.6.7.8", "9.9.9.9"):
        forwarded = {"X-Forwarded-For": f"{spoof}, {alice}"}
        assert get(http, SPEC, proxy, forwarded).status_code == 200
    assert_anonymous_limited(get(http, SPEC, proxy, {"X-Forwarded-For": alice}))
    assert get(http, SPEC, proxy, {"X-Forwarded-For": bob}).status_code == 200
    # From a peer that is not a trusted proxy the header is ignored: a new value per
    # request does not make a new budget.
    for i in range(3):
        assert get(http, SPEC, untrusted, {"X-Forwarded-For": f"203.0.113.{i}"}).status_code == 200
    assert_anonymous_limited(get(http, SPEC, untrusted, {"X-Forwarded-For": "203.0.113.99"}))


@pytest.mark.parametrize("value", ["off", "0", ""])
def test_the_anonymous_limit_can_be_switched_off(sqlite_url, value):
    http = make_app(sqlite_url, RATE_LIMIT_ANONYMOUS=value).test_client()
    for _ in range(30):
        assert get(http, SPEC, "198.51.100.250").status_code == 200


def test_the_default_anonymous_limit_is_on(sqlite_url, monkeypatch):
    from service.api.ratelimit import DEFAULT_RATE_LIMIT_ANONYMOUS

    monkeypatch.delenv("RATE_LIMIT_ANONYMOUS", raising=False)
    app = make_app(sqlite_url)
    assert app.config["RATE_LIMIT_ANONYMOUS"] == DEFAULT_RATE_LIMIT_ANONYMOUS == "600/minute"
    assert "capsa_limiter" in app.extensions


@pytest.mark.parametrize(
    ("setting", "value"),
    [("RATE_LIMIT_ANONYMOUS", "lots"), ("RATE_LIMIT", "12 per fortnight"), ("FORWARDED_ALLOW_IPS", "nginx"),
     # One quota, the one the RateLimit fields name: a second would be counted without a word.
     ("RATE_LIMIT", "10/second;1200/minute"),
     ("RATE_LIMIT_ANONYMOUS", "0/minute")],  # "off" switches it off; this would refuse everything
)
def test_a_malformed_setting_stops_the_app_from_starting(sqlite_url, setting, value):
    with pytest.raises(ValueError, match=setting):
        make_app(sqlite_url, **{setting: value})


@pytest.mark.parametrize("probe", ["/healthz", "/readyz"])
def test_a_health_probe_is_never_rate_limited_and_spends_none_of_the_addresss_budget(app, probe):
    http, peer = app.test_client(), next(_addresses)
    for _ in range(30):  # ten times the anonymous limit
        answer = get(http, probe, peer)
        assert answer.status_code == 200, answer.get_data(as_text=True)
    # The address still has its whole budget for everything else, and then is limited.
    for _ in range(3):
        assert get(http, SPEC, peer).status_code == 200
    assert_anonymous_limited(get(http, SPEC, peer))
    assert get(http, probe, peer).status_code == 200


@pytest.mark.parametrize("path", ["/static/round.css", "/view/static/round.css"])
def test_static_files_are_never_counted(app, path):
    """A page's stylesheet came out of the address's budget under a blueprint's static route:
    every HTML page then cost two requests of it."""
    http, peer = app.test_client(), next(_addresses)
    for _ in range(5):
        answer = get(http, path, peer)
        answer.close()  # a file's answer: its file is closed with it
        assert answer.status_code == 200
    for _ in range(3):
        assert get(http, SPEC, peer).status_code == 200
    assert_anonymous_limited(get(http, SPEC, peer))
