"""Big Two matches over HTTP: start a match, start its games one after another, standings.

A match fixes the rule set, money, table and players of its games. `POST .../games` starts
the next game (the match's players, their hands given or from a deal) once the previous one
has finished; the move that finishes a game adds its standings to the match in the move's own
transaction (`game_finished`, a listener of finished games: store.on_finished), and the match
ends once a player's total reaches `target_points`. Every game is still settled and stored as
its own round; voiding that round takes the game out of the standings in the void's
transaction (`game_voided`, a listener of voids: voids.on_voided).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.adapters.banting import MatchRecord
from service.adapters.uow import Database, UnitOfWork
from service.domain.banting import match as domain
from service.domain.banting.game import GameStatus
from service.domain.banting.match import MatchEntry
from service.domain.banting.rules import BANTING, BantingParams
from service.domain.errors import FieldError, InvalidRound, raise_collected
from service.domain.money import format_money, parse_currency_and_stake
from service.domain.rules import RuleSet, banting_params, resolve_rules
from service.services.banting import games
from service.services.banting.store import FinishedGame
from service.services.clock import new_id, utcnow_ms
from service.services.cursors import bad_cursor, decode_cursor, encode_cursor
from service.services.errors import Conflict, NotFound
from service.services.idempotency import StoredResponse, run_once
from service.services.jsondoc import dump
from service.services.preconditions import refuse_stale
from service.services.rounds.voids import VoidedRound

MATCHES_PATH = "/v1/banting/matches"
# A match's document shows the standings after its latest games, up to this many; every game
# is in `GET .../games`, a page at a time (a match to 10,000 points can run to 10,000 games).
SHOWN_GAMES = 100


def create(
    db: Database, client_id: str, body: Mapping[str, Any], idempotency_key: str | None
) -> StoredResponse:
    """`POST /v1/banting/matches`: the rule set, money, table, players and target of a match."""

    def action(uow: UnitOfWork) -> StoredResponse:
        rules = resolve_rules(body.get("rules"), BANTING)
        errors: list[FieldError] = []
        currency, stake = parse_currency_and_stake(body, errors)
        players = [str(p) for p in body["players"]]
        errors += [
            FieldError(f"players[{i}]", f"{pid!r} is also players[{players.index(pid)}]")
            for i, pid in enumerate(players)
            if players.index(pid) != i
        ]
        raise_collected(errors, InvalidRound)
        now = utcnow_ms()
        match = MatchRecord(
            id=new_id("mt", now),
            client_id=client_id,
            rules_json=rules.to_json(),
            currency=currency,
            stake=stake,
            table_ref=body.get("table"),
            players=tuple(players),
            target_points=int(body.get("target_points") or domain.DEFAULT_TARGET),
            played=0,
            totals=dict.fromkeys(players, 0),
            current_game=None,
            version=1,
            status=GameStatus.PLAYING,
            created_at=now,
            updated_at=now,
        )
        uow.matches.insert(match)
        return StoredResponse(201, dump(_document(uow, match)), location=f"{MATCHES_PATH}/{match.id}")

    return run_once(db, client_id, "POST", MATCHES_PATH, idempotency_key, body, action)


def get(db: Database, client_id: str, match_id: str) -> dict[str, Any]:
    """`GET /v1/banting/matches/{id}`: the match, its totals and the standings after its
    latest games (`SHOWN_GAMES`), as of one snapshot (the match row and its games agree)."""
    with db.snapshot() as uow:
        return _document(uow, _found(uow, client_id, match_id))


def list_games(db: Database, client_id: str, match_id: str, limit: int, cursor: str | None = None) -> dict[str, Any]:
    """`GET /v1/banting/matches/{id}/games`: the match's finished games, newest first, in pages."""
    with db.snapshot() as uow:
        match = _found(uow, client_id, match_id)
        before = None if cursor is None else _before(match, cursor)
        entries = uow.matches.entries(match, before, limit + 1)
    more = len(entries) > limit
    entries = entries[:limit]
    return {
        "items": [e.to_json() for e in entries],
        "next_cursor": encode_cursor(match.created_at, entries[-1].n) if more else None,
    }


def require(db: Database, client_id: str, match_id: str) -> None:
    """404 unless the client has this match."""
    with db.unit_of_work() as uow:
        _found(uow, client_id, match_id)


def start_game(
    db: Database,
    client_id: str,
    match_id: str,
    body: Mapping[str, Any],
    expected_versions: frozenset[int] | None,
    idempotency_key: str | None,
) -> StoredResponse:
    """`POST /v1/banting/matches/{id}/games`: the next game of the match, with the match's
    players in its order; under `first_lead` `previous_winner` the last winner leads it."""
    path = f"{MATCHES_PATH}/{match_id}/games"

    def action(uow: UnitOfWork) -> StoredResponse:
        deal_id = body.get("deal")
        if deal_id is not None:
            # Its deal before the match: every writer locks a deal before the chain (a round
            # that names it) and the chain before a match (a game's last move, a void), so a
            # deal locked after the match closed a cycle with those two.
            uow.deals.get(client_id, str(deal_id), lock=True)
        match = _found(uow, client_id, match_id, lock=True)
        refuse_stale(expected_versions, match.version, "match")
        if match.status != GameStatus.PLAYING:
            raise Conflict(
                f"match {match_id!r} has finished; no more games",
                errors=[FieldError("path.match_id", "the match has finished")],
            )
        if match.current_game is not None:
            raise Conflict(
                f"game {match.current_game!r} of this match is still being played",
                errors=[FieldError("path.match_id", f"finish game {match.current_game!r} first")],
            )
        ids = [str(p["id"]) for p in body["players"]]
        if ids != list(match.players):
            raise InvalidRound(
                "the players of a match game are the match's, in its order: " + ", ".join(match.players),
                errors=[
                    FieldError(f"players[{i}].id", f"expected {want!r}")
                    for i, (got, want) in enumerate(zip(ids + [""] * 4, match.players, strict=False))
                    if got != want
                ]
                or [FieldError("players", f"{len(ids)} players for a match of {len(match.players)}")],
            )
        setup = games.setup(uow, client_id, {**body, **_game_terms(match)})
        leader = _next_leader(uow, match)
        game, state = games.start(uow, client_id, setup, match_id=match.id, leader=leader)
        if not uow.matches.start_game(match.client_id, match.id, match.version, game.id, game.created_at):
            raise Conflict("the match changed while this game was started; fetch it and retry")
        location = f"{games.GAMES_PATH}/{game.id}"
        return StoredResponse(201, dump(games.game_document(game, state)), location=location)

    return run_once(db, client_id, "POST", path, idempotency_key, body, action)


def game_finished(uow: UnitOfWork, finished: FinishedGame) -> None:
    """Add a finished game's standings to its match (if it is a match's), in the transaction
    of its last move."""
    game = finished.game
    if game.match_id is None:
        return
    match = _found(uow, finished.client_id, game.match_id, lock=True)
    entry, totals, status = domain.add_game(
        match.players,
        match.totals,
        match.played,
        match.target_points,
        game.id,
        finished.round_id,
        finished.winner,
        domain.game_points(finished.state),
    )
    if not uow.matches.end_game(match, entry, totals, status, utcnow_ms()):
        raise Conflict("the match changed while this move was applied; fetch it and retry")


def of_a_match(voided: VoidedRound) -> bool:
    """Whether a voided round is a game of a match (its request names the match)."""
    return voided.round.game == BANTING and voided.request.get("match") is not None


def game_voided(uow: UnitOfWork, voided: VoidedRound) -> None:
    """Take a voided round's game out of its match's standings, in the void's transaction:
    the entry stays, marked void; the totals after each game, the status and the next
    leader are taken again without it."""
    match = _found(uow, voided.client_id, str(voided.request["match"]), lock=True)
    entry = uow.matches.entry_of_round(match, voided.round.id)
    if entry is None or entry.void:
        return
    totals, status = domain.void_game(match.players, match.totals, match.target_points, entry)
    if not uow.matches.void_game(match, entry, totals, status, utcnow_ms()):
        raise Conflict("the match changed while this round was voided; retry")


def _game_terms(match: MatchRecord) -> dict[str, Any]:
    return {
        "rules": match.rules_json,
        "currency": match.currency,
        "stake": format_money(match.stake, match.currency),
        "table": match.table_ref,
    }


def _params(match: MatchRecord) -> BantingParams:
    return banting_params(RuleSet.from_json(match.rules_json))


def _found(uow: UnitOfWork, client_id: str, match_id: str, lock: bool = False) -> MatchRecord:
    match = uow.matches.get(client_id, match_id, lock=lock)
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    return match


def _next_leader(uow: UnitOfWork, match: MatchRecord, latest: Sequence[MatchEntry] | None = None) -> str | None:
    """Who leads the match's next game (None: the holder of the lowest card): the winner of
    its last game that counts under `previous_winner`, found among the `latest` entries read
    (newest first) when one of them counts or they are all the match's games, else read."""
    if not domain.leads_by_winner(_params(match).lead_rule):
        return None
    if latest is not None:
        winner = domain.last_winner(latest)
        if winner is not None or len(latest) == match.played:
            return winner
    return uow.matches.last_winner(match)


def _before(match: MatchRecord, cursor: str) -> int:
    """The game number a cursor of this match's list resumes below."""
    created_at, n = decode_cursor(cursor, int)
    if created_at != match.created_at:
        raise bad_cursor()
    return int(n)


def _document(uow: UnitOfWork, match: MatchRecord) -> dict[str, Any]:
    players, status = match.players, match.status
    latest = uow.matches.entries(match, None, SHOWN_GAMES) if match.played else []
    return {
        "id": match.id,
        "status": status.value,
        "version": match.version,
        "rules": match.rules_json,
        "currency": match.currency,
        "stake": format_money(match.stake, match.currency),
        "table": match.table_ref,
        "target_points": match.target_points,
        "players": [{"id": pid, "points": match.totals[pid]} for pid in players],
        "played": match.played,
        "games": [e.to_json() for e in reversed(latest)],
        "current_game": match.current_game,
        "next_leader": None if status != GameStatus.PLAYING else _next_leader(uow, match, latest),
        "winners": domain.winners(players, match.totals, status),
    }
