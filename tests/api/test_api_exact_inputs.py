"""Exact inputs outside the body's fields: integer query values, ids in the path, a webhook URL,
a PATCH without a body. Each is a 422 naming the place and quoting the value, on every
route that has one (found in `app.url_map`, so routes added later are covered). Both engines.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from httpkit import problem
from marshmallow import fields

# int() reads every one of these as a number; none is ASCII digits alone.
NOT_DIGITS = ["+1", "1_0", " 1", "1 ", "1\n", "\t1", "\u0661", "\uff11", "-1", "1.0", "0x1", "1e2", ""]


def query_integers(app: Any) -> list[tuple[str, str, str]]:
    """(method, rule, name) of every integer query parameter of every /v1 route."""
    found = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/v1/"):
            continue
        view_class = getattr(app.view_functions[rule.endpoint], "view_class", None)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            function = getattr(view_class, method.lower(), None)
            for parameter in getattr(function, "_apidoc", {}).get("arguments", {}).get("parameters", []):
                if parameter.get("in") != "query":
                    continue
                schema = parameter["schema"]
                schema = schema() if isinstance(schema, type) else schema
                for name, field in schema.fields.items():
                    if isinstance(field, fields.Integer):
                        found.append((method, rule.rule, field.data_key or name))
    return sorted(found)


def concrete(rule: str) -> str:
    """The rule with a well-formed value in each path parameter (`1` for an int)."""
    return re.sub(r"<(?:(\w+):)?\w+>", lambda m: "1" if m.group(1) == "int" else "a", rule)


def test_every_integer_query_parameter_is_found_so_the_sweep_below_covers_them(app):
    assert {(rule, name) for _, rule, name in query_integers(app)} == {
        ("/v1/audit/export", "from_sequence"),
        ("/v1/audit/export", "limit"),
        ("/v1/audit/export", "min_sequence"),
        ("/v1/audit/verify", "from_sequence"),
        ("/v1/audit/verify", "limit"),
        ("/v1/audit/verify", "min_sequence"),
        ("/v1/banting/games", "limit"),
        ("/v1/banting/matches/<string:match_id>/games", "limit"),
        ("/v1/deals", "limit"),
        ("/v1/ledger/entries", "limit"),
        ("/v1/ledger/entries", "min_sequence"),
        ("/v1/ledger/players/<id:player>", "min_sequence"),
        ("/v1/ledger/players/<id:player>/statement", "limit"),
        ("/v1/ledger/players/<id:player>/statement", "min_sequence"),
        ("/v1/ledger/summary", "min_sequence"),
        ("/v1/rounds", "limit"),
        ("/v1/susun/games", "limit"),
        ("/v1/webhooks/<string:webhook_id>/deliveries", "cursor"),
        ("/v1/webhooks/<string:webhook_id>/deliveries", "limit"),
        ("/v1/events", "limit"),
    }


def test_an_integer_query_value_that_is_not_ascii_digits_alone_is_a_422_naming_it_on_every_route(app, http, tenant):
    failures = []
    for method, rule, name in query_integers(app):
        for value in NOT_DIGITS:
            response = http.open(concrete(rule), method=method, query_string={name: value}, headers=tenant.headers)
            body = response.get_json(silent=True) or {}
            mine = [e["message"] for e in body.get("errors", []) if e["field"] == f"query.{name}"]
            expected = f"{value!r} is not a whole number written with the digits 0-9 alone"
            if response.status_code != 422 or mine != [expected]:
                failures.append(f"{method} {rule} ?{name}={value!r}: {response.status_code} {body}")
    assert failures == []


def test_an_integer_query_value_of_ascii_digits_is_read_as_its_number(http, tenant):
    assert http.get("/v1/rounds?limit=007", headers=tenant.headers).status_code == 200
    body = problem(http.get("/v1/rounds?limit=501", headers=tenant.headers), 422, "validation")
    assert [e["field"] for e in body["errors"]] == ["query.limit"]


PLAYER_ROUTES = [
    ("GET", "/v1/ledger/players/{}?currency=IDR"),
    ("GET", "/v1/ledger/players/{}/statement?currency=IDR"),
    ("GET", "/v1/susun/games/sg_nothing/hands/{}"),
    ("GET", "/v1/banting/games/bg_nothing/hands/{}"),
    ("PUT", "/v1/susun/games/sg_nothing/arrangements/{}"),
]
# Each would be a player no body can name: the body's pattern is ^[A-Za-z0-9._:-]{1,64}$.
BAD_PLAYERS = ["a\n", "a ", " a", "a b", "\u00e9", "\u0661", "a" * 65, "a+b", "a%b", "a\t", "\x00", "a\x00b"]


def test_the_routes_with_a_player_in_the_path_are_the_ones_checked_below(app):
    rules = sorted({r.rule for r in app.url_map.iter_rules() if "player>" in r.rule})
    assert rules == [
        "/v1/banting/games/<string:game_id>/hands/<id:player>",
        "/v1/ledger/players/<id:player>",
        "/v1/ledger/players/<id:player>/statement",
        "/v1/susun/games/<string:game_id>/arrangements/<id:player>",
        "/v1/susun/games/<string:game_id>/hands/<id:player>",
    ]


@pytest.mark.parametrize("method, route", PLAYER_ROUTES)
def test_a_player_id_in_the_path_outside_the_body_pattern_is_a_422_on_path_player_quoting_it(
    http, tenant, method, route
):
    for player in BAD_PLAYERS:
        path = route.format(quote(player, safe=""))
        body = problem(http.open(path, method=method, json={}, headers=tenant.headers), 422, "validation")
        assert body["errors"] == [
            {"field": "path.player", "message": f"{player!r} must match ^[A-Za-z0-9._:-]{{1,64}}$"}
        ], path


def test_a_player_id_in_the_path_that_fits_the_pattern_is_answered_as_before(http, tenant):
    for player in ("a", "A.b_c:d-9", "x" * 64):
        response = http.get(f"/v1/ledger/players/{player}?currency=IDR", headers=tenant.headers)
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["player"] == player
    problem(http.get("/v1/susun/games/sg_nothing/hands/a", headers=tenant.headers), 404, "not-found")


BROKEN_URLS = [
    "https://wallet.example.com/hook\n",
    "https://wallet.example.com/hook\r\n",
    "https://wallet.example.com/ho\tok",
    " https://wallet.example.com/hook",
    "https://wallet.example.com/hook ",
    "https://wallet.example.com/hook\u00a0",
    "https://wallet.example.com/hook\u2028",
    "https://wallet.example.com/hook\x7f",
    "https://wallet.example.com/hook\x85",
]


@pytest.fixture
def private_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")


def test_a_webhook_description_with_a_control_or_bidi_formatting_character_is_a_422(http, tenant):
    made = http.post("/v1/webhooks", json={"url": "https://wallet.example.com/hook", "events": ["*"]},
                     headers=tenant.headers)
    assert made.status_code == 201, made.get_json()
    expected = [{"field": "description", "message": (
        "has U+202E at position 7: no control character (newlines and line separators included) and no "
        'bidirectional formatting character is allowed: got "wallet \\u202estiderc"')}]  # quoted, the override escaped
    body = {"url": "https://wallet.example.com/hook", "events": ["*"], "description": "wallet \u202estiderc"}
    assert problem(http.post("/v1/webhooks", json=body, headers=tenant.headers), 422, "validation")["errors"] == expected
    patched = http.patch(f"/v1/webhooks/{made.get_json()['id']}", json={"description": body["description"]},
                         headers=tenant.headers)
    assert problem(patched, 422, "validation")["errors"] == expected


def test_a_webhook_url_with_whitespace_or_a_control_character_anywhere_is_a_422_on_url(http, tenant, private_ok):
    made = http.post("/v1/webhooks", json={"url": "https://wallet.example.com/hook", "events": ["*"]},
                     headers=tenant.headers)
    assert made.status_code == 201, made.get_json()
    hook = made.get_json()["id"]
    for url in BROKEN_URLS:
        at = next(i for i, c in enumerate(url) if c.isspace() or not c.isprintable())
        expected = [{"field": "url", "message": (
            f"{url!r} has {url[at]!r} at position {at}: no whitespace or control character is allowed")}]
        created = http.post("/v1/webhooks", json={"url": url, "events": ["*"]}, headers=tenant.headers)
        assert problem(created, 422, "validation")["errors"] == expected, url
        patched = http.patch(f"/v1/webhooks/{hook}", json={"url": url}, headers=tenant.headers)
        assert problem(patched, 422, "validation")["errors"] == expected, url
    listed = http.get("/v1/webhooks", headers=tenant.headers).get_json()["items"]
    assert [(w["id"], w["url"]) for w in listed] == [(hook, "https://wallet.example.com/hook")]


def test_a_patch_with_no_body_or_an_empty_object_is_a_422_on_body_and_changes_nothing(http, tenant, private_ok):
    made = http.post("/v1/webhooks", json={"url": "https://wallet.example.com/hook", "events": ["*"]},
                     headers=tenant.headers)
    before = http.get(f"/v1/webhooks/{made.get_json()['id']}", headers=tenant.headers).get_json()
    path = f"/v1/webhooks/{before['id']}"
    no_body = "a PATCH needs a JSON object with the fields to change"
    for headers in ({}, {"Content-Type": "application/json"}):
        body = problem(http.patch(path, headers={**tenant.headers, **headers}), 422, "validation")
        assert body["errors"] == [{"field": "body", "message": no_body}]
    body = problem(http.patch(path, json={}, headers=tenant.headers), 422, "validation")
    assert body["errors"] == [
        {"field": "body", "message": "name at least one field to change: url, events, description, enabled"}
    ]
    assert http.get(path, headers=tenant.headers).get_json() == before
    changed = http.patch(path, json={"enabled": False}, headers=tenant.headers)
    assert changed.status_code == 200 and changed.get_json()["enabled"] is False


def test_the_deliveries_event_filter_is_matched_whole_so_a_trailing_newline_is_a_422(http, tenant, private_ok):
    made = http.post("/v1/webhooks", json={"url": "https://wallet.example.com/hook", "events": ["*"]},
                     headers=tenant.headers)
    path = f"/v1/webhooks/{made.get_json()['id']}/deliveries"
    event = "evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled"
    assert http.get(path, query_string={"event": event}, headers=tenant.headers).status_code == 200
    body = problem(http.get(path, query_string={"event": event + "\n"}, headers=tenant.headers), 422, "validation")
    assert [e["field"] for e in body["errors"]] == ["query.event"]
