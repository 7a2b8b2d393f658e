"""Capsa Banting (Big Two) games over HTTP: evaluate a play, start a game, move, settle.

A game row holds the dealt hands and the moves; its state is the moves replayed by the pure
referee (`service.domain.banting_game`). A move runs in one write transaction that locks the
game row (`SELECT ... FOR UPDATE` on PostgreSQL; SQLite's `BEGIN IMMEDIATE` already serializes
writers) and writes back under a version check, so two concurrent moves never both apply. The
final move settles the game and records it as a `game: banting` round in the same transaction.

Turn timers (`turn_seconds`): every access (GET, a move, a hint) first applies the auto moves
that are due (`domain.banting.timers`) in a write transaction of their own, so they stand even
when the request that found them then fails; each is stored with `"auto": true` and dated at
its deadline, so whoever applies them, and however late, the same moves are stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from service.adapters.models import Game
from service.adapters.uow import Database, UnitOfWork
from service.domain.banting.game import (
    GameFinished,
    GameState,
    Move,
    apply_move,
    new_game,
    replay,
    state_document,
)
from service.domain.banting.hint import hint as domain_hint
from service.domain.banting.plays import evaluate_play
from service.domain.banting.rules import BANTING, BantingParams
from service.domain.banting.settlement import settle_game, settlement_document
from service.domain.banting.timers import TURN_TIMED_OUT, AutoMove, deadline, overdue_moves
from service.domain.cards import Card, canonical, parse_cards
from service.domain.errors import (
    CapsaError,
    FieldError,
    IllegalMove,
    InvalidCard,
    InvalidRound,
    raise_collected,
)
from service.domain.money import PairLine, PlayerLine, format_money, parse_currency_and_stake, parse_stake
from service.domain.rules import RuleSet, resolve_rules
from service.domain.version import ENGINE_VERSION

from . import deals
from .errors import Conflict, NotFound
from .idempotency import StoredResponse, run_once
from .ids import new_id, rfc3339, utcnow_ms
from .jsondoc import dump
from .pages import decode_cursor, encode_cursor
from .recording import round_record
from .versions import refuse_stale

GAMES_PATH = "/v1/banting/games"


def _params(rules: RuleSet) -> BantingParams:
    params = rules.params
    assert isinstance(params, BantingParams)
    return params


# -- evaluate -------------------------------------------------------------------------------


def evaluate(body: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /v1/banting/plays/evaluate`: the combination, and whether it beats `beats`."""
    rules = resolve_rules(body.get("rules"), BANTING)
    cards = parse_cards(body["cards"], "cards")
    table = None if body.get("beats") is None else parse_cards(body["beats"], "beats")
    document = evaluate_play(cards, table, _params(rules))
    document["rules"] = rules.to_json()
    return document


# -- games ----------------------------------------------------------------------------------


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
        row, state = start(uow, client_id, setup(uow, client_id, body))
        doc = game_document(row, state)
        return StoredResponse(201, dump(doc), location=f"{GAMES_PATH}/{row['id']}")

    return run_once(db, client_id, "POST", GAMES_PATH, idempotency_key, body, action)


def start(
    uow: UnitOfWork, client_id: str, setup: Setup, match_id: str | None = None, leader: str | None = None
) -> tuple[dict[str, Any], GameState]:
    """Insert a new game (of a match, led by `leader`, when given) and use its deal."""
    seat = None if leader is None else setup.ids.index(leader)
    state = new_game(setup.ids, setup.hands, _params(setup.rules), seat)
    now = utcnow_ms()
    game_id = new_id("gm", now)
    row = {
        "id": game_id,
        "client_id": client_id,
        "rules_json": setup.rules.to_json(),
        "currency": setup.currency,
        "stake": setup.stake,
        "table_ref": setup.table,
        "players": setup.ids,
        "hands": [canonical(h) for h in setup.hands],
        "deal_id": setup.deal,
        "moves": [],
        "version": 1,
        "status": state.status,
        "winner": None,
        "round_id": None,
        "created_at": now,
        "updated_at": now,
        "match_id": match_id,
        "leader": leader,
        "turn_seconds": setup.turn_seconds,
    }
    uow.games.insert(row)
    if setup.deal is not None:
        deals.use(uow, client_id, setup.deal, game_id)
    return row, state


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
        dealt = deals.dealt(uow, client_id, deal_id)
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


def get(db: Database, client_id: str, game_id: str) -> dict[str, Any]:
    """`GET /v1/banting/games/{id}`: the state (hands are never shown), after any auto
    moves that were due."""
    with db.unit_of_work() as uow:
        row = _found(uow, client_id, game_id)
        if not _due(row, utcnow_ms()):
            return game_document(_row_dict(row), _state(row))
    catch_up(db, client_id, game_id)
    with db.unit_of_work() as uow:
        row = _found(uow, client_id, game_id)
        return game_document(_row_dict(row), _state(row))


def hand(db: Database, client_id: str, game_id: str, player: str) -> dict[str, Any]:
    """`GET /v1/banting/games/{id}/hands/{player}`: the cards one player holds now, lowest
    first (after any auto moves that were due), for the game server to relay to it alone."""
    catch_up(db, client_id, game_id)
    with db.unit_of_work() as uow:
        row = _found(uow, client_id, game_id)
        state = _state(row)
        seat = state.seat_of(player)
        if seat is None:
            raise NotFound(f"game {game_id!r} has no player {player!r}")
        return {
            "game": row.id,
            "player": player,
            "hand": canonical(state.hand(seat)),
            "status": state.status,
            "version": row.version,
        }


def hint(db: Database, client_id: str, game_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /v1/banting/games/{id}/hint`: a good legal move for the player in turn, from its
    own cards (after any auto moves that were due); nothing is stored."""
    catch_up(db, client_id, game_id)
    with db.unit_of_work() as uow:
        row = _found(uow, client_id, game_id)
        state = _state(row)
        player = str(body["player"])
        if state.finished:
            raise _finished(game_id)
        _refuse_if_timed_out(row.moves, row.turn_seconds, state, player)
        suggestion = domain_hint(state, player)
        move_body: dict[str, Any] = {"player": player}
        if suggestion.play is None:
            move_body["pass"] = True
        else:
            move_body["play"] = canonical(suggestion.play.cards)
        return {
            "game": row.id,
            "version": row.version,
            "move": move_body,
            "combination": None if suggestion.play is None else suggestion.play.combination.value,
            "deadline": _deadline_text(_row_dict(row), state),
        }


# -- turn timers ----------------------------------------------------------------------------


def _last_move_at(moves: Sequence[Mapping[str, Any]], created_at: datetime) -> datetime:
    """When the turn in play began: the last move's time, or the game's start."""
    for stored in reversed(moves):
        if stored.get("at") is not None:
            return datetime.fromisoformat(stored["at"])
    return created_at


def _deadline_text(row: Mapping[str, Any], state: GameState) -> str | None:
    if row["turn_seconds"] is None or state.finished:
        return None
    return rfc3339(deadline(_last_move_at(row["moves"], row["created_at"]), row["turn_seconds"]))


def _overdue(row: Game, state: GameState, now: datetime) -> tuple[GameState, list[dict[str, Any]]]:
    """The state after the auto moves due by `now`, and those moves as stored."""
    if row.turn_seconds is None or state.finished:
        return state, []
    state, made = overdue_moves(state, _last_move_at(row.moves, row.created_at), row.turn_seconds, now)
    return state, [_stored_auto(m) for m in made]


def _due(row: Game, now: datetime) -> bool:
    """Whether the turn in play has run out (no replay needed to say so)."""
    return (
        row.turn_seconds is not None
        and row.status == "playing"
        and now >= deadline(_last_move_at(row.moves, row.created_at), row.turn_seconds)
    )


def catch_up(db: Database, client_id: str, game_id: str) -> int:
    """Apply and store the game's overdue auto moves in their own transaction (a round too
    when they end it); how many. Cheap when none is due: one read, no lock."""
    with db.unit_of_work() as uow:
        row = uow.games.get(client_id, game_id)
        if row is None or not _due(row, utcnow_ms()):
            return 0
    with db.unit_of_work(write=True) as uow:
        row = _found(uow, client_id, game_id, lock=True)
        now = utcnow_ms()
        if not _due(row, now):
            return 0  # another request applied them first
        state, added = _overdue(row, _state(row), now)
        _save(uow, client_id, row, state, [*row.moves, *added], now)
        uow.commit()
        return len(added)


def sweep(db: Database) -> int:
    """Apply every timed game's overdue auto moves (for a sweeper process; accesses do it
    anyway); how many moves."""
    return sum(moves for _client, _game, moves in play_overdue(db))


def play_overdue(db: Database) -> list[tuple[str, str, int]]:
    """Apply every timed game's overdue auto moves: (client id, game id, how many moves) of
    each game this pass played in."""
    with db.unit_of_work() as uow:
        due = uow.games.timed_in_play()
    played = [(client_id, game_id, catch_up(db, client_id, game_id)) for client_id, game_id in due]
    return [found for found in played if found[2]]


def _refuse_if_timed_out(
    moves: Sequence[Mapping[str, Any]], turn_seconds: int | None, state: GameState, player: str
) -> None:
    """A player whose last turn the service played (and who is not in turn again) is late."""
    seat = state.seat_of(player)
    if seat is None or seat == state.turn or turn_seconds is None:
        return
    mine = [n for n, m in enumerate(moves, 1) if m["player"] == player]
    last = moves[mine[-1] - 1] if mine else None
    if last is not None and last.get("auto"):
        n = mine[-1]
        raise IllegalMove(
            f"{TURN_TIMED_OUT}: {player!r}'s turn ended at {last['at']}; the service played move {n} for it",
            field="player",
        )


def list_(
    db: Database,
    client_id: str,
    *,
    status: str | None = None,
    table: str | None = None,
    limit: int = 20,
    cursor: str | None = None,
) -> dict[str, Any]:
    """`GET /v1/banting/games`: a page of the client's games (each its state), newest first."""
    after = None if cursor is None else cast(tuple[datetime, str], decode_cursor(cursor, str))
    with db.unit_of_work() as uow:
        rows, next_after = uow.games.page(client_id, status, table, limit, after)
        items = [game_document(_row_dict(r), _state(r)) for r in rows]
    return {"items": items, "next_cursor": None if next_after is None else encode_cursor(*next_after)}


def require(db: Database, client_id: str, game_id: str) -> None:
    """404 unless the client has this game (a cheap look-up, no replay)."""
    with db.unit_of_work() as uow:
        if not uow.games.exists(client_id, game_id):
            raise NotFound(f"no game {game_id!r}")


def _found(uow: UnitOfWork, client_id: str, game_id: str, lock: bool = False) -> Game:
    row = uow.games.get(client_id, game_id, lock=lock)
    if row is None:
        raise NotFound(f"no game {game_id!r}")
    return row


def _row_dict(row: Game) -> dict[str, Any]:
    return {
        "match_id": row.match_id,
        "id": row.id,
        "rules_json": row.rules_json,
        "currency": row.currency,
        "stake": row.stake,
        "table_ref": row.table_ref,
        "version": row.version,
        "round_id": row.round_id,
        "moves": row.moves,
        "turn_seconds": row.turn_seconds,
        "created_at": row.created_at,
    }


def _state(row: Game) -> GameState:
    rules = RuleSet.from_json(row.rules_json)
    return replay(
        row.players,
        [parse_cards(h, "hands") for h in row.hands],
        _params(rules),
        [_move(m) for m in row.moves],
        None if row.leader is None else row.players.index(row.leader),
    )


def _move(stored: Mapping[str, Any]) -> Move:
    play = stored.get("play")
    if play is None:
        return Move.pass_turn(stored["player"])
    return Move.play(stored["player"], parse_cards(play, "play"))


def game_document(row: Mapping[str, Any], state: GameState) -> dict[str, Any]:
    """The game state (docs/api.md#big-two-games): id, status, version, rules, ..., winner,
    round (and `match` first for a game of a match)."""
    domain = state_document(state)
    match = {} if row.get("match_id") is None else {"match": row["match_id"]}
    return {
        **match,
        "id": row["id"],
        "status": domain["status"],
        "version": row["version"],
        "rules": row["rules_json"],
        "currency": row["currency"],
        "stake": format_money(row["stake"], row["currency"]),
        "table": row["table_ref"],
        "players": domain["players"],
        "turn": domain["turn"],
        "turn_seconds": row["turn_seconds"],
        "deadline": _deadline_text(row, state),
        "leader": domain["leader"],
        "table_play": domain["table_play"],
        "history": [
            {**entry, "auto": bool(stored.get("auto")), "at": stored.get("at")}
            for entry, stored in zip(domain["history"], row["moves"], strict=True)
        ],
        "winner": domain["winner"],
        "round": row["round_id"],
    }


# -- moves ----------------------------------------------------------------------------------


def parse_move(body: Mapping[str, Any]) -> Move:
    """`{"player", "play": [...]}` or `{"player", "pass": true}`, exactly one of the two."""
    player = str(body["player"])
    play, passes = body.get("play"), body.get("pass")
    if play is not None and passes:
        raise InvalidRound("a move either plays cards or passes, not both", field="pass")
    if passes:
        return Move.pass_turn(player)
    if play is None:
        field = "pass" if passes is False else "play"
        raise InvalidRound('a move needs "play": [cards] or "pass": true', field=field)
    return Move.play(player, parse_cards(play, "play"))


def move(
    db: Database,
    client_id: str,
    game_id: str,
    body: Mapping[str, Any],
    expected_versions: frozenset[int] | None,
    idempotency_key: str | None,
) -> StoredResponse:
    """`POST /v1/banting/games/{id}/moves`: apply one move; the last one settles the game."""
    path = f"{GAMES_PATH}/{game_id}/moves"

    def action(uow: UnitOfWork) -> StoredResponse:
        row = _found(uow, client_id, game_id, lock=True)
        now = utcnow_ms()
        # Auto moves due in the milliseconds since catch_up are applied here, before the move
        # (if the move is then refused they roll back with it, and the next access makes them
        # again, the same moves at the same times).
        state, added = _overdue(row, _state(row), now)
        before = [*row.moves, *added]
        if row.status != "playing" or state.finished:
            raise _finished(game_id)
        the_move = parse_move(body)
        _refuse_if_timed_out(before, row.turn_seconds, state, the_move.player)
        # The auto moves, once stored, are a version of their own: the client's is stale.
        refuse_stale(expected_versions, row.version + bool(added), "game")
        try:
            state = apply_move(state, the_move)
        except GameFinished as exc:  # the stored status said playing: should not happen
            raise _finished(game_id) from exc
        moves = [*before, _stored_move(the_move, now)]
        version, round_id = _save(uow, client_id, row, state, moves, now)
        doc = game_document({**_row_dict(row), "version": version, "round_id": round_id, "moves": moves}, state)
        return StoredResponse(200, dump(doc))

    catch_up(db, client_id, game_id)
    return run_once(db, client_id, "POST", path, idempotency_key, body, action)


def _save(
    uow: UnitOfWork, client_id: str, row: Game, state: GameState, moves: list[dict[str, Any]], now: datetime
) -> tuple[int, str | None]:
    """Write the moves (and, when the game has ended, its round) under the version check;
    the new version and the round."""
    values: dict[str, Any] = {"moves": moves, "status": state.status, "updated_at": now}
    round_id = None
    if state.finished:
        values["winner"] = state.player_ids[state.winner] if state.winner is not None else None
        round_id = _record(uow, client_id, row, moves, state)
        values["round_id"] = round_id
        if row.match_id is not None:  # a move or an auto move ending a game of a match
            from . import matches  # matches start games here: imported when needed

            matches.game_finished(uow, client_id, row.match_id, row.id, round_id, state)
    if not uow.games.update_if_version(row.client_id, row.id, row.version, values):
        raise Conflict("the game changed while this move was applied; fetch it and retry")
    return row.version + 1, round_id


def _finished(game_id: str) -> Conflict:
    return Conflict(
        f"game {game_id!r} has finished; no more moves",
        errors=[FieldError("player", "the game has finished")],
    )


def _stored_move(m: Move, at: datetime, auto: bool = False) -> dict[str, Any]:
    return {
        "player": m.player,
        "play": None if m.cards is None else canonical(m.cards),
        "at": rfc3339(at),
        "auto": auto,
    }


def _stored_auto(made: AutoMove) -> dict[str, Any]:
    return _stored_move(made.move, made.at, auto=True)


# -- the finished game as a round -----------------------------------------------------------


@dataclass(frozen=True)
class ScoredGame:
    """A settled game: the round's score document and its money lines."""

    document: dict[str, Any]
    players: tuple[PlayerLine, ...]
    pairs: tuple[PairLine, ...]
    house_fee: int
    preset: str


def round_request(row: Game, moves: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The normalised request a finished game is recorded (and re-scored) from.

    `turn_seconds` and each move's `at` and `auto` were added with turn timers: a request
    with `turn_seconds` (null when untimed) gives a document whose history marks the auto
    moves; one stored before has neither, and re-scores to the document it was stored with.
    """
    return {
        "rules": row.rules_json,
        "table": row.table_ref,
        "reference": None,
        "currency": row.currency,
        "stake": format_money(row.stake, row.currency),
        "deal": row.deal_id,
        "game": row.id,
        "players": [{"id": pid, "hand": list(hand)} for pid, hand in zip(row.players, row.hands, strict=True)],
        "turn_seconds": row.turn_seconds,
        "moves": [
            {
                "player": m["player"],
                "play": m["play"],
                "pass": m["play"] is None,
                "at": m.get("at"),
                "auto": bool(m.get("auto")),
            }
            for m in moves
        ],
        # Only games of a match name it and, under previous_winner, their leader: the requests
        # of games stored before matches existed stay as they were.
        **({} if row.match_id is None else {"match": row.match_id}),
        **({} if row.leader is None else {"leader": row.leader}),
    }


def score_request(request: Mapping[str, Any]) -> ScoredGame:
    """Replay the moves of a normalised game request and settle it: the round's document."""
    rules = RuleSet.from_json(request["rules"])
    params = _params(rules)
    currency = request["currency"]
    stake = parse_stake(request["stake"], currency, "stake")
    players = request["players"]
    seats = [p["id"] for p in players]
    leader = request.get("leader")
    state = replay(
        seats,
        [parse_cards(p["hand"], f"players[{i}].hand") for i, p in enumerate(players)],
        params,
        [_move(m) for m in request["moves"]],
        None if leader is None else seats.index(leader),
    )
    if not state.finished:
        raise InvalidRound("the game has not finished", field="moves")
    settlement = settle_game(state, stake, params)
    settled = settlement_document(state, settlement, currency)
    document = {
        "game": "banting",
        "table": request["table"],
        "reference": request["reference"],
        "currency": currency,
        "stake": format_money(stake, currency),
        "rules": rules.to_json(),
        "engine_version": ENGINE_VERSION,
        "players": settled["players"],
        "pairs": settled["pairs"],
        "house_fee": settled["house_fee"],
        "history": _history(state, request),
    }
    if "turn_seconds" in request:
        document["turn_seconds"] = request["turn_seconds"]
    ids = state.player_ids
    lines = tuple(
        PlayerLine(ids[p.seat], p.points, p.money.result, p.money.winnings, p.money.fee, p.money.net)
        for p in settlement.players
    )
    pairs = tuple(
        PairLine(ids[p.winner], ids[p.loser], stake, p.points, p.amount, p.outcome) for p in settlement.pairs
    )
    return ScoredGame(document, lines, pairs, settlement.house_fee, rules.preset)


def _history(state: GameState, request: Mapping[str, Any]) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = state_document(state)["history"]
    if "turn_seconds" not in request:
        return history  # stored before turn timers: the document it was stored with
    return [
        {**e, "auto": bool(m.get("auto")), "at": m.get("at")}
        for e, m in zip(history, request["moves"], strict=True)
    ]


def rescore(request: Mapping[str, Any]) -> dict[str, Any]:
    """The verify re-scorer of `game: banting` rounds: the same score document."""
    return score_request(request).document


def _record(
    uow: UnitOfWork, client_id: str, row: Game, moves: Sequence[Mapping[str, Any]], state: GameState
) -> str:
    """Record the finished game as a round (its record, ledger lines and place in the chain),
    in the move's transaction."""
    request = round_request(row, moves)
    scored = score_request(request)
    now = utcnow_ms()
    round_id = new_id("rnd", now)
    built = round_record(
        client_id,
        round_id=round_id,
        created_at=now,
        game="banting",
        preset=scored.preset,
        currency=row.currency,
        table=row.table_ref,
        reference=None,
        request=request,
        document=scored.document,
        players=scored.players,
        house_fee=scored.house_fee,
        engine_version=ENGINE_VERSION,
    )
    uow.chain.append(built.new)
    return round_id
