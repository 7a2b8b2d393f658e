"""Repositories of Big Two games and matches: rows in, frozen records out.

The services hand these plain values and get back `GameRecord` and `MatchRecord`, whose
moves are the domain's `MadeMove` (the stored JSON form is converted here, both ways, by the
domain's `to_json` / `from_json`) and whose statuses are `GameStatus`; no ORM row leaves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import and_, exists, insert, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from service.domain.banting.game import GameStatus
from service.domain.banting.match import MatchEntry
from service.domain.banting.moves import MadeMove
from service.domain.banting.timers import turn_deadline

from .deals import Position, cut, newest_first
from .models import MATCH_SEATS, Game, Match, MatchGame

_GAMES = Game.__table__
# A game as read: every column but `deadline`, which only the sweeper's look-up reads (so a
# server of this version reads games from a database not yet at migration 0021 too).
_GAME_COLUMNS = [c for c in _GAMES.c if c.name != "deadline"]
_MATCHES = Match.__table__
_GAME_INSERT = insert(Game)
_MATCH_INSERT = insert(Match)
_ENTRIES = MatchGame.__table__
_ENTRY_INSERT = insert(MatchGame)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A stored Big Two game: its terms, dealt hands (card texts), moves and where it stands."""

    id: str
    client_id: str
    rules_json: Mapping[str, Any]
    currency: str
    stake: int
    table_ref: str | None
    players: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    deal_id: str | None
    moves: tuple[MadeMove, ...]
    version: int
    status: GameStatus
    winner: str | None
    round_id: str | None
    created_at: datetime
    updated_at: datetime
    match_id: str | None
    leader: str | None
    turn_seconds: int | None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A stored Big Two match: its terms, players, target, how many games have finished
    (`played`; each a `MatchEntry`, read a page at a time) and the totals over those that count."""

    id: str
    client_id: str
    rules_json: Mapping[str, Any]
    currency: str
    stake: int
    table_ref: str | None
    players: tuple[str, ...]
    target_points: int
    played: int
    totals: Mapping[str, int]
    current_game: str | None
    version: int
    status: GameStatus
    created_at: datetime
    updated_at: datetime


def _game(row: RowMapping) -> GameRecord:
    return GameRecord(
        id=row["id"],
        client_id=row["client_id"],
        rules_json=row["rules_json"],
        currency=row["currency"],
        stake=row["stake"],
        table_ref=row["table_ref"],
        players=tuple(row["players"]),
        hands=tuple(tuple(h) for h in row["hands"]),
        deal_id=row["deal_id"],
        moves=tuple(MadeMove.from_json(m) for m in row["moves"]),
        version=row["version"],
        status=GameStatus(row["status"]),
        winner=row["winner"],
        round_id=row["round_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        match_id=row["match_id"],
        leader=row["leader"],
        turn_seconds=row["turn_seconds"],
    )


def _match(row: RowMapping) -> MatchRecord:
    return MatchRecord(
        id=row["id"],
        client_id=row["client_id"],
        rules_json=row["rules_json"],
        currency=row["currency"],
        stake=row["stake"],
        table_ref=row["table_ref"],
        players=tuple(row["players"]),
        target_points=row["target_points"],
        played=row["played"],
        totals={pid: int(row["totals"][pid]) for pid in row["players"]},
        current_game=row["current_game"],
        version=row["version"],
        status=GameStatus(row["status"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(self, game: GameRecord) -> None:
        self.session.connection().execute(_GAME_INSERT, [{
            "id": game.id,
            "client_id": game.client_id,
            "rules_json": dict(game.rules_json),
            "currency": game.currency,
            "stake": game.stake,
            "table_ref": game.table_ref,
            "players": list(game.players),
            "hands": [list(h) for h in game.hands],
            "deal_id": game.deal_id,
            "moves": [m.to_json() for m in game.moves],
            "version": game.version,
            "status": game.status.value,
            "winner": game.winner,
            "round_id": game.round_id,
            "created_at": game.created_at,
            "updated_at": game.updated_at,
            "match_id": game.match_id,
            "leader": game.leader,
            "turn_seconds": game.turn_seconds,
            "deadline": turn_deadline(game.status, game.moves, game.created_at, game.turn_seconds),
        }])

    def get(self, client_id: str, game_id: str, lock: bool = False) -> GameRecord | None:
        """The game; with `lock`, its row is locked until the transaction ends (PostgreSQL)."""
        q = select(*_GAME_COLUMNS).where(_GAMES.c.id == game_id, _GAMES.c.client_id == client_id)
        if lock:
            q = q.with_for_update()
        row = self.session.execute(q).mappings().first()
        return None if row is None else _game(row)

    def exists(self, client_id: str, game_id: str) -> bool:
        return bool(
            self.session.scalar(
                select(exists().where(Game.id == game_id, Game.client_id == client_id))
            )
        )

    def due(
        self, now: datetime, limit: int, after: tuple[datetime, str, str] | None = None
    ) -> list[tuple[datetime, str, str]]:
        """(deadline, client, game) of the timed games in play whose turn ran out by `now`,
        every client's, by deadline, after `after` (the sweeper's look-up, on
        ix_games_deadline: it reads the due games only, however many are in play)."""
        q = select(Game.deadline, Game.client_id, Game.id).where(Game.deadline.is_not(None), Game.deadline <= now)
        if after is not None:
            at, client_id, game_id = after
            q = q.where(or_(
                Game.deadline > at,
                and_(Game.deadline == at, or_(Game.client_id > client_id,
                                              and_(Game.client_id == client_id, Game.id > game_id))),
            ))
        q = q.order_by(Game.deadline, Game.client_id, Game.id).limit(limit)
        # never None: the statement keeps the games with a deadline only
        return cast(list[tuple[datetime, str, str]], [tuple(row) for row in self.session.execute(q)])

    def page(
        self,
        client_id: str,
        status: GameStatus | None,
        table: str | None,
        limit: int,
        after: Position | None,
        or_due_by: datetime | None = None,
    ) -> tuple[list[GameRecord], Position | None]:
        """The client's games, newest first, of this status and table; with `or_due_by`, the
        timed games in play whose turn ran out by then too (a read plays their due turns)."""
        q = select(*_GAME_COLUMNS).where(_GAMES.c.client_id == client_id)
        if status is not None:
            wanted = _GAMES.c.status == status.value
            if or_due_by is not None:
                wanted = or_(wanted, _GAMES.c.deadline <= or_due_by)
            q = q.where(wanted)
        if table is not None:
            q = q.where(_GAMES.c.table_ref == table)
        paged = newest_first(q, _GAMES.c.created_at, _GAMES.c.id, limit, after)
        games = [_game(r) for r in self.session.execute(paged).mappings()]
        return cut(games, limit, lambda g: (g.created_at, g.id))

    def record_moves(
        self,
        client_id: str,
        game_id: str,
        version: int,
        moves: Sequence[MadeMove],
        status: GameStatus,
        at: datetime,
        winner: str | None = None,
        round_id: str | None = None,
        deadline: datetime | None = None,
    ) -> bool:
        """Store the game's moves and status (a finished game's winner and round too) and
        when its turn in play runs out (`timers.turn_deadline`: None when untimed or ended),
        and bump the version, only if it is still `version`; False otherwise."""
        values: dict[str, Any] = {
            "moves": [m.to_json() for m in moves],
            "status": status.value,
            "updated_at": at,
            "deadline": deadline,
        }
        if status == GameStatus.FINISHED:
            values |= {"winner": winner, "round_id": round_id}
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

    def insert(self, match: MatchRecord) -> None:
        self.session.connection().execute(_MATCH_INSERT, [{
            "id": match.id,
            "client_id": match.client_id,
            "rules_json": dict(match.rules_json),
            "currency": match.currency,
            "stake": match.stake,
            "table_ref": match.table_ref,
            "players": list(match.players),
            "target_points": match.target_points,
            "played": match.played,
            "totals": dict(match.totals),
            "current_game": match.current_game,
            "version": match.version,
            "status": match.status.value,
            "created_at": match.created_at,
            "updated_at": match.updated_at,
        }])

    def get(self, client_id: str, match_id: str, lock: bool = False) -> MatchRecord | None:
        """The match; with `lock`, its row is locked until the transaction ends (PostgreSQL)."""
        q = select(_MATCHES).where(_MATCHES.c.id == match_id, _MATCHES.c.client_id == client_id)
        if lock:
            q = q.with_for_update()
        row = self.session.execute(q).mappings().first()
        return None if row is None else _match(row)

    def start_game(self, client_id: str, match_id: str, version: int, game_id: str, at: datetime) -> bool:
        """Make `game_id` the match's game in play and bump the version, only if it is still
        `version`; False otherwise."""
        return self._update(client_id, match_id, version, {"current_game": game_id, "updated_at": at})

    def end_game(
        self, match: MatchRecord, entry: MatchEntry, totals: Mapping[str, int], status: GameStatus, at: datetime
    ) -> bool:
        """Store a finished game's entry and the match's totals and status after it (no game in
        play then), bumping the version, only if it is still `match.version`; False otherwise."""
        values = {"played": entry.n, "totals": dict(totals), "status": status.value, "current_game": None, "updated_at": at}
        if not self._update(match.client_id, match.id, match.version, values):
            return False
        self.session.connection().execute(_ENTRY_INSERT, [_entry_row(match, entry)])
        return True

    def void_game(
        self, match: MatchRecord, entry: MatchEntry, totals: Mapping[str, int], status: GameStatus, at: datetime
    ) -> bool:
        """Mark a game that counted void and take its points off the standings after it and
        after every later game, and store the match's totals and status (the game in play, if
        any, stays so), bumping the version, only if it is still `match.version`; False
        otherwise."""
        values = {"totals": dict(totals), "status": status.value, "updated_at": at}
        if not self._update(match.client_id, match.id, match.version, values):
            return False
        conn = self.session.connection()
        mine = and_(_ENTRIES.c.client_id == match.client_id, _ENTRIES.c.match_id == match.id)
        conn.execute(update(MatchGame).where(mine, _ENTRIES.c.n == entry.n).values(void=True))
        later = {
            f"total_{seat}": _ENTRIES.c[f"total_{seat}"] - int(entry.points[pid])
            for seat, pid in enumerate(match.players)
        }
        conn.execute(update(MatchGame).where(mine, _ENTRIES.c.n >= entry.n).values(**later))
        return True

    def entries(self, match: MatchRecord, before: int | None, limit: int) -> list[MatchEntry]:
        """Up to `limit` of the match's games, newest first, those numbered below `before` (all
        when None)."""
        q = select(_ENTRIES).where(_ENTRIES.c.client_id == match.client_id, _ENTRIES.c.match_id == match.id)
        if before is not None:
            q = q.where(_ENTRIES.c.n < before)
        rows = self.session.execute(q.order_by(_ENTRIES.c.n.desc()).limit(limit)).mappings()
        return [_entry(match.players, row) for row in rows]

    def entry_of_round(self, match: MatchRecord, round_id: str) -> MatchEntry | None:
        """The match's game stored as this round, if any."""
        q = select(_ENTRIES).where(
            _ENTRIES.c.client_id == match.client_id, _ENTRIES.c.match_id == match.id, _ENTRIES.c.round_id == round_id
        )
        row = self.session.execute(q).mappings().first()
        return None if row is None else _entry(match.players, row)

    def last_winner(self, match: MatchRecord) -> str | None:
        """The winner of the match's last game that counts (not voided); None before one."""
        q = (
            select(_ENTRIES.c.winner)
            .where(_ENTRIES.c.client_id == match.client_id, _ENTRIES.c.match_id == match.id, ~_ENTRIES.c.void)
            .order_by(_ENTRIES.c.n.desc())
            .limit(1)
        )
        return self.session.execute(q).scalar()

    def _update(self, client_id: str, match_id: str, version: int, values: dict[str, Any]) -> bool:
        result = self.session.execute(
            update(Match)
            .where(Match.client_id == client_id, Match.id == match_id, Match.version == version)
            .values(version=Match.version + 1, **values)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]


def _entry_row(match: MatchRecord, entry: MatchEntry) -> dict[str, Any]:
    row: dict[str, Any] = {
        "client_id": match.client_id,
        "match_id": match.id,
        "n": entry.n,
        "game_id": entry.game,
        "round_id": entry.round,
        "winner": entry.winner,
        "void": entry.void,
    }
    for seat in range(MATCH_SEATS):
        pid = match.players[seat] if seat < len(match.players) else None
        row[f"points_{seat}"] = None if pid is None else entry.points[pid]
        row[f"total_{seat}"] = None if pid is None else entry.totals[pid]
    return row


def _entry(players: Sequence[str], row: RowMapping) -> MatchEntry:
    return MatchEntry(
        n=row["n"],
        game=row["game_id"],
        round=row["round_id"],
        winner=row["winner"],
        void=row["void"],
        points={pid: int(row[f"points_{seat}"]) for seat, pid in enumerate(players)},
        totals={pid: int(row[f"total_{seat}"]) for seat, pid in enumerate(players)},
    )
