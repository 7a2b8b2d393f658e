"""The repository of deals (the Big Two games' and matches' are in banting.py); SQLAlchemy
stays in the adapters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, and_, func, insert, or_, select, union_all, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from service.domain.banting.game import GameStatus

from .models import Client, Deal, Game, SusunGame
from .translate import translated

_DEAL_INSERT = insert(Deal)

Position = tuple[datetime, str]
T = TypeVar("T")


def newest_first(
    q: Select[Any],
    created_at: ColumnElement[datetime] | InstrumentedAttribute[datetime],
    id_: ColumnElement[str] | InstrumentedAttribute[str],
    limit: int,
    after: Position | None,
) -> Select[Any]:
    """`q` newest first by (created_at, id), after `after`, one row past `limit` (`cut` tells
    from it whether a page follows)."""
    if after is not None:
        when, last_id = after
        q = q.where(or_(created_at < when, and_(created_at == when, id_ < last_id)))
    return q.order_by(created_at.desc(), id_.desc()).limit(limit + 1)


def cut(rows: list[T], limit: int, position: Callable[[T], Position]) -> tuple[list[T], Position | None]:
    """The page of `newest_first`'s rows and the position after it (None: the last page)."""
    if len(rows) > limit:
        return rows[:limit], position(rows[limit - 1])
    return rows, None


class DealRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def next_nonce(self, client_id: str) -> int:
        """Take the client's next nonce (0, 1, 2, ...): one UPDATE whose row lock, held to
        commit, orders concurrent deals of the client; no deal is counted."""
        taken = self.session.scalar(
            update(Client)
            .where(Client.id == client_id)
            .values(deals_made=Client.deals_made + 1)
            .returning(Client.deals_made)
        )
        if taken is None:
            raise LookupError(f"no client {client_id!r}")
        return int(taken) - 1

    def insert(self, row: dict[str, Any]) -> None:
        """Insert a deal; UniqueViolation `uq_deals_client_nonce` when its nonce is taken."""
        with translated(), self.session.begin_nested():
            self.session.connection().execute(_DEAL_INSERT, [row])

    def get(self, client_id: str, deal_id: str, lock: bool = False) -> Deal | None:
        q = select(Deal).where(Deal.id == deal_id, Deal.client_id == client_id)
        if lock:
            q = q.with_for_update()
        return self.session.scalar(q)

    def page(
        self, client_id: str, status: str | None, limit: int, after: Position | None
    ) -> tuple[list[Deal], Position | None]:
        """The client's deals, newest first; `status` open (neither used nor revealed),
        revealed (published, not used) or used."""
        q = select(Deal).where(Deal.client_id == client_id)
        if status == "used":
            q = q.where(Deal.used_at.is_not(None))
        elif status == "revealed":
            q = q.where(Deal.used_at.is_(None), Deal.revealed_at.is_not(None))
        elif status == "open":
            q = q.where(Deal.used_at.is_(None), Deal.revealed_at.is_(None))
        rows = list(self.session.scalars(newest_first(q, Deal.created_at, Deal.id, limit, after)))
        return cut(rows, limit, lambda d: (d.created_at, d.id))

    def in_play(self, client_id: str, deal_ids: Sequence[str]) -> frozenset[str]:
        """Of these deals of the client, those used by a game still in play: a Big Two game
        playing or a Capsa Susun game arranging (looked up by the game each deal names)."""
        if not deal_ids:
            return frozenset()
        used = select(Deal.used_by).where(Deal.client_id == client_id, Deal.id.in_(list(deal_ids)))
        big_two = select(Game.deal_id).where(
            Game.client_id == client_id, Game.id.in_(used), Game.status == GameStatus.PLAYING.value
        )
        susun = select(SusunGame.deal_id).where(
            SusunGame.client_id == client_id, SusunGame.id.in_(used), SusunGame.status == "arranging"
        )
        return frozenset(d for d in self.session.scalars(union_all(big_two, susun)) if d is not None)

    def mark_used(self, client_id: str, deal_id: str, used_by: str, at: datetime) -> bool:
        """Use the deal once: False when it was already used (the row is not changed then)."""
        result = self.session.execute(
            update(Deal)
            .where(Deal.client_id == client_id, Deal.id == deal_id, Deal.used_at.is_(None))
            .values(used_at=at, used_by=used_by, revealed_at=func.coalesce(Deal.revealed_at, at))
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def mark_revealed(self, client_id: str, deal_id: str, at: datetime) -> None:
        self.session.execute(
            update(Deal)
            .where(Deal.client_id == client_id, Deal.id == deal_id, Deal.revealed_at.is_(None))
            .values(revealed_at=at)
            .execution_options(synchronize_session=False)
        )
