"""What the round page reads from the rules: Big Two tricks and combination names, and why a
Capsa Susun hand fouled (which row beats which).

Both come from the round document and its stored rule set (`doc["rules"]`), classified and
compared by the domain as the engine scored the round.
"""

from __future__ import annotations

from typing import Any

from service.domain.banting.plays import NotAPlay, Play, classify, is_bomb
from service.domain.banting.rules import BANTING, BantingParams
from service.domain.cards import Card
from service.domain.rules import RuleSet
from service.domain.susun.arrangement import Arrangement, evaluate, front_against_five
from service.domain.susun.rules import SusunParams

ROW_NAMES = ("front", "middle", "back")


def _category_name(category: str) -> str:
    return category.replace("_", " ")


def tricks(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """A Big Two history grouped by trick: each move with its combination's name.

    A trick ends when the turn comes back to the player whose play is on the table (everyone
    else passed, under either `pass_locks`): that player's next move leads a new trick. A
    play that goes on the table as a bomb is named "bomb (four of a kind)".
    """
    history = doc.get("history") or []
    if not history:
        return []
    params = RuleSet.from_json(doc["rules"]).params
    assert isinstance(params, BantingParams)
    out: list[dict[str, Any]] = []
    owner: str | None = None
    table: Play | None = None
    for move in history:
        if owner is None or move["player"] == owner:
            out.append({"n": len(out) + 1, "leader": move["player"], "moves": []})
            table = None
        entry = {**move, "name": "pass"}
        if not move["pass"]:
            play = classify([Card.from_str(c) for c in move["play"]], params)
            if isinstance(play, NotAPlay):  # pragma: no cover - a stored move was legal
                entry["name"] = "play"
            else:
                bomb = table is not None and is_bomb(play, table, params)
                entry["name"] = f"bomb ({play.combination.label})" if bomb else play.combination.label
                table = play
            owner = move["player"]
        out[-1]["moves"].append(entry)
    for trick in out:
        plays = [m for m in trick["moves"] if not m["pass"]]
        trick["taker"] = plays[-1]["player"] if plays else None
    return out


def foul_reasons(doc: dict[str, Any]) -> dict[str, str]:
    """Per fouled Capsa Susun player, which row beats which, e.g. "the front (pair) beats the
    middle (high card)"; under `strict_order` an equal row "is as strong as" the next."""
    if doc.get("game") == BANTING:
        return {}
    fouled = [p for p in doc["players"] if p.get("foul") and p.get("rows")]
    if not fouled:
        return {}
    params = RuleSet.from_json(doc["rules"]).params
    assert isinstance(params, SusunParams)
    out = {}
    for player in fouled:
        rows = player["rows"]
        arrangement = Arrangement(
            *(tuple(Card.from_str(c) for c in rows[name]["cards"]) for name in ROW_NAMES)
        )
        result = evaluate(arrangement, params)
        if result.foul_reason is None:  # pragma: no cover - the document says foul
            continue
        front, middle, back = (r.value for r in result.rows)
        if result.foul_reason.startswith("front"):
            lower, upper, order = "front", "middle", front_against_five(front, middle, params)
        else:
            lower, upper, order = "middle", "back", middle.compare(back, params.suit_tiebreak)
        verb = "beats" if order > 0 else "is as strong as"
        rule = "stronger than" if params.strict_order else "at least as strong as"
        out[player["id"]] = (
            f"the {lower} ({_category_name(rows[lower]['category'])}) {verb} the {upper} "
            f"({_category_name(rows[upper]['category'])}); the {upper} must be {rule} the {lower}"
        )
    return out
