"""Conditional reads of the versioned resources (RFC 9110 section 13): a Big Two game, a Big
Two match and a Capsa Susun game answer `ETag: "<version>"`; a GET with `If-None-Match`
naming the current version is 304 without a body (a client polling for the next move pays
no body until there is one), and a GET with an `If-Match` that names another version is 412,
as a write's is."""

from __future__ import annotations

from typing import Any

import pytest
from banting_scripts import FOUR
from httpkit import fields_of, problem

BANTING_GAME = {
    "currency": "IDR",
    "stake": "1000",
    "table": "table-7",
    "players": [{"id": pid, "hand": hand.split()} for pid, hand in FOUR.items()],
}
MATCH = {**{k: v for k, v in BANTING_GAME.items() if k != "players"}, "players": list(FOUR), "target_points": 50}
SUSUN_GAME = {
    "rules": "capsa-susun-id",
    "players": ["a", "b", "c", "d"],
    "currency": "IDR",
    "stake": "1000",
    "table": "table-7",
    "client_seed": "table-7:hand-1",
    "arrange_seconds": 60,
}


def made(http: Any, tenant: Any, kind: str) -> str:
    """A new resource of `kind` at version 1: the path to GET it."""
    path, body = {
        "banting-game": ("/v1/banting/games", BANTING_GAME),
        "banting-match": ("/v1/banting/matches", MATCH),
        "susun-game": ("/v1/susun/games", SUSUN_GAME),
    }[kind]
    answer = http.post(path, json=body, headers=tenant.headers)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert answer.headers["ETag"] == '"1"'
    return str(answer.headers["Location"])


def bump(http: Any, tenant: Any, kind: str, path: str) -> None:
    """Raise the resource to version 2 (a move, a game of the match, a submission)."""
    if kind == "banting-game":
        answer = http.post(f"{path}/moves", json={"player": "a", "play": ["3d"]}, headers=tenant.headers)
    elif kind == "banting-match":
        body = {"players": [{"id": pid, "hand": hand.split()} for pid, hand in FOUR.items()]}
        answer = http.post(f"{path}/games", json=body, headers=tenant.headers)
    else:
        hand = http.get(f"{path}/hands/a", headers=tenant.headers).get_json()["hand"]
        rows = {"front": hand[:3], "middle": hand[3:8], "back": hand[8:]}
        answer = http.put(f"{path}/arrangements/a", json={"arrangement": rows}, headers=tenant.headers)
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)
    assert http.get(path, headers=tenant.headers).headers["ETag"] == '"2"'


KINDS = ("banting-game", "banting-match", "susun-game")


@pytest.mark.parametrize("kind", KINDS)
def test_if_none_match_on_the_current_version_is_304_without_a_body(http, tenant, kind):
    path = made(http, tenant, kind)
    for tag in ('"1"', 'W/"1"', '"9", "1"', "*"):
        answer = http.get(path, headers={**tenant.headers, "If-None-Match": tag})
        assert answer.status_code == 304, (tag, answer.get_data(as_text=True))
        assert answer.get_data() == b""
        assert answer.headers["ETag"] == '"1"'
        assert answer.headers["Cache-Control"] == "no-store"
        assert "Authorization" in answer.headers["Vary"]
    bump(http, tenant, kind, path)
    answer = http.get(path, headers={**tenant.headers, "If-None-Match": '"1"'})
    assert answer.status_code == 200 and answer.headers["ETag"] == '"2"'
    assert answer.get_json()["version"] == 2


@pytest.mark.parametrize("kind", KINDS)
def test_if_match_on_another_version_is_412_and_on_the_current_one_the_state(http, tenant, kind):
    path = made(http, tenant, kind)
    bump(http, tenant, kind, path)
    stale = http.get(path, headers={**tenant.headers, "If-Match": '"1"'})
    assert fields_of(problem(stale, 412, "precondition-failed")) == {"header.If-Match"}
    weak = http.get(path, headers={**tenant.headers, "If-Match": 'W/"2"'})  # compared strongly
    problem(weak, 412, "precondition-failed")
    for tag in ('"2"', '"1", "2"', "*"):
        answer = http.get(path, headers={**tenant.headers, "If-Match": tag})
        assert answer.status_code == 200 and answer.get_json()["version"] == 2, tag
    # If-Match is decided first: a failed one is 412 whatever If-None-Match says.
    both = http.get(path, headers={**tenant.headers, "If-Match": '"1"', "If-None-Match": '"2"'})
    problem(both, 412, "precondition-failed")


@pytest.mark.parametrize("kind", KINDS)
def test_tags_are_compared_as_text_and_empty_list_items_are_ignored(http, tenant, kind):
    """RFC 9110 compares entity tags character by character: "01" is not "1". A list may
    hold empty items (section 5.6.1.2), which are skipped."""
    path = made(http, tenant, kind)
    problem(http.get(path, headers={**tenant.headers, "If-Match": '"01"'}), 412, "precondition-failed")
    assert http.get(path, headers={**tenant.headers, "If-None-Match": '"01"'}).status_code == 200
    assert http.get(path, headers={**tenant.headers, "If-None-Match": '"1", '}).status_code == 304
    assert http.get(path, headers={**tenant.headers, "If-None-Match": ', "9",, "1"'}).status_code == 304
    assert http.get(path, headers={**tenant.headers, "If-Match": ', "1"'}).status_code == 200
    # Any quoted tag is a tag (RFC 9110 8.8.3): one this service never makes names no version.
    for tag in ('"-1"', '"1.0"', '"99999999999999999999"', '"v1"', '""', 'W/"x"'):
        problem(http.get(path, headers={**tenant.headers, "If-Match": tag}), 412, "precondition-failed")
        assert http.get(path, headers={**tenant.headers, "If-None-Match": tag}).status_code == 200, tag


@pytest.mark.parametrize("kind", KINDS)
def test_preconditions_do_not_hide_a_missing_resource_or_a_bad_header(http, tenant, kind):
    path = made(http, tenant, kind)
    missing = path.rsplit("/", 1)[0] + "/" + path.rsplit("/", 1)[1][:-4] + "zzzz"
    for header in ("If-None-Match", "If-Match"):
        problem(http.get(missing, headers={**tenant.headers, header: "*"}), 404, "not-found")
    bad = http.get(path, headers={**tenant.headers, "If-None-Match": "version one"})
    assert fields_of(problem(bad, 422, "validation")) == {"header.If-None-Match"}
    # Whatever the If-Match beside it: a stale one made it 412, so whether a malformed
    # header was named depended on the resource's version.
    for if_match in ('"999"', '"1"', "*"):
        bad = http.get(path, headers={**tenant.headers, "If-Match": if_match, "If-None-Match": "version one"})
        assert fields_of(problem(bad, 422, "validation")) == {"header.If-None-Match"}, if_match
