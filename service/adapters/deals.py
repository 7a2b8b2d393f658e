"""The repository of deals (the Big Two games' and matches' are in banting.py): plain values
in, frozen `DealRecord`s out; SQLAlchemy stays in the adapters. Also the newest-first
paging every list of the adapters shares (`newest_first`, `cut`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, and_, insert, or_, select, union_all, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import InstrumentedAttribute, Session

from service.domain.banting.game import GameStatus
from service.domain.deals import DealStatus
from service.domain.susun.game import GameStatus as SusunStatus

from .models import Client, Deal, DealCommitment, Game, SusunGame
from .translate import translated

_DEALS = Deal.__table__
_DEAL_INSERT = insert(Deal)
_COMMITMENTS = DealCommitment.__table__

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


@dataclass(frozen=True, slots=True)
class DealRecord:
    """A stored deal: its seeds and nonce, its players and their hands (card texts, in deal
    order), and when it was used (by which round or game) or revealed."""

    id: str
    client_id: str
    nonce: int
    server_seed: bytes
    commitment: str
    client_seed: str
    players: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    used_at: datetime | None
    used_by: str | None
    revealed_at: datetime | None
    created_at: datetime
    commitment_id: str | None = None  # made from this commitment (None: its seed drawn with it)
    committed_at: datetime | None = None  # when that commitment was drawn


@dataclass(frozen=True, slots=True)
class CommitmentRecord:
    """A server seed drawn and a nonce taken before the client's seed is known, and the deal
    made from it (None while unused)."""

    id: str
    client_id: str
    nonce: int
    server_seed: bytes
    commitment: str
    created_at: datetime
    used_by: str | None


def _commitment(row: RowMapping) -> CommitmentRecord:
    return CommitmentRecord(
        id=row["id"],
        client_id=row["client_id"],
        nonce=row["nonce"],
        server_seed=bytes(row["server_seed"]),
        commitment=row["commitment"],
        created_at=row["created_at"],
        used_by=row["used_by"],
    )


def _deal(row: RowMapping) -> DealRecord:
    return DealRecord(
        id=row["id"],
        client_id=row["client_id"],
        nonce=row["nonce"],
        server_seed=bytes(row["server_seed"]),
        commitment=row["commitment"],
        client_seed=row["client_seed"],
        players=tuple(row["players"]),
        hands=tuple(tuple(h) for h in row["hands"]),
        used_at=row["used_at"],
        used_by=row["used_by"],
        revealed_at=row["revealed_at"],
        created_at=row["created_at"],
        commitment_id=row["commitment_id"],
        committed_at=row["committed_at"],
    )


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

    def insert(self, deal: DealRecord) -> None:
        """Insert a deal; UniqueViolation `uq_deals_client_nonce` when its nonce is taken."""
        row = {
            "id": deal.id,
            "client_id": deal.client_id,
            "nonce": deal.nonce,
            "server_seed": deal.server_seed,
            "commitment": deal.commitment,
            "client_seed": deal.client_seed,
            "players": list(deal.players),
            "hands": [list(h) for h in deal.hands],
            "used_at": deal.used_at,
            "used_by": deal.used_by,
            "revealed_at": deal.revealed_at,
            "created_at": deal.created_at,
            "commitment_id": deal.commitment_id,
            "committed_at": deal.committed_at,
        }
        with translated(), self.session.begin_nested():
            self.session.connection().execute(_DEAL_INSERT, [row])

    def insert_commitment(self, made: CommitmentRecord) -> None:
        self.session.execute(insert(DealCommitment).values(
            id=made.id, client_id=made.client_id, nonce=made.nonce, server_seed=made.server_seed,
            commitment=made.commitment, created_at=made.created_at, used_by=made.used_by,
        ))

    def commitment(self, client_id: str, commitment_id: str) -> CommitmentRecord | None:
        q = select(_COMMITMENTS).where(_COMMITMENTS.c.client_id == client_id, _COMMITMENTS.c.id == commitment_id)
        row = self.session.execute(q).mappings().first()
        return None if row is None else _commitment(row)

    def use_commitment(self, client_id: str, commitment_id: str, deal_id: str) -> bool:
        """Name the deal made from this commitment: False when a deal was made from it
        before (the row is not changed then). The condition is in the statement, so of two
        deals racing for one commitment one wins (PostgreSQL re-checks the row it waited for)."""
        result = self.session.execute(
            update(DealCommitment)
            .where(DealCommitment.client_id == client_id, DealCommitment.id == commitment_id,
                   DealCommitment.used_by.is_(None))
            .values(used_by=deal_id)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def get(self, client_id: str, deal_id: str, lock: bool = False) -> DealRecord | None:
        q = select(_DEALS).where(_DEALS.c.id == deal_id, _DEALS.c.client_id == client_id)
        if lock:
            q = q.with_for_update()
        row = self.session.execute(q).mappings().first()
        return None if row is None else _deal(row)

    def page(
        self, client_id: str, status: DealStatus | None, limit: int, after: Position | None
    ) -> tuple[list[DealRecord], Position | None]:
        """The client's deals, newest first, of this status (all of them: None)."""
        q = select(_DEALS).where(_DEALS.c.client_id == client_id)
        used_at, revealed_at = _DEALS.c.used_at, _DEALS.c.revealed_at
        if status is DealStatus.USED:
            q = q.where(used_at.is_not(None))
        elif status is DealStatus.REVEALED:
            q = q.where(used_at.is_(None), revealed_at.is_not(None))
        elif status is DealStatus.OPEN:
            q = q.where(used_at.is_(None), revealed_at.is_(None))
        paged = newest_first(q, _DEALS.c.created_at, _DEALS.c.id, limit, after)
        deals = [_deal(r) for r in self.session.execute(paged).mappings()]
        return cut(deals, limit, lambda d: (d.created_at, d.id))

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
            SusunGame.client_id == client_id, SusunGame.id.in_(used), SusunGame.status == SusunStatus.ARRANGING.value
        )
        return frozenset(d for d in self.session.scalars(union_all(big_two, susun)) if d is not None)

    def mark_used(self, client_id: str, deal_id: str, used_by: str, at: datetime) -> bool:
        """Use the deal once, for a game, while its seed is secret: False when it was already
        used or revealed (the row is not changed then). The condition is in the statement,
        so a reveal committed after the caller read the deal is seen (PostgreSQL re-checks
        the row it waited for)."""
        result = self.session.execute(
            update(Deal)
            .where(Deal.client_id == client_id, Deal.id == deal_id, Deal.used_at.is_(None), Deal.revealed_at.is_(None))
            .values(used_at=at, used_by=used_by)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def mark_revealed(self, client_id: str, deal_id: str, at: datetime) -> None:
        """Publish the seed from `at`, unless its time was set already (revealed, or used by
        a round or by a game that has ended: the game's end publishes it, `at` then)."""
        self.session.execute(
            update(Deal)
            .where(Deal.client_id == client_id, Deal.id == deal_id, Deal.revealed_at.is_(None))
            .values(revealed_at=at)
            .execution_options(synchronize_session=False)
        )
