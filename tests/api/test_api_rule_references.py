"""A rule reference of the wrong JSON type is a 422 naming its exact field, on every route.

The routes are every one whose body schema has a `rules` field (found in `app.url_map`, so
a route added later is covered too), each sent its own documented example with only the
rule reference changed. Each field of the reference (`preset`, `version`, `params`) and a
parameter of each declared type (integer, boolean, choice, list, object, decimal string) is
given every JSON value of another type: the answer is one error at `rules.<field>` whose
message quotes the value, never a 500 and never a 2xx that ignored it. Both engines.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from service.domain.errors import quoted

SUSUN_PRESET, BANTING_PRESET = "capsa-susun-id", "capsa-banting-id"

# (where in the reference, the values of another JSON type)
INTEGER = [True, 1.0, 2.5, "2", None, [], {}, [2]]
REFERENCE = [
    ("version", [{}, [], [1], 1.0, "1", True, None]),
    ("params", [None, [], "x", 1, True]),
]
SUSUN_PARAMS = [
    ("params.tembus_multiplier", INTEGER),
    ("params.suit_tiebreak", [1, 0, "true", None, [], {}]),
    ("params.wheel", [1, True, None, [], {}, ["low"]]),
    ("params.naturals", [{}, "dragon", 1, None]),
    ("params.row_points", [{}, "1,2,6", 1, None, [1, 2, 2.0], [1, 2, True]]),
    ("params.bonus", [[], "x", 1, None]),
    ("params.fee_rate", [0.05, None, [], {}]),
]
BANTING_PARAMS = [
    ("params.double_at", INTEGER),
    ("params.bomb_ends_game", [1, 0, "true", None, [], {}]),
    ("params.straights", [1, True, None, [], {}]),
    ("params.fee_rate", [0.05, None, [], {}]),
]


def routes_taking_rules(app: Any) -> list[tuple[str, dict[str, Any]]]:
    """(path, documented example body) of every route whose body schema takes `rules`."""
    found = []
    for rule in app.url_map.iter_rules():
        view_class = getattr(app.view_functions[rule.endpoint], "view_class", None)
        for method in sorted(rule.methods or ()):
            function = getattr(view_class, method.lower(), None)
            for parameter in getattr(function, "_apidoc", {}).get("arguments", {}).get("parameters", []):
                schema = parameter["schema"]
                schema = schema() if isinstance(schema, type) else schema
                if parameter.get("in") == "json" and "rules" in schema.fields:
                    assert method == "POST" and "<" not in rule.rule, rule.rule
                    found.append((rule.rule, parameter["example"]))
    return sorted(found, key=lambda route: route[0])


def test_the_routes_that_take_rules_are_the_ones_this_suite_expects(app):
    assert [path for path, _ in routes_taking_rules(app)] == [
        "/v1/arrangements/evaluate",
        "/v1/arrangements/suggest",
        "/v1/banting/games",
        "/v1/banting/matches",
        "/v1/banting/plays/evaluate",
        "/v1/rounds",
        "/v1/score",
        "/v1/susun/games",
    ]


def reference(path: str, where: str, value: Any) -> dict[str, Any]:
    ref: dict[str, Any] = {"preset": BANTING_PRESET if path.startswith("/v1/banting/") else SUSUN_PRESET}
    if where.startswith("params."):
        ref["params"] = {where.removeprefix("params."): value}
    else:
        ref[where] = value
    return ref


def failures_over(app: Any, http: Any, tenant: Any, cases: list[tuple[str, list[Any]]], game: str | None) -> list[str]:
    failures = []
    for path, example in routes_taking_rules(app):
        if game is not None and path.startswith("/v1/banting/") != (game == "banting"):
            continue
        for where, values in cases:
            for value in values:
                body = copy.deepcopy(example)
                body["rules"] = reference(path, where, value)
                response = http.post(path, json=body, headers=tenant.headers)
                problem = response.get_json(silent=True) or {}
                errors = [(e["field"], quoted(value) in e["message"]) for e in problem.get("errors", [])]
                if (
                    response.status_code != 422
                    or response.headers["Content-Type"] != "application/problem+json"
                    or errors != [(f"rules.{where}", True)]
                ):
                    failures.append(f"{path} rules.{where}={value!r}: {response.status_code} {problem}")
    return failures


def test_each_field_of_a_rule_reference_of_the_wrong_type_is_a_422_naming_it_on_every_route(app, http, tenant):
    assert failures_over(app, http, tenant, REFERENCE, None) == []


@pytest.mark.parametrize("game, cases", [("susun", SUSUN_PARAMS), ("banting", BANTING_PARAMS)])
def test_a_parameter_of_each_type_given_another_json_type_is_a_422_naming_it_on_every_route(
    app, http, tenant, game, cases
):
    assert failures_over(app, http, tenant, cases, game) == []


def test_each_route_takes_its_example_with_a_full_reference_so_the_422s_above_are_the_references(app, http, tenant):
    for path, example in routes_taking_rules(app):
        body = copy.deepcopy(example)
        preset = BANTING_PRESET if path.startswith("/v1/banting/") else SUSUN_PRESET
        body["rules"] = {"preset": preset, "version": 1, "params": {"fee_rate": "0.05"}}
        if "reference" in body:
            body["reference"] = f"{body['reference']}-refs"
        response = http.post(path, json=body, headers=tenant.headers)
        assert response.status_code in (200, 201), (path, response.get_json())
