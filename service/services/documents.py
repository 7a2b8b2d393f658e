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
    for name, value in score.items():
        if name == "game":
            continue
        doc[name] = value
        if name == "engine_version":
            doc["status"] = status
            doc["void"] = void
    doc.setdefault("status", status)
    doc.setdefault("void", void)
    doc["audit"] = audit
    return doc
