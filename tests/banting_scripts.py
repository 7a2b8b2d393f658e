"""Scripted Big Two deals and games, shared by the domain tests and the HTTP tests.

Each script line is `"<player>: <cards>"` or `"<player>: pass"`.
"""

from __future__ import annotations

# four players: a holds 3d and leads; d holds the four 2s (the rest of the deck)
FOUR = {
    "a": "3d 5c 5d 5h 5s 9d 4c 6c 8c Tc Qc Kd Ad",
    "b": "3c 3h 4d 4h 6d 7c 8d 9c Jc Jd Qd Kc Ac",
    "c": "7h 3s 4s 6h 6s 7s 8h 9h Th Jh Qh Kh Ah",
    "d": "2c 2d 2h 2s 7d 8s 9s Td Ts Js Qs Ks As",
}
BOMB_SCRIPT = ["a: 3d", "b: pass", "c: 7h", "d: 2h", "a: 5c 5d 5h 5s 9d"]

THREE = {  # 3d is not dealt: b holds the lowest dealt card, 3c
    "a": "5d 3h 3s 4c 4h 5c 6c 6h 7h 8h 8s Th Js",
    "b": "3c 4d 5h 6s 7c 9d 9c 9h Jd Jc Ks Kh 2s",
    "c": "8d 9s Ts Jh Qc As Ah 4s 6d 7d 8c Tc Qd",
}
THREE_SCRIPT = [
    "b: 3c 4d 5h 6s 7c",
    "c: 8d 9s Ts Jh Qc",
    "a: pass",
    "b: 9d 9c 9h Jd Jc",
    "c: pass",  # a passed already: the trick returns to b
    "b: Ks Kh",
    "c: As Ah",
    "a: pass",
    "b: pass",
    "c: 4s",
    "a: 5d",
    "b: 2s",
]

# (moves before, the illegal move, the reason it is refused with) on the FOUR deal
ILLEGAL: list[tuple[list[str], str, str]] = [
    ([], "b: 3c", "not your turn"),
    ([], "z: 3c", "not your turn"),
    ([], "a: 3c", "cards not in hand"),
    ([], "a: 9d Qc", "not a combination"),
    ([], "a: 5c 5d 5h 5s", "not a combination"),
    ([], "a: 4c", "must contain the lowest card"),
    ([], "a: pass", "the leader cannot pass"),
    (["a: 3d", "b: 9c"], "c: 7h", "does not beat"),
    (["a: 3d"], "b: 4d 4h", "does not beat"),
    (["a: 3d", "b: pass"], "b: 4d", "passed already in this trick"),
    (["a: 3d", "b: pass"], "b: pass", "passed already in this trick"),
    (["a: 3d", "b: pass", "c: pass", "d: pass"], "a: pass", "the leader cannot pass"),
    (["a: 3d", "b: pass", "c: 7h", "d: 2h"], "b: 4d 4h 4c 4s 3c", "passed already in this trick"),
    (["a: 3d", "b: pass", "c: 7h", "d: 2h"], "a: 4c 6c 8c Tc Qc", "does not beat"),
]
