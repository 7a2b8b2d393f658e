"""The repository of server-run Capsa Susun games; SQLAlchemy stays in the adapters.

It takes and hands back `SusunGameRecord`s, frozen copies of a row: a service never holds
an ORM row, and a change is written as the fields that differ from the record it read,
under that record's version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, func, insert, or_, select, update
from sqlalchemy.orm import Session

from service.domain.susun.game import GameStatus

from . import references
from .models import SusunGame
from .translate import translated

_INSERT = insert(SusunGame)


@dataclass(frozen=True, slots=True)
class SusunGameRecord:
    """A stored game, as the service reads and writes it (`susun_games` columns)."""

    id: str
    client_id: str
    rules_json: Mapping[str, Any]
    currency: str
    stake: int
    table_ref: str | None
    reference: str | None
    players: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    deal_id: str | None
    submissions: Mapping[str, Any]
    arrange_seconds: int
    deadline: datetime
    version: int
    status: GameStatus
    round_id: str | None
    settled_at: datetime | None
    created_at: datetime
    updated_at: datetime

    def columns(self) -> dict[str, Any]:
        values = asdict(self)
        values["players"] = list(self.players)
        values["hands"] = [list(h) for h in self.hands]
        values["rules_json"] = dict(self.rules_json)
        values["submissions"] = dict(self.submissions)
        return values


_FIELDS = tuple(f.name for f in fields(SusunGameRecord))


def _record(row: SusunGame) -> SusunGameRecord:
    values = {name: getattr(row, name) for name in _FIELDS}
    values["players"] = tuple(row.players)
    values["hands"] = tuple(tuple(h) for h in row.hands)
    values["status"] = GameStatus(row.status)
    return SusunGameRecord(**values)


class SusunGameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(self, game: SusunGameRecord) -> None:
        """Insert a game; UniqueViolation `uq_susun_games_client_reference` when its reference is taken."""
        with translated(), self.session.begin_nested():
            self.session.connection().execute(_INSERT, [game.columns()])

    def get(self, client_id: str, game_id: str, lock: bool = False) -> SusunGameRecord | None:
        """The game; with `lock`, its row is locked until the transaction ends (PostgreSQL;
        SQLite's write transactions are serialized by BEGIN IMMEDIATE)."""
        q = select(SusunGame).where(SusunGame.id == game_id, SusunGame.client_id == client_id)
        if lock:
            q = q.with_for_update()
        row = self.session.scalar(q)
        return None if row is None else _record(row)

    def state(self, client_id: str, game_id: str) -> tuple[GameStatus, datetime] | None:
        """The game's status and deadline, without loading the row (every access asks
        first); None when the client has no such game."""
        row = self.session.execute(
            select(SusunGame.status, SusunGame.deadline).where(
                SusunGame.id == game_id, SusunGame.client_id == client_id
            )
        ).first()
        return None if row is None else (GameStatus(row[0]), row[1])

    def take_reference(self, client_id: str, reference: str) -> bool:
        """Take a new game's reference (`references`); False when a round or a game holds it."""
        return references.take(self.session, client_id, reference)

    def reference_taken(self, client_id: str, reference: str) -> bool:
        return bool(
            self.session.scalar(
                select(exists().where(SusunGame.client_id == client_id, SusunGame.reference == reference))
            )
        )

    def replace_if_version(self, read: SusunGameRecord, new: SusunGameRecord) -> bool:
        """Write the fields of `new` that differ from `read` and bump the version, only if the
        stored version is still `read`'s; False otherwise (another writer came first)."""
        if (new.client_id, new.id) != (read.client_id, read.id):
            raise ValueError("a game is replaced by a later state of the same game")
        before, after = read.columns(), new.columns()
        values = {k: v for k, v in after.items() if k != "version" and v != before[k]}
        result = self.session.execute(
            update(SusunGame)
            .where(SusunGame.client_id == read.client_id, SusunGame.id == read.id, SusunGame.version == read.version)
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
        or_due_by: datetime | None = None,
    ) -> tuple[Sequence[SusunGameRecord], tuple[datetime, str] | None]:
        """A page of the client's games, newest first by (created_at, id), and where the next
        starts; of `status`, or (with `or_due_by`) still arranging with a deadline at or
        before it: the games a read settles."""
        q = select(SusunGame).where(SusunGame.client_id == client_id)
        if status is not None:
            wanted = SusunGame.status == status
            if or_due_by is not None:
                wanted = or_(wanted, and_(SusunGame.status == GameStatus.ARRANGING, SusunGame.deadline <= or_due_by))
            q = q.where(wanted)
        if table is not None:
            q = q.where(SusunGame.table_ref == table)
        if after is not None:
            when, game_id = after
            q = q.where(
                or_(SusunGame.created_at < when, and_(SusunGame.created_at == when, SusunGame.id < game_id))
            )
        q = q.order_by(SusunGame.created_at.desc(), SusunGame.id.desc()).limit(limit + 1)
        rows = [_record(r) for r in self.session.scalars(q)]
        more = len(rows) > limit
        rows = rows[:limit]
        return rows, (rows[-1].created_at, rows[-1].id) if more and rows else None

    def overdue_clients(self, now: datetime, status: str) -> list[str]:
        """The clients with games still in `status` whose deadline is at or before `now`,
        the one whose oldest deadline is oldest first (the sweeper's turns)."""
        oldest = func.min(SusunGame.deadline)
        q = (
            select(SusunGame.client_id)
            .where(SusunGame.status == status, SusunGame.deadline <= now)
            .group_by(SusunGame.client_id)
            .order_by(oldest, SusunGame.client_id)
        )
        return [str(c) for c in self.session.scalars(q)]

    def overdue(
        self,
        now: datetime,
        status: str,
        limit: int,
        after: tuple[datetime, str] | None = None,
        client_id: str | None = None,
    ) -> list[tuple[str, str, datetime]]:
        """(client_id, game_id, deadline) of games still in `status` whose deadline is at or
        before `now`, by (deadline, id), after `after`, of `client_id` when given (the
        sweeper's query, on ix_susun_games_status_deadline)."""
        q = select(SusunGame.client_id, SusunGame.id, SusunGame.deadline).where(
            SusunGame.status == status, SusunGame.deadline <= now
        )
        if client_id is not None:
            q = q.where(SusunGame.client_id == client_id)
        if after is not None:
            q = q.where(
                or_(SusunGame.deadline > after[0], and_(SusunGame.deadline == after[0], SusunGame.id > after[1]))
            )
        q = q.order_by(SusunGame.deadline, SusunGame.id).limit(limit)
        return [(c, g, d) for c, g, d in self.session.execute(q)]
