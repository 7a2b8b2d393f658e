"""The stored round as its API document: score document plus id, time, status, void, audit."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .ids import rfc3339


def render_document(
    round_id: str,
    created_at: datetime,
    status: str,
    score: dict[str, Any],
    *,
    audit: dict[str, Any] | None = None,
    void: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The score document plus id, time, status, void and audit, in API.md's key order.

    `status` is derived: "void" when a void record exists, whatever the stored column says.
    """
    if void is not None:
        status = "void"
    doc: dict[str, Any] = {
        "id": round_id,
        "game": score["game"],
        "created_at": rfc3339(created_at),
    }
    for name, value in ordered(score, _TOP).items():
        if name == "game":
            continue
        doc[name] = _display(name, value)
        if name == "engine_version":
            doc["status"] = status
            doc["void"] = void
    doc.setdefault("status", status)
    doc.setdefault("void", void)
    doc["audit"] = audit
    return doc


# Stored JSON comes back with sorted keys (see adapters.db.json_text): API.md's order again.
_TOP = ("game", "table", "reference", "currency", "stake", "rules", "engine_version", "players", "pairs", "house_fee")
_PLAYER = ("id", "rows", "foul", "natural", "surrender", "cards_left", "points", "result", "winnings", "fee", "net")
_PAIR = ("players", "stake", "rows", "bonus", "outcome", "multiplier", "points", "amount")
_ROWS = ("front", "middle", "back")
_ROW = ("category", "cards", "bonus")
_RULES = ("preset", "version", "params")


def ordered(doc: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """`doc` with `keys` first in that order, then any others as they were."""
    out = {k: doc[k] for k in keys if k in doc}
    out.update((k, v) for k, v in doc.items() if k not in out)
    return out


def _rows(rows: Any, pair: bool) -> Any:
    if not isinstance(rows, dict):
        return rows
    out = ordered(rows, _ROWS)
    return out if pair else {k: ordered(v, _ROW) if isinstance(v, dict) else v for k, v in out.items()}


def _display(name: str, value: Any) -> Any:
    if name == "rules" and isinstance(value, dict):
        return ordered(value, _RULES)
    if name == "players" and isinstance(value, list):
        return [
            {**(p := ordered(x, _PLAYER)), **({"rows": _rows(p["rows"], False)} if "rows" in p else {})}
            if isinstance(x, dict) else x
            for x in value
        ]
    if name == "pairs" and isinstance(value, list):
        return [
            {**(p := ordered(x, _PAIR)), **({"rows": _rows(p["rows"], True)} if "rows" in p else {})}
            if isinstance(x, dict) else x
            for x in value
        ]
    return value
