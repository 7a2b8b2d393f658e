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
from service.domain.version import ENGINE_VERSION

# The engine versions whose rounds this release re-scores exactly as they were scored. The
# engine stamps its own version on what it scores, so a re-score is compared under the
# version the stored round names when that version is here. A release that changes how any
# round scores gives the engine a new version, and keeps the older versions here only while
# it scores their rounds as they were; a version left out is then the difference reported,
# not numbers that differ unexplained.
RESCORES: frozenset[str] = frozenset({"1.0.0", ENGINE_VERSION})

# game -> function(normalised request) -> the POST /v1/score document of that game.
RESCORERS: dict[str, Callable[[dict[str, Any]], Mapping[str, Any]]] = {
    # A round a server-run game settled carries its game_id (and auto_arranged per player);
    # a stored round's rules are taken as they were, contradictory parameters included.
    "susun": lambda req: score_round_request(req, game_round="game_id" in req, stored=True).document,
    "banting": rescore_banting,
}


def as_stored_version(recomputed: Mapping[str, Any], stored: Mapping[str, Any]) -> Mapping[str, Any]:
    """The re-score with the stored result's `engine_version` when this release re-scores
    that version's rounds as they were (`RESCORES`); else as it is, so the version differs."""
    version = stored.get("engine_version")
    if isinstance(version, str) and version in RESCORES and recomputed.get("engine_version") != version:
        return {**recomputed, "engine_version": version}
    return recomputed


def record_version_difference(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """A round record's own `engine_version` where it is not its result's (both are stamped
    at once), as a verify difference; None when they agree."""
    result = record.get("result")
    if isinstance(result, Mapping) and record.get("engine_version") != result.get("engine_version"):
        return {
            "field": "record.engine_version",
            "stored": record.get("engine_version"),
            "recomputed": result.get("engine_version"),
        }
    return None
