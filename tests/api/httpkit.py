"""Builders for the HTTP tests: round bodies from short strings, posting helpers."""

from __future__ import annotations

import copy
import secrets
from collections.abc import Iterator
from typing import Any

# The guide's 2-player capsa-susun-id example: a sweeps b with three of a kind in front,
# 3 x 2 + 5 = 11 points at 1000 IDR a point.
SWEEP_A = {
    "front": ["2c", "2d", "2h"],
    "middle": ["3s", "4d", "5c", "6h", "7d"],
    "back": ["8h", "Th", "Qh", "Kh", "4h"],
}
SWEPT_B = {
    "front": ["Ac", "Kd", "9s"],
    "middle": ["9h", "9d", "Jc", "Qc", "3c"],
    "back": ["Ts", "Td", "Js", "Jd", "5s"],
}


def rows(front: str, middle: str, back: str) -> dict[str, list[str]]:
    return {"front": front.split(), "middle": middle.split(), "back": back.split()}


def two_player_round(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "rules": "capsa-susun-id",
        "table": "table-7",
        "reference": f"ref-{secrets.token_hex(6)}",
        "currency": "IDR",
        "stake": "1000",
        "players": [
            {"id": "a", "arrangement": copy.deepcopy(SWEEP_A)},
            {"id": "b", "arrangement": copy.deepcopy(SWEPT_B)},
        ],
    }
    body.update(overrides)
    return body


def four_player_round(**overrides: Any) -> dict[str, Any]:
    """The worked 4-player example shipped in service/examples."""
    body: dict[str, Any] = {
        "rules": "capsa-susun-id",
        "table": "table-9",
        "reference": f"ref-{secrets.token_hex(6)}",
        "currency": "IDR",
        "stake": "1000",
        "players": [
            {"id": "a", "arrangement": rows("Qh Qd 5c", "8s 8h 8d Kc Kd", "3s 4s 5s 6s 7s")},
            {"id": "b", "arrangement": rows("Ah Ad 2c", "9d 9h 9s 4c 6c", "As Ks Qs Js 2s")},
            {"id": "c", "arrangement": rows("3c 7d Jd", "Th Td 5d 5h 4d", "Tc Ts 7c 7h 3d")},
            {"id": "d", "arrangement": rows("Ac Qc Jc", "2d 2h 6d 8c 9c", "Kh Jh 6h 4h 3h")},
        ],
    }
    body.update(overrides)
    return body


def problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    """Assert a problem+json answer of this status and type; return its body."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == "application/problem+json"
    body = response.get_json()
    assert body["type"] == f"/problems/{kind}", body
    assert body["status"] == status
    assert isinstance(body["title"], str) and isinstance(body["detail"], str)
    assert isinstance(body["errors"], list)
    return dict(body)


def fields_of(body: dict[str, Any]) -> set[str]:
    return {e["field"] for e in body["errors"]}


def pages(http: Any, path: str, headers: Any) -> Iterator[dict[str, Any]]:
    """Each page of a list, following its `next_cursor` to the end; the next page is asked
    for only when the caller moves on, so it can look at the database in between."""
    cursor = None
    while True:
        joined = f"{path}{'&' if '?' in path else '?'}cursor={cursor}" if cursor else path
        page: dict[str, Any] = http.get(joined, headers=headers).get_json()
        yield page
        if (cursor := page["next_cursor"]) is None:
            return
