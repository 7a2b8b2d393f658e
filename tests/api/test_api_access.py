"""Access matrix: every /v1 route x {owner, other client, read key, no key, revoked, malformed}.

The routes are read from `app.url_map`, so endpoints added later are covered without editing
this file: path parameters are filled with the owner's resources (by the path segment before
them), bodies are sample requests (an unknown route gets `{}`). Expected, per docs/api.md#authentication-and-scopes:

- no key, a revoked key, a malformed Authorization header: 401 `unauthorized` with
  `WWW-Authenticate: Bearer`, and nothing written;
- a read key on a writing endpoint: 403 `forbidden`, and nothing written (row counts of every
  table); on a reading one (every GET and the few read POSTs): not 401/403;
- another client (write or read key): 404 `not-found` on any route naming the owner's
  resource, and no response anywhere carries the owner's data (its round ids, player ids,
  table and reference are unique markers): zero cross-client successes;
- the owner: a success on every route it has a sample for, never 401/403.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conftest import make_tenant
from httpkit import SWEEP_A, SWEPT_B

from service.services import clients

# docs/api.md#authentication-and-scopes: a read key may call every GET and these POSTs; every other POST is 403.
READ_POSTS = {
    "/v1/score",
    "/v1/arrangements/evaluate",
    "/v1/arrangements/suggest",
    "/v1/banting/plays/evaluate",
    "/v1/rounds/<round>/view-link",
    "/v1/rounds/<round>/verify",
}
# docs/api.md#authentication-and-scopes: the GETs that answer a player's cards of a game in
# play need a write key (403 for a read key, as a writing route).
WRITE_GETS = {
    "/v1/susun/games/<sgame>/hands/<splayer>",
    "/v1/banting/games/<game>/hands/<x>",
}
MALFORMED = ["Bearer", "Basic dXNlcjpwYXNz", "Bearer capsa_zz_short", "capsa_00000000_" + "A" * 43]
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
HAND = ["As", "Ks", "Qs", "Js", "Ts", "9h", "9d", "8c", "8s", "7h", "2d", "3c", "4c"]


@dataclass
class Owner:
    tenant: Any
    markers: list[str]
    ids: dict[str, str] = field(default_factory=dict)


def _round_body(mark: str, **extra: Any) -> dict[str, Any]:
    return {
        "rules": "capsa-susun-id",
        "table": f"tbl-{mark}",
        "reference": f"ref-{mark}-{secrets.token_hex(3)}",
        "currency": "IDR",
        "stake": "1000",
        "players": [
            {"id": f"pa-{mark}", "arrangement": SWEEP_A},
            {"id": f"pb-{mark}", "arrangement": SWEPT_B},
        ],
        **extra,
    }


def _banting_body(mark: str) -> dict[str, Any]:
    return {
        "rules": "capsa-banting-id",
        "currency": "IDR",
        "stake": "1000",
        "table": f"tbl-{mark}",
        "players": [{"id": f"p{k}-{mark}", "hand": DECK[13 * k : 13 * k + 13]} for k in range(4)],
    }


def _match_body(mark: str) -> dict[str, Any]:
    body = _banting_body(mark)
    return {**body, "players": [p["id"] for p in body["players"]]}
def _susun_game_body(mark: str) -> dict[str, Any]:
    return {"players": [f"sa-{mark}", f"sb-{mark}"], "currency": "IDR", "stake": "1000",
            "table": f"tbl-{mark}", "arrange_seconds": 600}


def sample_body(method: str, rule: str, owner: Owner, mark: str) -> dict[str, Any] | None:
    """A sample body for this route; None when the route takes none."""
    if method == "GET":
        return None
    bodies: dict[str, Callable[[], dict[str, Any]]] = {
        "/v1/score": lambda: _round_body(mark),
        "/v1/rounds": lambda: _round_body(mark),
        "/v1/arrangements/evaluate": lambda: {"arrangement": SWEEP_A},
        "/v1/arrangements/suggest": lambda: {"hand": HAND, "limit": 1},
        "/v1/rounds/<round>/void": lambda: {"reason": "access matrix"},
        "/v1/rounds/<round>/view-link": lambda: {},
        "/v1/deals": lambda: {"players": [f"p{k}-{mark}" for k in range(4)], "client_seed": mark},
        "/v1/deals/<deal>/reveal": lambda: {},
        "/v1/banting/plays/evaluate": lambda: {"cards": ["3d"]},
        "/v1/banting/games": lambda: _banting_body(mark),
        "/v1/banting/games/<game>/moves": lambda: {"player": f"p0-{owner_mark(owner)}", "play": ["3d"]},
        "/v1/banting/matches": lambda: _match_body(mark),
        "/v1/banting/matches/<match>/games": lambda: {"players": _banting_body(owner_mark(owner))["players"]},
        "/v1/susun/games": lambda: _susun_game_body(mark),
        "/v1/susun/games/<sgame>/arrangements/<splayer>": lambda: {"arrangement": SWEEP_A},
        "/v1/webhooks": lambda: {"url": f"https://wallet.example.com/{mark}", "events": ["*"]},
        "/v1/webhooks/<webhook>": lambda: {"description": mark},
        "/v1/banting/games/<game>/hint": lambda: {"player": f"p0-{owner_mark(owner)}"},
    }
    maker = bodies.get(normalise(rule))
    return maker() if maker else {}


def owner_mark(owner: Owner) -> str:
    return owner.markers[0]


_PARAM = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


def normalise(rule: str) -> str:
    """`/v1/rounds/<string:round_id>/void` -> `/v1/rounds/<round>/void` (by the segment before)."""
    parts = rule.split("/")
    out = []
    for i, part in enumerate(parts):
        if _PARAM.fullmatch(part):
            before = parts[i - 1] if i else ""
            if parts[1:3] == ["v1", "susun"]:  # a Capsa Susun game and one of its players
                before = {"games": "sgames", "arrangements": "splayers", "hands": "splayers"}.get(before, before)
            out.append("<" + {"rounds": "round", "games": "game", "deals": "deal", "records": "sequence",
                              "players": "player", "matches": "match", "sgames": "sgame", "splayers": "splayer",
                              "webhooks": "webhook", "events": "event"}.get(before, "x") + ">")
        else:
            out.append(part)
    return "/".join(out)


def concrete_path(rule: str, owner: Owner) -> tuple[str, bool]:
    """The URL with the owner's resources in it, and whether it names one of them."""
    names_resource = False
    parts = normalise(rule).split("/")
    for i, part in enumerate(parts):
        if part.startswith("<"):
            kind = part[1:-1]
            value = owner.ids.get(kind)
            if value is None:
                value = f"nothing-{secrets.token_hex(3)}"
            elif kind in ("round", "game", "deal", "match", "sgame", "webhook", "event"):
                names_resource = True
            parts[i] = value
    return "/".join(parts), names_resource


def query_of(rule: str) -> str:
    n = normalise(rule)
    if n.startswith("/v1/ledger/"):
        return "?currency=IDR"
    return ""


def v1_routes(app: Any) -> list[tuple[str, str]]:
    routes = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/v1/"):
            continue
        for method in sorted(rule.methods or ()):
            if method in METHODS:
                routes.append((method, rule.rule))
    return sorted(set(routes))


def table_counts(app: Any) -> dict[str, int]:
    from sqlalchemy import inspect, text

    engine = app.extensions["capsa"].db.engine
    with engine.connect() as conn:
        names = inspect(conn).get_table_names()
        return {
            n: int(conn.execute(text(f'SELECT count(*) FROM "{n}"')).scalar() or 0)
            for n in names
            if n != "alembic_version"
        }


def make_owner(app: Any, http: Any) -> Owner:
    tenant = make_tenant(app)
    mark = f"own{secrets.token_hex(4)}"
    owner = Owner(tenant, [mark])
    headers = tenant.headers
    made = http.post("/v1/rounds", json=_round_body(mark), headers=headers)
    assert made.status_code == 201, made.get_data(as_text=True)
    doc = made.get_json()
    owner.ids["round"] = doc["id"]
    owner.markers += [doc["id"], doc["reference"]]
    owner.ids["player"] = f"pa-{mark}"
    owner.ids["sequence"] = "1"
    deal = http.post("/v1/deals", json={"players": ["x1", "x2"], "client_seed": mark}, headers=headers)
    if deal.status_code == 201:
        owner.ids["deal"] = deal.get_json()["id"]
        owner.markers.append(owner.ids["deal"])
    hook = http.post("/v1/webhooks", json={"url": f"https://wallet.example.com/{mark}", "events": ["*"]},
                     headers=headers)
    assert hook.status_code == 201, hook.get_data(as_text=True)
    owner.ids["webhook"] = hook.get_json()["id"]
    owner.ids["event"] = "evt_" + doc["id"].removeprefix("rnd_") + "_settled"
    owner.markers.append(owner.ids["webhook"])
    game = http.post("/v1/banting/games", json=_banting_body(mark), headers=headers)
    if game.status_code == 201:
        owner.ids["game"] = game.get_json()["id"]
        owner.markers.append(owner.ids["game"])
    match = http.post("/v1/banting/matches", json=_match_body(mark), headers=headers)
    if match.status_code == 201:
        owner.ids["match"] = match.get_json()["id"]
        owner.markers.append(owner.ids["match"])
    susun = http.post("/v1/susun/games", json=_susun_game_body(mark), headers=headers)
    assert susun.status_code == 201, susun.get_data(as_text=True)
    owner.ids["sgame"] = susun.get_json()["id"]
    owner.ids["splayer"] = f"sa-{mark}"
    owner.markers.append(owner.ids["sgame"])
    return owner


def test_access_matrix_over_every_v1_route(app, http):
    owner = make_owner(app, http)
    other = make_tenant(app)
    db = app.extensions["capsa"].db
    revoked_key = clients.add_key(db, owner.tenant.name, clients.Scope.WRITE)
    clients.revoke_key(db, revoked_key.split("_")[1])

    routes = v1_routes(app)
    assert len(routes) >= 6, routes
    failures: list[str] = []
    cross_client_successes = read_key_writes = 0

    def call(method: str, url: str, body: Any, authorization: str | None) -> Any:
        headers = {} if authorization is None else {"Authorization": authorization}
        if body is None:
            return http.open(url, method=method, headers=headers)
        return http.open(url, method=method, json=body, headers=headers)

    def leaks(response: Any, url: str) -> list[str]:
        # An id the caller put in the URL may be echoed back ("no round 'rnd_...'").
        text = response.get_data(as_text=True)
        return [m for m in owner.markers if m in text and m not in url]

    # The owner's own calls run last: they may change the resources (a void, a move).
    for method, rule in routes:
        url, names_resource = concrete_path(rule, owner)
        url += query_of(rule)
        name = f"{method} {rule}"
        writing = normalise(rule) in WRITE_GETS if method == "GET" else normalise(rule) not in READ_POSTS

        for label, authorization in [("no key", None), ("revoked key", f"Bearer {revoked_key}")] + [
            (f"malformed {m!r}", m) for m in MALFORMED
        ]:
            before = table_counts(app)
            response = call(method, url, sample_body(method, rule, owner, "x"), authorization)
            after = table_counts(app)
            if response.status_code != 401:
                failures.append(f"{name} with {label}: {response.status_code}, expected 401")
            elif not response.headers.get("WWW-Authenticate", "").startswith("Bearer"):
                failures.append(f"{name} with {label}: 401 without WWW-Authenticate: Bearer")
            elif response.get_json()["type"] != "/problems/unauthorized":
                failures.append(f"{name} with {label}: problem {response.get_json()['type']}")
            if before != after:
                failures.append(f"{name} with {label}: wrote rows {diff(before, after)}")

        # The owner's read key.
        before = table_counts(app)
        response = call(method, url, sample_body(method, rule, owner, owner_mark(owner)),
                        f"Bearer {owner.tenant.read_key}")
        after = table_counts(app)
        if writing:
            if response.status_code != 403 or response.get_json()["type"] != "/problems/forbidden":
                failures.append(f"{name} with a read key: {response.status_code}, expected 403")
            if before != after:
                read_key_writes += 1
                failures.append(f"{name} with a read key: wrote rows {diff(before, after)}")
        elif response.status_code in (401, 403) or response.status_code >= 500:
            failures.append(f"{name} with a read key: {response.status_code}, expected it allowed")

        # Another client, with its write key and with its read key.
        for label, authorization in (("other client", f"Bearer {other.key}"),
                                     ("other client's read key", f"Bearer {other.read_key}")):
            response = call(method, url, sample_body(method, rule, owner, f"oth{secrets.token_hex(3)}"),
                            authorization)
            status = response.status_code
            if status >= 500:
                failures.append(f"{name} as {label}: {status}")
            if names_resource:
                if status != 404 or response.get_json()["type"] != "/problems/not-found":
                    failures.append(f"{name} as {label}: {status} on the owner's resource, expected 404")
                    cross_client_successes += 200 <= status < 300
            found = leaks(response, url)
            if found:
                cross_client_successes += 1
                failures.append(f"{name} as {label}: {status} shows the owner's data {found}")

    for method, rule in routes:
        url, _ = concrete_path(rule, owner)
        url += query_of(rule)
        response = call(method, url, sample_body(method, rule, owner, owner_mark(owner) + "o"),
                        f"Bearer {owner.tenant.key}")
        status = response.status_code
        if status in (401, 403) or status >= 500:
            failures.append(f"{method} {rule} as the owner: {status}")

    assert cross_client_successes == 0 and read_key_writes == 0, "\n".join(failures)
    assert not failures, "\n".join(failures)


def diff(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)
            if after.get(k, 0) != before.get(k, 0)}


def test_the_matrix_covers_every_documented_v1_operation(app):
    """The routes walked above are exactly the /v1 operations of the OpenAPI document."""
    import yaml

    spec = yaml.safe_load(app.extensions["capsa"].spec_yaml)
    documented = {
        (method.upper(), re.sub(r"\{[^}]+\}", "<p>", path))
        for path, item in spec["paths"].items()
        if path.startswith("/v1/")
        for method in item
        if method.upper() in METHODS
    }
    walked = {(m, _PARAM.sub("<p>", r)) for m, r in v1_routes(app)}
    assert documented <= walked
