"""A client's references (`client_references`): what a round or a Capsa Susun game takes.

A reference is the client's, for one round; a game takes its reference when it starts and
its round carries it at settlement. Rounds and games both insert it here first (a round on
PostgreSQL in its one statement, `chain_pg`): an insert meeting an uncommitted one of the
same key waits for its transaction, so of two at once the second finds it taken.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

_TAKE = text(
    "INSERT INTO client_references (client_id, reference) VALUES (:client, :reference) ON CONFLICT DO NOTHING"
)


def take(session: Session, client_id: str, reference: str) -> bool:
    """Take `reference` for the client in the session's transaction; False when a game or a
    round holds it already (on PostgreSQL, once a holder still in flight has committed)."""
    result = session.execute(_TAKE, {"client": client_id, "reference": reference})
    return bool(result.rowcount)  # type: ignore[attr-defined]


__all__ = ["take"]
