"""Read-only game services: rule presets and arrangement evaluation (no storage)."""

from __future__ import annotations

from typing import Any

from service.domain.banting import rules as banting_rules
from service.domain.rules import list_presets
from service.domain.susun.round import evaluate_arrangement_request
from service.domain.susun.suggest.search import suggest_request

# Per game: (preset -> its source, parameter -> its source); a game without a table lists none.
SOURCES: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    banting_rules.BANTING: (banting_rules.PRESET_SOURCES, banting_rules.PARAMETER_SOURCES),
}


def rules() -> dict[str, Any]:
    """`GET /v1/rules`: every preset with its game, description and every parameter, and
    where the game has them, the preset's source and each parameter's."""
    items = []
    for rule_set, description in list_presets():
        doc = rule_set.to_json()
        item: dict[str, Any] = {
            "preset": doc["preset"],
            "version": doc["version"],
            "game": rule_set.game,
            "description": description,
            "params": doc["params"],
        }
        if rule_set.game in SOURCES:
            presets, parameters = SOURCES[rule_set.game]
            item["source"] = presets[rule_set.preset]
            item["sources"] = {name: parameters[name] for name in doc["params"]}
        items.append(item)
    return {"items": items}


def evaluate(body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/arrangements/evaluate`."""
    return evaluate_arrangement_request(body)


def suggest(body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/arrangements/suggest`: the best legal settings of a hand."""
    return suggest_request(body)
