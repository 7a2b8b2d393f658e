"""The repository of server-run Capsa Susun games; SQLAlchemy stays in the adapters."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, insert, or_, select, update
from sqlalchemy.orm import Session

from .models import SusunGame
from .translate import translated

_INSERT = insert(SusunGame)


class SusunGameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(self, row: dict[str, Any]) -> None:
        """Insert a game; UniqueViolation `uq_susun_games_client_reference` when its reference is taken."""
        with translated(), self.session.begin_nested():
            self.session.connection().execute(_INSERT, [row])

    def get(self, client_id: str, game_id: str, lock: bool = False) -> SusunGame | None:
        """The game; with `lock`, its row is locked until the transaction ends (PostgreSQL;
        SQLite's write transactions are serialized by BEGIN IMMEDIATE)."""
        q = select(SusunGame).where(SusunGame.id == game_id, SusunGame.client_id == client_id)
        if lock:
            q = q.with_for_update()
        return self.session.scalar(q)

    def state(self, client_id: str, game_id: str) -> tuple[str, datetime] | None:
        """The game's status and deadline, without loading the row (every access asks
        first); None when the client has no such game."""
        row = self.session.execute(
            select(SusunGame.status, SusunGame.deadline).where(
                SusunGame.id == game_id, SusunGame.client_id == client_id
            )
        ).first()
        return None if row is None else (row[0], row[1])

    def reference_taken(self, client_id: str, reference: str) -> bool:
        return bool(
            self.session.scalar(
                select(exists().where(SusunGame.client_id == client_id, SusunGame.reference == reference))
            )
        )

    def update_if_version(self, client_id: str, game_id: str, version: int, values: dict[str, Any]) -> bool:
        """Write `values` and bump the version only if it is still `version`; False otherwise."""
        result = self.session.execute(
            update(SusunGame)
            .where(SusunGame.client_id == client_id, SusunGame.id == game_id, SusunGame.version == version)
            .values(version=SusunGame.version + 1, **values)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def page(
        self,
        client_id: str,
        *,
        status: str | None,
        table: str | None,
        limit: int,
        after: tuple[datetime, str] | None,
    ) -> tuple[Sequence[SusunGame], tuple[datetime, str] | None]:
        """A page of the client's games, newest first by (created_at, id), and where the next starts."""
        q = select(SusunGame).where(SusunGame.client_id == client_id)
        if status is not None:
            q = q.where(SusunGame.status == status)
        if table is not None:
            q = q.where(SusunGame.table_ref == table)
        if after is not None:
            when, game_id = after
            q = q.where(
                or_(SusunGame.created_at < when, and_(SusunGame.created_at == when, SusunGame.id < game_id))
            )
        q = q.order_by(SusunGame.created_at.desc(), SusunGame.id.desc()).limit(limit + 1)
        rows = list(self.session.scalars(q))
        more = len(rows) > limit
        rows = rows[:limit]
        return rows, (rows[-1].created_at, rows[-1].id) if more and rows else None

    def overdue(
        self, now: datetime, status: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[tuple[str, str, datetime]]:
        """(client_id, game_id, deadline) of games still in `status` whose deadline is at or
        before `now`, by (deadline, id), after `after` (the sweeper's query, on
        ix_susun_games_status_deadline)."""
        q = select(SusunGame.client_id, SusunGame.id, SusunGame.deadline).where(
            SusunGame.status == status, SusunGame.deadline <= now
        )
        if after is not None:
            q = q.where(
                or_(SusunGame.deadline > after[0], and_(SusunGame.deadline == after[0], SusunGame.id > after[1]))
            )
        q = q.order_by(SusunGame.deadline, SusunGame.id).limit(limit)
        return [(c, g, d) for c, g, d in self.session.execute(q)]
