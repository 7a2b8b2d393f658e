"""The Big Two game lifecycle over HTTP: evaluate a play, create or start a game, get, list,
a player's hand, a hint, a move.

A game is stored with its dealt hands and its moves (store.py); its state is the moves
replayed by the pure referee. A move locks the game row (`SELECT ... FOR UPDATE` on
PostgreSQL; SQLite's `BEGIN IMMEDIATE` already serializes writers) and writes back under a
version check, so two concurrent moves never both apply; the final move settles the game and
records it as a `game: banting` round in the same transaction (recording.py). Every access
first applies the auto moves of a timed game that are due (timers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from service.adapters.banting import GameRecord
from service.adapters.uow import Database, UnitOfWork
from service.domain.banting.game import (
    GameState,
    GameStatus,
    apply_move,
    new_game,
    state_document,
)
from service.domain.banting.hint import hint as domain_hint
from service.domain.banting.moves import MadeMove, move_body, parse_move
from service.domain.banting.plays import evaluate_play
from service.domain.banting.rules import BANTING
from service.domain.banting.timers import refuse_if_timed_out
from service.domain.cards import Card, canonical, parse_cards
from service.domain.errors import CapsaError, FieldError, InvalidCard, InvalidRound, raise_collected
from service.domain.money import format_money, parse_currency_and_stake
from service.domain.rules import RuleSet, banting_params, resolve_rules
from service.services import deals
from service.services.banting import store, timers
from service.services.clock import new_id, utcnow_ms
from service.services.cursors import decode_cursor, encode_cursor, page_with_work, worked_page
from service.services.errors import NotFound
from service.services.idempotency import StoredResponse, run_once, run_once_after
from service.services.jsondoc import dump
from service.services.preconditions import refuse_stale
from service.services.slots import Guard, ran

GAMES_PATH = "/v1/banting/games"
# Games a list page plays the due auto moves of at most (each a replay and a write); a page
# holding more ends before the next one, its cursor resuming there.
CATCH_UP_PER_PAGE = 10


# -- evaluate -------------------------------------------------------------------------------


def evaluate(body: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /v1/banting/plays/evaluate`: the combination, and whether it beats `beats`."""
    rules = resolve_rules(body.get("rules"), BANTING)
    cards = parse_cards(body["cards"], "cards")
    table = None if body.get("beats") is None else parse_cards(body["beats"], "beats")
    document = evaluate_play(cards, table, banting_params(rules))
    document["rules"] = rules.to_json()
    return document


# -- starting a game ------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    rules: RuleSet
    currency: str
    stake: int
    table: str | None
    ids: list[str]
    hands: list[list[Card]]
    deal: str | None
    turn_seconds: int | None = None


def create(
    db: Database, client_id: str, body: Mapping[str, Any], idempotency_key: str | None
) -> StoredResponse:
    """`POST /v1/banting/games`: seat the players with their hands (given, or from a deal)."""

    def action(uow: UnitOfWork) -> StoredResponse:
        game, state = start(uow, client_id, setup(uow, client_id, body))
        doc = game_document(game, state)
        return StoredResponse(201, dump(doc), location=f"{GAMES_PATH}/{game.id}")

    return run_once(db, client_id, "POST", GAMES_PATH, idempotency_key, body, action)


def start(
    uow: UnitOfWork, client_id: str, setup: Setup, match_id: str | None = None, leader: str | None = None
) -> tuple[GameRecord, GameState]:
    """Insert a new game (of a match, led by `leader`, when given) and use its deal."""
    seat = None if leader is None else setup.ids.index(leader)
    state = new_game(setup.ids, setup.hands, banting_params(setup.rules), seat)
    now = utcnow_ms()
    game = GameRecord(
        id=new_id("gm", now),
        client_id=client_id,
        rules_json=setup.rules.to_json(),
        currency=setup.currency,
        stake=setup.stake,
        table_ref=setup.table,
        players=tuple(setup.ids),
        hands=tuple(tuple(canonical(h)) for h in setup.hands),
        deal_id=setup.deal,
        moves=(),
        version=1,
        status=state.status,
        winner=None,
        round_id=None,
        created_at=now,
        updated_at=now,
        match_id=match_id,
        leader=leader,
        turn_seconds=setup.turn_seconds,
    )
    uow.games.insert(game)
    if setup.deal is not None:
        deals.use(uow, client_id, setup.deal, game.id)
    return game, state


def setup(uow: UnitOfWork, client_id: str, body: Mapping[str, Any]) -> Setup:
    rules = resolve_rules(body.get("rules"), BANTING)
    errors: list[FieldError] = []
    currency, stake = parse_currency_and_stake(body, errors)
    raise_collected(errors, InvalidRound)
    players: list[Mapping[str, Any]] = list(body["players"])
    ids = [str(p["id"]) for p in players]
    deal_id = body.get("deal")
    if deal_id is None:
        missing = [
            FieldError(f"players[{i}].hand", "a hand of 13 cards is required without a deal")
            for i, p in enumerate(players)
            if p.get("hand") is None
        ]
        raise_collected(missing, InvalidCard)
        hands = _parse_hands(players)
    else:
        dealt = deals.dealt(uow, client_id, deal_id, lock=True)
        deals.check_players(dealt, ids, ordered=True)
        for i, p in enumerate(players):
            if p.get("hand") is not None:
                deals.check_hand(dealt, ids[i], p["hand"], f"players[{i}].hand")
        hands = [list(h) for h in dealt.hands]
    return Setup(rules, currency, stake, body.get("table"), ids, hands, deal_id, body.get("turn_seconds"))


def _parse_hands(players: Sequence[Mapping[str, Any]]) -> list[list[Card]]:
    errors: list[FieldError] = []
    hands: list[list[Card]] = []
    for i, p in enumerate(players):
        try:
            hands.append(parse_cards(p["hand"], f"players[{i}].hand"))
        except CapsaError as exc:
            errors += exc.errors
    raise_collected(errors, InvalidCard)
    return hands


# -- reading a game -------------------------------------------------------------------------


def get(db: Database, client_id: str, game_id: str) -> dict[str, Any]:
    """`GET /v1/banting/games/{id}`: the state (hands are never shown), after any auto
    moves that were due."""
    with db.unit_of_work() as uow:
        game = store.found(uow, client_id, game_id)
        if not timers.due(game, utcnow_ms()):
            return game_document(game, store.state_of(game))
    timers.catch_up(db, client_id, game_id)
    with db.unit_of_work() as uow:
        game = store.found(uow, client_id, game_id)
        return game_document(game, store.state_of(game))


def hand(db: Database, client_id: str, game_id: str, player: str) -> dict[str, Any]:
    """`GET /v1/banting/games/{id}/hands/{player}`: the cards one player holds now, lowest
    first (after any auto moves that were due), for the game server to relay to it alone."""
    timers.catch_up(db, client_id, game_id)
    with db.unit_of_work() as uow:
        game = store.found(uow, client_id, game_id)
        state = store.state_of(game)
        seat = state.seat_of(player)
        if seat is None:
            raise NotFound(f"game {game_id!r} has no player {player!r}")
        return {
            "game": game.id,
            "player": player,
            "hand": canonical(state.hand(seat)),
            "status": state.status.value,
            "version": game.version,
        }


def hint(db: Database, client_id: str, game_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /v1/banting/games/{id}/hint`: a good legal move for the player in turn, from its
    own cards (after any auto moves that were due); nothing is stored."""
    timers.catch_up(db, client_id, game_id)
    with db.unit_of_work() as uow:
        game = store.found(uow, client_id, game_id)
        state = store.state_of(game)
        player = str(body["player"])
        if state.finished:
            raise store.finished_conflict(game_id)
        refuse_if_timed_out(game.moves, game.turn_seconds, state, player)
        suggestion = domain_hint(state, player)
        return {
            "game": game.id,
            "version": game.version,
            "move": move_body(suggestion.move),
            "combination": None if suggestion.play is None else suggestion.play.combination.value,
            "deadline": timers.deadline_text(game, state),
        }


def list_(
    db: Database,
    client_id: str,
    *,
    status: str | None = None,
    table: str | None = None,
    limit: int = 20,
    cursor: str | None = None,
    guard: Guard | None = None,
) -> dict[str, Any]:
    """`GET /v1/banting/games`: a page of the client's games (each its state), newest first.
    Games on it whose turn ran out get their due auto moves first, as a GET of one does, at
    most `CATCH_UP_PER_PAGE`, and no further one once `PAGE_WORK_CPU_S` of CPU has gone on
    them: a page holding more ends before the next one (fewer items than `limit`, its cursor
    resuming there). With `guard`, the auto moves (a hint each, up to
    50 ms a game) are played only if the guard lets them; else the games are shown as
    stored, and the sweeper plays their turns."""
    after = None if cursor is None else cast(tuple[datetime, str], decode_cursor(cursor, str))
    wanted = None if status is None else GameStatus(status)
    now = utcnow_ms()
    # Finished games include those that their due auto moves finish: a read plays them first.
    due_by = now if wanted is GameStatus.FINISHED else None
    with db.unit_of_work() as uow:
        games, next_after = uow.games.page(client_id, wanted, table, limit, after, or_due_by=due_by)
    games, due, next_after = page_with_work(games, lambda g: timers.due(g, now), CATCH_UP_PER_PAGE, next_after)

    def catch_up() -> bool:
        nonlocal games, due, next_after
        games, due, next_after = worked_page(games, due, next_after, lambda g: timers.catch_up(db, client_id, g))
        return True

    if due and ran(catch_up, guard):
        with db.unit_of_work() as uow:
            fresh = {g: found for g in due if (found := uow.games.get(client_id, g)) is not None}
        games = [fresh.get(g.id, g) for g in games]
    if wanted is not None:  # finished by its auto moves, or in play past a deadline kept stale: not asked for
        games = [g for g in games if g.status == wanted]
    items = [game_document(g, store.state_of(g)) for g in games]
    return {"items": items, "next_cursor": None if next_after is None else encode_cursor(*next_after)}



def require(db: Database, client_id: str, game_id: str) -> None:
    """404 unless the client has this game (a cheap look-up, no replay)."""
    with db.unit_of_work() as uow:
        if not uow.games.exists(client_id, game_id):
            raise NotFound(f"no game {game_id!r}")


def game_document(game: GameRecord, state: GameState) -> dict[str, Any]:
    """The game state (docs/api.md#big-two-games): id, status, version, rules, ..., winner,
    round (and `match` first for a game of a match)."""
    domain = state_document(state)
    match = {} if game.match_id is None else {"match": game.match_id}
    return {
        **match,
        "id": game.id,
        "status": domain["status"],
        "version": game.version,
        "rules": game.rules_json,
        "currency": game.currency,
        "stake": format_money(game.stake, game.currency),
        "table": game.table_ref,
        "players": domain["players"],
        "turn": domain["turn"],
        "turn_seconds": game.turn_seconds,
        "deadline": timers.deadline_text(game, state),
        "leader": domain["leader"],
        "table_play": domain["table_play"],
        "history": [
            {**entry, "auto": made.auto, "at": made.at_text}
            for entry, made in zip(domain["history"], game.moves, strict=True)
        ],
        "winner": domain["winner"],
        "round": game.round_id,
    }


# -- moves ----------------------------------------------------------------------------------


Checks = Callable[[], tuple[str | None, frozenset[int] | None]]


@dataclass(frozen=True)
class _Found:
    """A move's game once its due auto moves are stored, its state, the headers' values."""

    game: GameRecord
    state: GameState
    now: datetime
    expected_versions: frozenset[int] | None


def move(db: Database, client_id: str, game_id: str, body: Mapping[str, Any], checks: Checks) -> StoredResponse:
    """`POST /v1/banting/games/{id}/moves`: apply one move; the last one settles the game.

    One write transaction: the game is locked (404 for another client's), `checks()` runs
    (the write scope, 403, then the Idempotency-Key and If-Match headers it returns), the
    auto moves that are due are stored (a version of their own), then the key is claimed and
    the move applied and saved in a savepoint: when the move is refused (422, 409, 412) or
    the key replays, only the savepoint rolls back and the auto moves stand.
    """
    path = f"{GAMES_PATH}/{game_id}/moves"

    def first(uow: UnitOfWork) -> tuple[_Found, str | None]:
        game = store.found(uow, client_id, game_id, lock=True)
        key, expected_versions = checks()
        now = utcnow_ms()
        game, state, _ = timers.catch_up_in(uow, client_id, game, now)
        return _Found(game, state, now, expected_versions), key

    def action(uow: UnitOfWork, found: _Found) -> StoredResponse:
        game, state = found.game, found.state
        if state.finished:
            raise store.finished_conflict(game_id)
        the_move = parse_move(body)
        refuse_if_timed_out(game.moves, game.turn_seconds, state, the_move.player)
        refuse_stale(found.expected_versions, game.version, "game")
        state = apply_move(state, the_move)
        saved = store.save(uow, client_id, game, state, [*game.moves, MadeMove(the_move, found.now)], found.now)
        return StoredResponse(200, dump(game_document(saved, state)))

    return run_once_after(db, client_id, "POST", path, body, first, action)
