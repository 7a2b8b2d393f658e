"""The rule presets as `GET /v1/rules` lists them: every version, its parameters and sources."""

from __future__ import annotations

from typing import Any

from service.domain.rules import LATEST, every_preset


def rules() -> dict[str, Any]:
    """`GET /v1/rules`: every version of every preset with its game, description, every
    parameter and where each parameter's value comes from (and, where the game has them,
    the preset's source)."""
    items = []
    for preset in every_preset():
        rule_set = preset.rules
        doc = rule_set.to_json()
        item: dict[str, Any] = {
            "preset": doc["preset"],
            "version": doc["version"],
            "latest": LATEST[rule_set.preset] == rule_set.version,
            "game": rule_set.game,
            "description": preset.description,
            "params": doc["params"],
            "sources": {name: preset.sources[name] for name in doc["params"] if name in preset.sources},
        }
        if preset.source is not None:
            item["source"] = preset.source
        items.append(item)
    return {"items": items}
