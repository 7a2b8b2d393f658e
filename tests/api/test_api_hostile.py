"""Hostile input corpus: each input gets its documented 4xx problem and writes nothing.

Every case runs on SQLite and PostgreSQL (the `app` fixture) with the owner's write key;
the row count of every table is compared before and after. The body-level corpus (huge,
deep, not UTF-8, NaN, 1e400, duplicate keys, not an object, unknown fields) runs against
every POST route of `app.url_map`, so endpoints added later are covered too.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from httpkit import two_player_round
from test_api_access import concrete_path, make_owner, normalise, sample_body, table_counts

TYPES_422 = {"validation", "invalid-cards", "unknown-rules"}


def assert_problem(response: Any, status: int, kinds: str | set[str]) -> dict[str, Any]:
    kinds = {kinds} if isinstance(kinds, str) else kinds
    text = response.get_data(as_text=True)[:300]
    assert response.status_code == status, text
    assert response.headers["Content-Type"] == "application/problem+json", text
    body = response.get_json()
    assert body["type"] in {f"/problems/{k}" for k in kinds}, body
    assert body["status"] == status
    return dict(body)


@pytest.fixture
def unchanged(app):
    """Call at the end of a test: no table gained or lost a row since the test began."""
    before = table_counts(app)

    def check() -> None:
        assert table_counts(app) == before

    return check


def post(http: Any, tenant: Any, body: Any, path: str = "/v1/rounds", **headers: str) -> Any:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return http.post(path, data=data, content_type="application/json",
                     headers={**tenant.headers, **headers})


# --- bodies that are not a plain JSON object of the allowed size: every POST route -----------

MALFORMED: list[tuple[str, bytes | str, int, str]] = [
    ("huge (1 MiB)", b'{"players": "' + b"x" * (1 << 20) + b'"}', 413, "payload-too-large"),
    ("just over 64 KiB", json.dumps({"table": "x" * 65_536}), 413, "payload-too-large"),
    ("nested 33 objects", '{"a": ' * 33 + "{}" + "}" * 33, 400, "malformed-json"),
    ("nested 30000 arrays", "[" * 30_000 + "]" * 30_000, 400, "malformed-json"),
    ("Latin-1 bytes", b'{"table": "caf\xe9"}', 400, "malformed-json"),
    ("UTF-16", '{"table": "t"}'.encode("utf-16"), 400, "malformed-json"),
    ("truncated UTF-8", b'{"table": "\xe2\x82"}', 400, "malformed-json"),
    ("NaN", '{"stake": NaN}', 400, "malformed-json"),
    ("Infinity", '{"stake": Infinity}', 400, "malformed-json"),
    ("-Infinity", '{"stake": -Infinity}', 400, "malformed-json"),
    ("1e400", '{"stake": 1e400}', 400, "malformed-json"),
    ("a 400-digit integer", '{"stake": ' + "9" * 400 + "}", 400, "malformed-json"),
    ("duplicate keys", '{"stake": "1000", "stake": "2000"}', 400, "malformed-json"),
    ("nested duplicate keys", '{"rules": {"preset": "a", "preset": "b"}}', 400, "malformed-json"),
    ("an array", "[]", 400, "malformed-json"),
    ("a string", '"{}"', 400, "malformed-json"),
    ("null", "null", 400, "malformed-json"),
    ("empty", b"", 400, "malformed-json"),
    ("not JSON", "stake=1000", 400, "malformed-json"),
    ("trailing garbage", "{} {}", 400, "malformed-json"),
    ("a NUL byte", b'{"table": "a\x00b"}', 400, "malformed-json"),
]


def post_routes(app: Any) -> list[str]:
    rules = {r.rule for r in app.url_map.iter_rules()
             if r.rule.startswith("/v1/") and "POST" in (r.methods or ())}
    return sorted(rules)


def body_is_optional(app: Any, rule: str) -> bool:
    endpoint = next(r.endpoint for r in app.url_map.iter_rules() if r.rule == rule)
    view = app.view_functions[endpoint]
    method = getattr(getattr(view, "view_class", None), "post", view)
    return bool(getattr(method, "capsa_optional_body", False))


def test_malformed_bodies_are_refused_on_every_post_route(app, http, unchanged):
    owner = make_owner(app, http)
    before = table_counts(app)
    failures = []
    for rule in post_routes(app):
        url, _ = concrete_path(rule, owner)
        for label, data, status, kind in MALFORMED:
            if not data and body_is_optional(app, rule):
                continue  # POST /v1/deals/{id}/reveal: no body is `{}`
            response = post(http, owner.tenant, data, url)
            got = (response.status_code, (response.get_json(silent=True) or {}).get("type"))
            if got != (status, f"/problems/{kind}"):
                failures.append(f"POST {rule} {label}: {got}, expected {status} {kind}")
        for content_type in ("text/plain", "application/x-www-form-urlencoded",
                             "application/json; charset=utf-16", "multipart/form-data; boundary=x"):
            response = http.post(url, data=b"{}", content_type=content_type, headers=owner.tenant.headers)
            if response.status_code != 415:
                failures.append(f"POST {rule} as {content_type}: {response.status_code}, expected 415")
    assert table_counts(app) == before
    assert not failures, "\n".join(failures)


def test_unknown_fields_are_422_on_every_post_route_with_a_sample_body(app, http):
    owner = make_owner(app, http)
    before = table_counts(app)
    failures = []
    for rule in post_routes(app):
        url, _ = concrete_path(rule, owner)
        body = sample_body("POST", rule, owner, "hostile")
        if not body:
            continue
        for extra in ({"unexpected": 1}, {"": None}, {"players\x00": []}):
            response = post(http, owner.tenant, {**body, **extra}, url)
            got = (response.status_code, (response.get_json(silent=True) or {}).get("type"))
            if got != (422, "/problems/validation"):
                failures.append(f"POST {normalise(rule)} with {extra}: {got}")
    assert table_counts(app) == before
    assert not failures, "\n".join(failures)


# --- POST /v1/rounds: money, players, cards, rules, types, ids, headers -----------------------


def _with(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation setting `a.b[0].c` in a round body."""

    def mutate(body: dict[str, Any]) -> None:
        node: Any = body
        steps = path.replace("[", ".").replace("]", "").split(".")
        for step in steps[:-1]:
            node = node[int(step)] if step.isdigit() else node[step]
        last = steps[-1]
        if last.isdigit():
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def _players(n: int) -> Callable[[dict[str, Any]], None]:
    def mutate(body: dict[str, Any]) -> None:
        template = body["players"]
        body["players"] = [dict(copy.deepcopy(template[i % 2]), id=f"p{i}") for i in range(n)]

    return mutate


def _extra_card(body: dict[str, Any]) -> None:
    body["players"][0]["hand"] = sum(body["players"][0]["arrangement"].values(), []) + ["As"]


def _card_twice_in_a_hand(body: dict[str, Any]) -> None:
    arrangement = body["players"][0]["arrangement"]
    body["players"][0]["hand"] = sum(arrangement.values(), [])[:12] + ["2c"]


ROUND_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    # money
    ("negative stake", _with("stake", "-1000"), "validation"),
    ("zero stake", _with("stake", "0"), "validation"),
    ("negative zero stake", _with("stake", "-0"), "validation"),
    ("300-digit stake", _with("stake", "9" * 300), "validation"),
    ("stake over 10^15 minor units", _with("stake", "1000000000000001"), "validation"),
    ("stake finer than the rupiah", _with("stake", "1000.5"), "validation"),
    ("stake finer than the cent", lambda b: (b.update(currency="USD", stake="12.505")), "validation"),
    ("stake with an exponent", _with("stake", "1e3"), "validation"),
    ("stake as a JSON number", _with("stake", 1000), "validation"),
    ("stake NaN as a string", _with("stake", "NaN"), "validation"),
    ("stake Infinity as a string", _with("stake", "Infinity"), "validation"),
    ("stake with spaces", _with("stake", " 1000 "), "validation"),
    ("stake in Arabic-Indic digits", _with("stake", "\u0661\u0660\u0660\u0660"), "validation"),
    ("pair stake negative", _with("pair_stakes", [{"players": ["a", "b"], "stake": "-5"}]), "validation"),
    ("unknown currency", _with("currency", "XXQ"), "validation"),
    ("lower-case currency", _with("currency", "idr"), "validation"),
    # players
    ("0 players", _with("players", []), "validation"),
    ("1 player", _players(1), "validation"),
    ("5 players", _players(5), "validation"),
    ("the same player twice", _with("players[1].id", "a"), "validation"),
    # cards
    ("a card twice across players", _with("players[1].arrangement.back[0]", "2c"), "invalid-cards"),
    ("a card twice in one row", _with("players[0].arrangement.middle[1]", "3s"), "invalid-cards"),
    ("a card twice in a hand", _card_twice_in_a_hand, "invalid-cards"),
    ("14 cards in a hand", _extra_card, "invalid-cards"),
    ("6 cards in the back", lambda b: b["players"][0]["arrangement"]["back"].append("As"), "invalid-cards"),
    ("an unknown card", _with("players[0].arrangement.front[0]", "1x"), "invalid-cards"),
    ("a card with a NUL", _with("players[0].arrangement.front[0]", "2\x00c"), "validation"),
    ("a 10k-char card", _with("players[0].arrangement.front[0]", "A" * 10_000),
     {"validation", "invalid-cards"}),
    # rules
    ("unknown preset", _with("rules", "poker-night"), "unknown-rules"),
    ("preset of the other game", _with("rules", "capsa-banting-id"), "unknown-rules"),
    ("unknown parameter", _with("rules", {"preset": "capsa-susun-id", "params": {"zzz": 1}}),
     "unknown-rules"),
    ("parameter of the wrong type", _with("rules", {"preset": "capsa-susun-id", "params": {"fee_rate": 5}}),
     "validation"),
    ("fee_rate of 1", _with("rules", {"preset": "capsa-susun-id", "params": {"fee_rate": "1"}}),
     "validation"),
    ("parameter over 10,000",
     _with("rules", {"preset": "chinese-poker-1-6", "params": {"scoop_multiplier": 10_001}}),
     {"validation", "unknown-rules"}),
    # control characters and oversize ids
    ("NUL in a player id", _with("players[0].id", "a\x00"), "validation"),
    ("newline in a player id", _with("players[0].id", "a\nb"), "validation"),
    ("escape sequence in the table", _with("table", "\x1b[31mred"), "validation"),
    ("tab in the reference", _with("reference", "ref\t1"), "validation"),
    ("lone surrogate in the table", _with("table", "\ud800"), "validation"),
    ("RTL override in a player id", _with("players[0].id", "a\u202eb"), "validation"),
    ("65-char player id", _with("players[0].id", "a" * 65), "validation"),
    ("empty player id", _with("players[0].id", ""), "validation"),
    ("a deal id with a NUL", _with("deal", "dl_\x00"), {"validation", "not-found"}),
    # wrong types everywhere
    *[
        (f"{field} = {value!r}", _with(field, value), kinds)
        for field, kinds in [
            ("rules", {"validation", "unknown-rules"}),
            ("table", "validation"),
            ("reference", "validation"),
            ("currency", "validation"),
            ("stake", "validation"),
            ("players", "validation"),
            ("pair_stakes", "validation"),
            ("players[0]", "validation"),
            ("players[0].id", "validation"),
            ("players[0].arrangement", "validation"),
            ("players[0].arrangement.front", {"validation", "invalid-cards"}),
            ("players[0].arrangement.front[0]", {"validation", "invalid-cards"}),
            ("players[0].surrender", {"validation"}),
            ("players[0].hand", {"validation", "invalid-cards"}),
        ]
        for value in (True, 1, 1.5, -1, [], {}, [None], "")
        if not (value == "" and field in ("table", "reference", "currency"))
        and not (value == [] and field in ("pair_stakes",))
        and not (isinstance(value, bool) and field.endswith("surrender"))
    ],
    *[(f"{field} = null", _with(field, None), "validation")
      for field in ("rules", "currency", "stake", "players", "players[0].id",
                    "players[0].arrangement.front[0]")],
]


@pytest.mark.parametrize(("label", "mutate", "kinds"), ROUND_CASES, ids=[c[0] for c in ROUND_CASES])
def test_hostile_round_bodies_are_422_and_write_nothing(http, tenant, unchanged, label, mutate, kinds):
    body = two_player_round()
    mutate(body)
    for path in ("/v1/rounds", "/v1/score"):
        assert_problem(post(http, tenant, body, path), 422, kinds)
    unchanged()


@pytest.mark.parametrize(
    "key",
    ["k\x01", "k\x7f", "new\tline", "é", "x" * 256, "", '""', "\u2028", "k\x00"],
    ids=["SOH", "DEL", "tab", "non-ASCII", "256 chars", "empty", "empty quoted", "U+2028", "NUL"],
)
def test_a_bad_idempotency_key_is_422_on_its_header_and_writes_nothing(http, tenant, unchanged, key):
    try:
        response = post(http, tenant, two_player_round(), **{"Idempotency-Key": key})
    except (ValueError, UnicodeEncodeError):
        pytest.skip("the test client refuses to send this header")
    body = assert_problem(response, 422, "validation")
    assert {e["field"] for e in body["errors"]} == {"header.Idempotency-Key"}
    unchanged()


@pytest.mark.parametrize(
    "path",
    ["/v1/rounds/%00", "/v1/rounds/a%0Ab", "/v1/rounds/%1B%5B31m", "/v1/rounds/" + "x" * 10_000,
     "/v1/rounds/..%2F..%2Fetc%2Fpasswd", "/v1/rounds/%F0%9F%92%A3", "/v1/rounds/%FF"],
    ids=["NUL", "newline", "escape", "10k chars", "traversal", "emoji", "bad UTF-8"],
)
def test_hostile_ids_in_paths_are_404(http, tenant, path):
    assert_problem(http.get(path, headers=tenant.headers), 404, "not-found")


@pytest.mark.parametrize(
    "query",
    ["limit=abc", "limit=0", "limit=501", "limit=-1", "limit=1e400", "limit=1.0", "limit=%00",
     "cursor=%00", "cursor=" + "A" * 600, "cursor=eyJ9", "since=yesterday", "until=2026-13-01T00:00:00Z",
     "table=%00", "table=a%0Ab", "player=" + "a" * 65, "reference=%1B"],
)
def test_hostile_query_parameters_are_422(http, tenant, query):
    body = assert_problem(http.get(f"/v1/rounds?{query}", headers=tenant.headers), 422, "validation")
    assert all(e["field"].startswith("query.") for e in body["errors"])


def test_hostile_headers_never_reach_a_500(http, tenant, unchanged):
    body = two_player_round()
    for headers in (
        {"Accept": "text/html"},
        {"Accept": "application/xml;q=1, */*;q=0"},
        {"Authorization": "Bearer " + "A" * 10_000},
    ):
        try:
            response = http.post("/v1/rounds", data=json.dumps(body), content_type="application/json",
                                 headers={**tenant.headers, **headers})
        except ValueError:
            continue
        assert 400 <= response.status_code < 500, (headers, response.status_code)
        assert response.headers["Content-Type"] == "application/problem+json"
    unchanged()


def test_a_hostile_request_id_is_replaced_not_echoed(http):
    response = http.get("/healthz", headers={"X-Request-ID": "\x1b[31m" + "x" * 500})
    assert response.status_code == 200
    assert response.headers["X-Request-ID"].isalnum() and len(response.headers["X-Request-ID"]) == 32


# --- text no database can store: NUL and unpaired surrogates, anywhere ------------------------


def leaves(value: Any, path: str = "") -> list[str]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaves(v, f"{path}[{i}]")]
    return [path] if isinstance(value, str) else []


@pytest.mark.parametrize("poison", ["\x00", "\ud800", "\udfff"], ids=["NUL", "high surrogate", "low surrogate"])
def test_nul_and_lone_surrogates_in_any_body_string_are_422_at_their_path(app, http, poison):
    owner = make_owner(app, http)
    before = table_counts(app)
    failures = []
    checked = 0
    for rule in post_routes(app):
        url, _ = concrete_path(rule, owner)
        sample = sample_body("POST", rule, owner, "poison")
        for leaf in leaves(sample or {}):
            body = copy.deepcopy(sample)
            _with(leaf, "a" + poison)(body)
            response = post(http, owner.tenant, body, url)
            checked += 1
            got = (response.status_code, (response.get_json(silent=True) or {}).get("type"))
            fields = [e["field"] for e in (response.get_json(silent=True) or {}).get("errors", [])]
            if got != (422, "/problems/validation") or fields != [leaf]:
                failures.append(f"POST {normalise(rule)} {leaf}: {got} {fields}")
        response = post(http, owner.tenant, {**(sample or {}), "k" + poison: 1}, url)
        if response.status_code != 422:
            failures.append(f"POST {normalise(rule)} with a poisoned key: {response.status_code}")
    assert checked >= 30
    assert table_counts(app) == before
    assert not failures, "\n".join(failures)


def test_nul_in_path_ids_and_query_values_of_every_route(app, http):
    owner = make_owner(app, http)
    failures = []
    for rule in sorted({r.rule for r in app.url_map.iter_rules() if r.rule.startswith("/v1/")}):
        methods = {m for r in app.url_map.iter_rules() if r.rule == rule for m in r.methods or ()}
        method = next(m for m in ("GET", "POST", "PUT") if m in methods)
        body = sample_body(method, rule, owner, "nul")
        if "<" in rule:
            url = _PARAM_RE.sub("%00", rule)
            response = http.open(url, method=method, json=body, headers=owner.tenant.headers)
            if (response.status_code, response.get_json()["type"]) != (404, "/problems/not-found"):
                failures.append(f"{method} {url}: {response.status_code}")
        url, _ = concrete_path(rule, owner)
        response = http.open(url + "?currency=%00&player=a%00", method=method, json=body,
                             headers=owner.tenant.headers)
        if (response.status_code, response.get_json()["type"]) != (422, "/problems/validation"):
            failures.append(f"{method} {url}?currency=%00: {response.status_code}")
    assert not failures, "\n".join(failures)


_PARAM_RE = __import__("re").compile(r"<[^>]+>")
