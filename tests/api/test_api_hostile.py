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


def test_unknown_fields_are_422_on_every_post_route(app, http):
    """A route that takes no body (a view link, a reveal, a commitment, a secret's rotation)
    read one and dropped its fields: `{"ttl": 5}` made a link of the default hour, 201."""
    owner = make_owner(app, http)
    before = table_counts(app)
    failures = []
    for rule in post_routes(app):
        url, _ = concrete_path(rule, owner)
        body = sample_body("POST", rule, owner, "hostile") or {}
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
    "path",
    ["/v1/ledger/players//statement?currency=IDR", "/v1/ledger/players/%2F/statement?currency=IDR",
     "/v1//rules", "/v1/rounds//verify", "//v1/rules"],
)
def test_a_doubled_slash_in_an_api_path_is_a_404_not_a_redirect_to_another_resource(http, tenant, path):
    """`/v1/ledger/players//statement` was redirected (an HTML 308) to the totals of a player
    named `statement`; an empty segment names nothing."""
    response = http.get(path, headers=tenant.headers)
    assert_problem(response, 404, "not-found")
    assert "Location" not in response.headers


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/v1/rounds//void"), ("POST", "/v1/rounds/%2F/void"), ("POST", "/v1/deals//reveal"),
     ("POST", "/v1/banting/games//moves"), ("POST", "/v1/webhooks//rotate-secret"), ("POST", "/v1/events//redeliver")],
)
def test_an_empty_id_in_a_write_path_is_a_404_not_a_wrong_method(http, tenant, method, path):
    """Werkzeug retried the path with its slashes merged (`/v1/rounds/void`), found a GET
    route there and answered 405 with that route's Allow: a client whose id came out
    empty was told to change its method."""
    response = http.open(path, method=method, json={}, headers=tenant.headers)
    assert_problem(response, 404, "not-found")
    assert "Allow" not in response.headers


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
            # a player's id is checked against the body's pattern (422 quoting it), a
            # resource's id is a 404 like any id that names nothing
            expected = (422, "/problems/validation") if "<id:" in rule else (404, "/problems/not-found")
            if (response.status_code, response.get_json()["type"]) != expected:
                failures.append(f"{method} {url}: {response.status_code}")
        url, _ = concrete_path(rule, owner)
        response = http.open(url + "?currency=%00&player=a%00", method=method, json=body,
                             headers=owner.tenant.headers)
        if (response.status_code, response.get_json()["type"]) != (422, "/problems/validation"):
            failures.append(f"{method} {url}?currency=%00: {response.status_code}")
    assert not failures, "\n".join(failures)


_PARAM_RE = __import__("re").compile(r"<[^>]+>")


# --- crafted query values: times at the edges of the range, forged cursors -------------------

LEDGER_ROUTES = ["/v1/rounds?", "/v1/ledger/players/a?currency=IDR&", "/v1/ledger/summary?currency=IDR&",
                 "/v1/ledger/entries?currency=IDR&", "/v1/ledger/players/a/statement?currency=IDR&"]
CSV_ROUTES = ("/v1/ledger/entries?", "/v1/ledger/players/a/statement?")
EDGE_TIMES = ["0001-01-01T00:00:00%2B14:00", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00%2B00:01"]


@pytest.mark.parametrize("csv", [False, True], ids=["json", "csv"])
@pytest.mark.parametrize("name", ["since", "until"])
@pytest.mark.parametrize("when", EDGE_TIMES, ids=["year 1 +14:00", "year 9999 -14:00", "year 1 +00:01"])
def test_times_beyond_the_utc_range_are_422_naming_the_parameter(http, tenant, when, name, csv):
    for route in LEDGER_ROUTES:
        if csv and not route.startswith(CSV_ROUTES):
            continue
        headers = {**tenant.headers, **({"Accept": "text/csv"} if csv else {})}
        body = assert_problem(http.get(f"{route}{name}={when}", headers=headers), 422, "validation")
        assert [e["field"] for e in body["errors"]] == [f"query.{name}"], (route, body)
        assert "0001-01-01 to 9999-12-31 UTC" in body["errors"][0]["message"]


def test_the_first_and_last_representable_instants_are_accepted(http, tenant):
    for route in LEDGER_ROUTES:
        url = f"{route}since=0001-01-01T00:00:00Z&until=9999-12-31T23:59:59.999999Z"
        response = http.get(url, headers=tenant.headers)
        assert response.status_code == 200, (route, response.get_data(as_text=True)[:300])


def _cursor(raw: str) -> str:
    import base64

    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


FORGED_CURSORS = {
    "an integer beyond 64 bits": '["2026-11-29T10:00:00+00:00", 18446744073709551616, 1]',
    "a huge negative integer": '["2026-11-29T10:00:00+00:00", -9223372036854775809, 0]',
    "a 400-digit integer": '["2026-11-29T10:00:00+00:00", ' + "9" * 400 + ", 0]",
    "a NUL": '["2026-11-29T10:00:00+00:00", "rnd_\\u0000", 1]',
    "a lone surrogate": '["2026-11-29T10:00:00+00:00", "\\ud800", 1]',
    "a NUL in the time": '["2026-11-29T10:00:00\\u0000+00:00", 1, 1]',
    "year 0 in UTC": '["0001-01-01T00:00:00+14:00", 1, 1]',
    "a float": '["2026-11-29T10:00:00+00:00", 1e400, 1]',
    "a boolean": '["2026-11-29T10:00:00+00:00", true, 1]',
}


@pytest.mark.parametrize("raw", list(FORGED_CURSORS.values()), ids=list(FORGED_CURSORS))
def test_forged_cursors_are_422_on_query_cursor(http, tenant, raw):
    for route, accept in (("/v1/rounds?", None), ("/v1/ledger/entries?currency=IDR&", None),
                          ("/v1/ledger/entries?currency=IDR&", "text/csv"),
                          ("/v1/ledger/players/a/statement?currency=IDR&", None),
                          ("/v1/ledger/players/a/statement?currency=IDR&", "text/csv")):
        headers = {**tenant.headers, **({"Accept": accept} if accept else {})}
        body = assert_problem(http.get(f"{route}cursor={_cursor(raw)}", headers=headers), 422, "validation")
        assert [e["field"] for e in body["errors"]] == ["query.cursor"], (route, body)


# --- unknown query parameters: 422 naming them, on every route --------------------------------


def test_unknown_query_parameters_are_422_naming_them_on_every_route(app, http):
    owner = make_owner(app, http)
    before = table_counts(app)
    failures = []
    checked = 0
    for rule in sorted({r.rule for r in app.url_map.iter_rules() if r.rule.startswith("/v1/")}):
        methods = {m for r in app.url_map.iter_rules() if r.rule == rule for m in r.methods or ()}
        for method in sorted(methods & {"GET", "POST"}):
            url, _ = concrete_path(rule, owner)
            body = sample_body(method, rule, owner, "unknownq")
            query = "currency=IDR&plyer=a" if rule.startswith("/v1/ledger") else "plyer=a"
            response = http.open(f"{url}?{query}", method=method, json=body, headers=owner.tenant.headers)
            checked += 1
            got = response.get_json(silent=True) or {}
            fields = [e["field"] for e in got.get("errors", [])]
            if response.status_code != 422 or fields != ["query.plyer"]:
                failures.append(f"{method} {normalise(rule)}: {response.status_code} {fields}")
    for path in ("/healthz", "/readyz"):
        response = http.get(f"{path}?verbose=1")
        if response.status_code != 422 or response.get_json()["errors"][0]["field"] != "query.verbose":
            failures.append(f"GET {path}: {response.status_code}")
    assert checked >= 20
    assert table_counts(app) == before
    assert not failures, "\n".join(failures)


def test_options_answers_whatever_the_query_since_it_reads_none(app, http):
    """OPTIONS was checked against the query names of a method it is not: every name was
    unknown, and the 422 said the route takes none."""
    owner = make_owner(app, http)
    for path in ("/v1/rounds?limit=5", "/v1/ledger/summary?currency=IDR", "/v1/score?x=1"):
        answer = http.open(path, method="OPTIONS", headers=owner.tenant.headers)
        assert answer.status_code == 200 and "OPTIONS" in answer.headers["Allow"], (path, answer.status_code)


def test_a_misspelt_filter_no_longer_answers_every_players_lines(http, tenant):
    body = assert_problem(
        http.get("/v1/ledger/entries?currency=IDR&plyer=a", headers=tenant.headers), 422, "validation"
    )
    assert body["errors"] == [{
        "field": "query.plyer",
        "message": "unknown query parameter (this route takes: currency, cursor, limit, min_sequence, player, round, "
                   "since, tz, until)",
    }]
    body = assert_problem(http.get("/v1/ledger/summary?currency=IDR&sinse=2026-01-01T00:00:00Z",
                                   headers=tenant.headers), 422, "validation")
    assert [e["field"] for e in body["errors"]] == ["query.sinse"]


def test_a_query_parameter_given_twice_is_422(http, tenant):
    body = assert_problem(http.get("/v1/ledger/entries?currency=IDR&player=a&player=b", headers=tenant.headers),
                          422, "validation")
    assert body["errors"] == [{"field": "query.player", "message": "given more than once"}]


# --- identifiers and money match whole strings: no trailing newline ---------------------------


TRAILING_NEWLINE = [
    ("players[0].id", "a\n"),
    ("table", "table-7\n"),
    ("reference", "ref-1\n"),
    ("stake", "1000\n"),
    ("currency", "IDR\n"),
    ("pair_stakes", [{"players": ["a", "b"], "stake": "500\n"}]),
    ("rules", {"preset": "capsa-susun-id", "params": {"fee_rate": "0.03\n"}}),
    ("deal", "dl_1\n"),
]


@pytest.mark.parametrize(("field", "value"), TRAILING_NEWLINE, ids=[f for f, _ in TRAILING_NEWLINE])
def test_a_trailing_newline_is_refused_in_every_pattern_checked_field(http, tenant, unchanged, field, value):
    body = two_player_round()
    _with(field, value)(body)
    for path in ("/v1/rounds", "/v1/score"):
        problem = assert_problem(post(http, tenant, body, path), 422, {"validation", "unknown-rules"})
        assert problem["errors"], problem
        assert all(e["field"].startswith(field.split("[")[0]) for e in problem["errors"]), problem
    unchanged()


def test_player_a_and_a_newline_are_not_two_accounts(http, tenant, unchanged):
    body = two_player_round()
    body["players"][1]["id"] = "a\n"
    problem = assert_problem(post(http, tenant, body), 422, "validation")
    assert [e["field"] for e in problem["errors"]] == ["players[1].id"]
    unchanged()


def test_trailing_newlines_in_query_ids_and_headers_are_refused(http, tenant):
    for query in ("table=t%0A", "player=a%0A", "reference=r%0A"):
        problem = assert_problem(http.get(f"/v1/rounds?{query}", headers=tenant.headers), 422, "validation")
        assert [e["field"] for e in problem["errors"]] == [f"query.{query.split('=')[0]}"]
    problem = assert_problem(http.get("/v1/ledger/entries?currency=IDR&player=a%0A", headers=tenant.headers),
                             422, "validation")
    assert [e["field"] for e in problem["errors"]] == ["query.player"]


def test_a_request_id_with_a_trailing_newline_is_replaced(app):
    from flask import g

    from service.api.observability import init_request

    # The test client refuses a newline in a header; a server may pass one (obs-fold, bytes).
    for incoming, kept in (("abc-1", True), ("abc-1\n", False)):
        with app.test_request_context("/healthz", environ_base={"HTTP_X_REQUEST_ID": incoming}):
            init_request()
            assert (g.request_id == incoming) is kept, g.request_id
            assert kept or len(g.request_id) == 32


def test_a_client_name_with_a_trailing_newline_is_refused(app):
    from service.services import clients
    from service.services.errors import InvalidInput

    with pytest.raises(InvalidInput, match="client name 'ops\\\\n'"):
        clients.create_client(app.extensions["capsa"].db, "ops\n")


# --- money: amounts beyond 10^18 minor units are refused, at the bound accepted ---------------

BIG_STAKE = "1000000000000000"  # 10^15 IDR: the largest stake


def _bonus_round(bonus: int, **overrides: Any) -> dict[str, Any]:
    """a sweeps b (3 rows x 2) with three of a kind in front worth `bonus`: 6 + bonus points."""
    rules = {"preset": "capsa-susun-id", "params": {"bonus": {"front.three_of_a_kind": bonus}}}
    return two_player_round(rules=rules, stake=BIG_STAKE, **overrides)


def test_a_round_whose_pair_amount_passes_10_18_is_422_on_stake_and_writes_nothing(http, tenant, unchanged):
    for path in ("/v1/score", "/v1/rounds"):
        problem = assert_problem(post(http, tenant, _bonus_round(995), path), 422, "validation")
        assert problem["errors"] == [{
            "field": "stake",
            "message": "a pair amount of this round would be 1001000000000000000 minor units, beyond the "
                       "limit of 10^18: lower the stake",
        }]
    # 10^15 IDR x 10,006 points: the issue's 1e19-scale round that scored but could not be stored
    problem = assert_problem(post(http, tenant, _bonus_round(10_000)), 422, "validation")
    assert "10006000000000000000 minor units" in problem["detail"]
    unchanged()


def test_a_pair_stake_whose_amount_passes_10_18_is_422_on_that_pair_stake(http, tenant, unchanged):
    """The round's own stake is 1: the amount beyond the limit is the pair's, so the field
    named is its stake in `pair_stakes` (`stake` was named before, whatever the cause)."""
    body = {**_bonus_round(995), "stake": "1", "pair_stakes": [{"players": ["a", "b"], "stake": BIG_STAKE}]}
    for path in ("/v1/score", "/v1/rounds"):
        problem = assert_problem(post(http, tenant, body, path), 422, "validation")
        assert problem["errors"] == [{
            "field": "pair_stakes[0].stake",
            "message": "a pair amount of this round would be 1001000000000000000 minor units, beyond the "
                       "limit of 10^18: lower the stake",
        }]
    unchanged()


def test_a_round_at_exactly_10_18_and_a_stake_of_exactly_10_15_are_stored(http, tenant):
    response = post(http, tenant, _bonus_round(994))
    assert response.status_code == 201, response.get_data(as_text=True)
    doc = response.get_json()
    assert doc["stake"] == BIG_STAKE
    assert [(p["points"], p["result"], p["winnings"], p["fee"], p["net"]) for p in doc["players"]] == [
        (1000, "1000000000000000000", "1000000000000000000", "30000000000000000", "970000000000000000"),
        (-1000, "-1000000000000000000", "0", "0", "-1000000000000000000"),
    ]
    assert doc["house_fee"] == "30000000000000000"


def test_ledgers_sum_many_rounds_near_the_bound_without_overflow(http, tenant):
    n = 12  # 12 x 10^18 is beyond 2^63 (9.2 x 10^18): SQLite's sum() overflowed, answered 503
    for _ in range(n):
        assert post(http, tenant, _bonus_round(994, table="big")).status_code == 201
    h = tenant.headers
    player = http.get("/v1/ledger/players/a?currency=IDR", headers=h)
    assert player.status_code == 200, player.get_data(as_text=True)
    assert player.get_json() == {
        "player": "a", "currency": "IDR", "rounds": n, "points": 1000 * n,
        "result": str(n * 10**18), "winnings": str(n * 10**18),
        "fees": str(n * 3 * 10**16), "net": str(n * 97 * 10**16),
        "as_of": {**player.get_json()["as_of"], "sequence": n, "source": "primary"},
    }
    summary = http.get("/v1/ledger/summary?currency=IDR", headers=h).get_json()
    assert summary["rows"] == [
        {"key": "a", "rounds": n, "result": str(n * 10**18), "fees": str(n * 3 * 10**16),
         "net": str(n * 97 * 10**16)},
        {"key": "b", "rounds": n, "result": str(-n * 10**18), "fees": "0", "net": str(-n * 10**18)},
    ]
    assert summary["house_fee"] == str(n * 3 * 10**16)
    by_table = http.get("/v1/ledger/summary?currency=IDR&group_by=table", headers=h).get_json()
    assert by_table["rows"] == [{"key": "big", "rounds": n, "result": "0", "fees": str(n * 3 * 10**16),
                                 "net": str(-n * 3 * 10**16)}]
    by_day = http.get("/v1/ledger/summary?currency=IDR&group_by=day", headers=h).get_json()
    assert [(r["rounds"], r["fees"]) for r in by_day["rows"]] == [(n, str(n * 3 * 10**16))]


def test_an_integer_overflow_is_never_answered_503(app, http, tenant, monkeypatch):
    """A permanent error (sum() past 2^63 on SQLite) is a 500 without Retry-After, never 503."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from service.adapters import ledger as ledger_adapter

    def overflow(*_: Any, **__: Any) -> Any:
        raise OperationalError("SELECT sum(...)", {}, sqlite3.OperationalError("integer overflow"))

    monkeypatch.setattr(ledger_adapter.LedgerRepository, "player_totals", overflow)
    response = http.get("/v1/ledger/players/a?currency=IDR", headers=tenant.headers)
    body = assert_problem(response, 500, "internal")
    assert "Retry-After" not in response.headers
    assert "retrying will not help" in body["detail"]


# --- headers: two Idempotency-Keys, weak ETags -----------------------------------------------


@pytest.mark.parametrize("keys", [("k1", "k2"), ('"k1"', '"k2"'), ("k1", '"k2"')], ids=["bare", "quoted", "mixed"])
def test_two_idempotency_key_headers_are_422_on_the_header(http, tenant, unchanged, keys):
    headers = [("Authorization", tenant.headers["Authorization"]), *(("Idempotency-Key", k) for k in keys)]
    response = http.post("/v1/rounds", data=json.dumps(two_player_round()), content_type="application/json",
                         headers=headers)
    body = assert_problem(response, 422, "validation")
    assert [e["field"] for e in body["errors"]] == ["header.Idempotency-Key"]
    assert "more than once" in body["detail"]
    unchanged()


@pytest.mark.parametrize("joined", ["k1,k2", "k1, k2", '"k1","k2"', '"a\\"b"'])
def test_a_joined_or_broken_idempotency_key_is_refused_as_gunicorn_joins_them(joined):
    from service.api.headers import parse_key
    from service.services.errors import InvalidInput

    with pytest.raises(InvalidInput) as refused:
        parse_key(joined)
    assert [e.field for e in refused.value.errors] == ["header.Idempotency-Key"]
    assert parse_key('"k1,k2"') == "k1,k2"  # one quoted key may hold a comma


# --- chunked bodies over the limit: 413, not cut to 64 KiB -----------------------------------


def _chunked(http: Any, tenant: Any, data: bytes, path: str = "/v1/score") -> Any:
    import io

    # What gunicorn gives the app for `Transfer-Encoding: chunked`: no Content-Length, and a
    # stream it terminates itself (wsgi.input_terminated).
    return http.post(path, input_stream=io.BytesIO(data), headers={
        **tenant.headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked",
    }, environ_overrides={"wsgi.input_terminated": True})


def test_a_chunked_body_over_64_kib_is_413_not_cut(http, tenant, unchanged):
    valid = json.dumps(two_player_round()).encode()
    for path in ("/v1/score", "/v1/rounds"):
        body = assert_problem(_chunked(http, tenant, valid + b" " * (10 << 20), path), 413, "payload-too-large")
        assert body["detail"] == "the request body is over the limit of 64 KiB"
        assert_problem(_chunked(http, tenant, valid + b" " * (65_537 - len(valid)), path), 413,
                       "payload-too-large")
    unchanged()


def test_a_chunked_body_of_exactly_64_kib_is_read_whole(http, tenant):
    valid = json.dumps(two_player_round()).encode()
    response = _chunked(http, tenant, valid + b" " * (65_536 - len(valid)))
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.get_json()["players"][0]["points"] == 11
