"""Repositories of deals and Big Two games; SQLAlchemy stays in the adapters."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, exists, func, insert, or_, select, union_all, update
from sqlalchemy.orm import Session

from .models import Client, Deal, Game, Match, SusunGame
from .translate import translated

_DEAL_INSERT = insert(Deal)
_GAME_INSERT = insert(Game)
_MATCH_INSERT = insert(Match)

Position = tuple[datetime, str]


def _page(
    session: Session, q: Select[Any], model: type[Deal] | type[Game], limit: int, after: Position | None
) -> tuple[list[Any], Position | None]:
    """Newest first by (created_at, id), after `after`; the page and the position after it."""
    if after is not None:
        when, last_id = after
        q = q.where(or_(model.created_at < when, and_(model.created_at == when, model.id < last_id)))
    q = q.order_by(model.created_at.desc(), model.id.desc()).limit(limit + 1)
    rows = list(session.scalars(q))
    if len(rows) > limit:
        return rows[:limit], (rows[limit - 1].created_at, rows[limit - 1].id)
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
        return _page(self.session, q, Deal, limit, after)

    def in_play(self, client_id: str, deal_ids: Sequence[str]) -> frozenset[str]:
        """Of these deals of the client, those used by a game still in play: a Big Two game
        playing or a Capsa Susun game arranging (looked up by the game each deal names)."""
        if not deal_ids:
            return frozenset()
        used = select(Deal.used_by).where(Deal.client_id == client_id, Deal.id.in_(list(deal_ids)))
        big_two = select(Game.deal_id).where(
            Game.client_id == client_id, Game.id.in_(used), Game.status == "playing"
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


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(self, row: dict[str, Any]) -> None:
        self.session.connection().execute(_GAME_INSERT, [row])

    def get(self, client_id: str, game_id: str, lock: bool = False) -> Game | None:
        """The game; with `lock`, its row is locked until the transaction ends (PostgreSQL)."""
        q = select(Game).where(Game.id == game_id, Game.client_id == client_id)
        if lock:
            q = q.with_for_update()
        return self.session.scalar(q)

    def exists(self, client_id: str, game_id: str) -> bool:
        return bool(
            self.session.scalar(
                select(exists().where(Game.id == game_id, Game.client_id == client_id))
            )
        )

    def timed_in_play(self) -> list[tuple[str, str]]:
        """(client, game) of every timed game still in play, oldest first (for a sweeper)."""
        q = (
            select(Game.client_id, Game.id)
            .where(Game.status == "playing", Game.turn_seconds.is_not(None))
            .order_by(Game.created_at)
        )
        return [(c, g) for c, g in self.session.execute(q)]
    def page(
        self, client_id: str, status: str | None, table: str | None, limit: int, after: Position | None
    ) -> tuple[list[Game], Position | None]:
        """The client's games, newest first, of this status (playing, finished) and table."""
        q = select(Game).where(Game.client_id == client_id)
        if status is not None:
            q = q.where(Game.status == status)
        if table is not None:
            q = q.where(Game.table_ref == table)
        return _page(self.session, q, Game, limit, after)

    def update_if_version(self, client_id: str, game_id: str, version: int, values: dict[str, Any]) -> bool:
        """Write `values` and bump the version only if it is still `version`; False otherwise."""
        result = self.session.execute(
            update(Game)
            .where(Game.client_id == client_id, Game.id == game_id, Game.version == version)
            .values(version=Game.version + 1, **values)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]


class MatchRepository:
    """Big Two matches (migration 0010)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(self, row: dict[str, Any]) -> None:
        self.session.connection().execute(_MATCH_INSERT, [row])

    def get(self, client_id: str, match_id: str, lock: bool = False) -> Match | None:
        """The match; with `lock`, its row is locked until the transaction ends (PostgreSQL)."""
        q = select(Match).where(Match.id == match_id, Match.client_id == client_id)
        if lock:
            q = q.with_for_update()
        return self.session.scalar(q)

    def update_if_version(self, client_id: str, match_id: str, version: int, values: dict[str, Any]) -> bool:
        """Write `values` and bump the version only if it is still `version`; False otherwise."""
        result = self.session.execute(
            update(Match)
            .where(Match.client_id == client_id, Match.id == match_id, Match.version == version)
            .values(version=Match.version + 1, **values)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]
