"""Re-scoring a stored round of any game from its normalised request (verification).

The registry lives apart from the code that records rounds, so recording a round (Capsa
Susun or Big Two) and re-scoring one never import each other; it is pure, so the offline
verifier of an export (service/domain/export_check.py) re-scores with no database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.domain.banting.round import rescore as rescore_banting
from service.domain.susun.round import score_round_request

# game -> function(normalised request) -> the POST /v1/score document of that game.
RESCORERS: dict[str, Callable[[dict[str, Any]], Mapping[str, Any]]] = {
    # A round a server-run game settled carries its game_id (and auto_arranged per player);
    # a stored round's rules are taken as they were, contradictory parameters included.
    "susun": lambda req: score_round_request(req, game_round="game_id" in req, stored=True).document,
    "banting": rescore_banting,
}
