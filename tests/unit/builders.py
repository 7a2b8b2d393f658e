"""Small builders for domain tests: arrangements from strings, scoring a pair or a round."""

from __future__ import annotations

from typing import Any

from service.domain.rules import resolve_rules
from service.domain.susun.arrangement import Arrangement
from service.domain.susun.rules import SusunParams
from service.domain.susun.scoring import PairResult, PlayerHand, RoundResult, score_round


def arr(front: str, middle: str, back: str) -> Arrangement:
    return Arrangement.from_strings(front, middle, back)


def params(preset: str = "capsa-susun-id", **overrides: Any) -> SusunParams:
    p = resolve_rules({"preset": preset, "params": overrides}, "susun").params
    assert isinstance(p, SusunParams)
    return p


def play(hands: list[Arrangement | None], preset: str = "capsa-susun-id", **overrides: Any) -> RoundResult:
    ids = "abcd"
    return score_round([PlayerHand(ids[i], h) for i, h in enumerate(hands)], params(preset, **overrides))


def pair(a: Arrangement | None, b: Arrangement | None, preset: str = "capsa-susun-id", **overrides: Any) -> PairResult:
    return play([a, b], preset, **overrides).pairs[0]


# Row levels that are legal in any combination: every front < every middle < every back.
# "L" low, "H" high, "T" the same ranks as "H" in other suits (a tie without suit tie-breaks).
FRONT = {"L": "2c 3d 5h", "H": "Kc Qd 9h", "T": "Ks Qh 9d"}
MIDDLE = {"L": "3c 3h 6d 8s Tc", "H": "Jc Jh 6c 8d Th", "T": "Js Jd 6h 8c Ts"}
BACK = {"L": "5c 6d 7h 8s 9c", "H": "Tc Jd Qh Ks Ad", "T": "Ts Jc Qd Kh Ac"}


def levels(code: str) -> Arrangement:
    """`levels("HLT")`: front H, middle L, back T."""
    return arr(FRONT[code[0]], MIDDLE[code[1]], BACK[code[2]])


def rows_vs(outcome: str) -> tuple[Arrangement, Arrangement]:
    """Two hands whose rows end as `outcome` from A's side, e.g. "WLT" (win, lose, tie)."""
    a, b = "", ""
    for o in outcome:
        a += {"W": "H", "L": "L", "T": "H"}[o]
        b += {"W": "L", "L": "H", "T": "T"}[o]
    return levels(a), levels(b)


FOUL = arr("Ac Ad 2h", "Kc Qd 9h 7s 5c", "5d 6h 8s 9c Qd")  # front pair beats middle high card
DRAGON = arr("2c 3d 4h", "5s 6c 7d 8h 9s", "Tc Jd Qh Ks Ac")  # also three straights
THREE_FLUSHES = arr("2h 5h 9h", "3c 6c 8c Tc Qc", "2s 4s 7s Js Ks")  # not a dragon: two 2s
THREE_STRAIGHTS = arr("Qd Kd Ah", "4c 5d 6h 7s 8c", "9d Th Js Qc Kc")
SIX_PAIRS = arr("2c 2d As", "3c 3d 4c 4d 7c", "5c 5d 6c 6d 7d")
