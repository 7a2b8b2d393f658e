"""Capsa Banting (Big Two) games over HTTP: evaluate a play, start a game, move, settle.

A game row holds the dealt hands and the moves; its state is the moves replayed by the pure
referee (`service.domain.banting_game`). A move runs in one write transaction that locks the
game row (`SELECT ... FOR UPDATE` on PostgreSQL; SQLite's `BEGIN IMMEDIATE` already serializes
writers) and writes back under a version check, so two concurrent moves never both apply. The
final move settles the game and records it as a `game: banting` round in the same transaction.
"""

from __future__ import annotations

import re
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
from service.domain.banting.plays import evaluate_play
from service.domain.banting.rules import BANTING, BantingParams
from service.domain.banting.settlement import settle_game, settlement_document
from service.domain.cards import Card, canonical, parse_cards
from service.domain.errors import CapsaError, FieldError, InvalidCard, InvalidRound, raise_collected
from service.domain.money import PairLine, PlayerLine, format_money, parse_currency_and_stake, parse_stake
from service.domain.rules import RuleSet, resolve_rules
from service.domain.version import ENGINE_VERSION

from . import deals
from .errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from .idempotency import StoredResponse, run_once
from .ids import new_id, utcnow_ms
from .jsondoc import dump
from .pages import decode_cursor, encode_cursor
from .recording import round_record

GAMES_PATH = "/v1/banting/games"
_VERSION = re.compile(r'^(?:W/)?"?([0-9]{1,18})"?$')


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
class _Setup:
    rules: RuleSet
    currency: str
    stake: int
    table: str | None
    ids: list[str]
    hands: list[list[Card]]
    deal: str | None


def create(
    db: Database, client_id: str, body: Mapping[str, Any], idempotency_key: str | None
) -> StoredResponse:
    """`POST /v1/banting/games`: seat the players with their hands (given, or from a deal)."""

    def action(uow: UnitOfWork) -> StoredResponse:
        setup = _setup(uow, client_id, body)
        state = new_game(setup.ids, setup.hands, _params(setup.rules))
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
        }
        uow.games.insert(row)
        if setup.deal is not None:
            deals.use(uow, setup.deal, game_id)
        doc = _document(row, state)
        return StoredResponse(201, dump(doc), location=f"{GAMES_PATH}/{game_id}")

    return run_once(db, client_id, "POST", GAMES_PATH, idempotency_key, body, action)


def _setup(uow: UnitOfWork, client_id: str, body: Mapping[str, Any]) -> _Setup:
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
    return _Setup(rules, currency, stake, body.get("table"), ids, hands, deal_id)


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
    """`GET /v1/banting/games/{id}`: the state (hands are never shown)."""
    with db.unit_of_work() as uow:
        row = _found(uow, client_id, game_id)
        return _document(_row_dict(row), _state(row))


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
        items = [_document(_row_dict(r), _state(r)) for r in rows]
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
        "id": row.id,
        "rules_json": row.rules_json,
        "currency": row.currency,
        "stake": row.stake,
        "table_ref": row.table_ref,
        "version": row.version,
        "round_id": row.round_id,
    }


def _state(row: Game) -> GameState:
    rules = RuleSet.from_json(row.rules_json)
    return replay(
        row.players,
        [parse_cards(h, "hands") for h in row.hands],
        _params(rules),
        [_move(m) for m in row.moves],
    )


def _move(stored: Mapping[str, Any]) -> Move:
    play = stored.get("play")
    if play is None:
        return Move.pass_turn(stored["player"])
    return Move.play(stored["player"], parse_cards(play, "play"))


def _document(row: Mapping[str, Any], state: GameState) -> dict[str, Any]:
    """The game state (docs/api.md#big-two-games): id, status, version, rules, ..., winner, round."""
    domain = state_document(state)
    return {
        "id": row["id"],
        "status": domain["status"],
        "version": row["version"],
        "rules": row["rules_json"],
        "currency": row["currency"],
        "stake": format_money(row["stake"], row["currency"]),
        "table": row["table_ref"],
        "players": domain["players"],
        "turn": domain["turn"],
        "leader": domain["leader"],
        "table_play": domain["table_play"],
        "history": domain["history"],
        "winner": domain["winner"],
        "round": row["round_id"],
    }


# -- moves ----------------------------------------------------------------------------------


def parse_if_match(header: str | None) -> int | None:
    """The version of `If-Match: "7"` (or `7`); None without the header or with `*`."""
    if header is None or header.strip() == "*":
        return None
    match = _VERSION.match(header.strip())
    if match is None:
        raise InvalidInput(
            'If-Match must be a game version, such as "7"',
            errors=[FieldError("header.If-Match", 'must be a game version, such as "7"')],
        )
    return int(match.group(1))


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
    expected_version: int | None,
    idempotency_key: str | None,
) -> StoredResponse:
    """`POST /v1/banting/games/{id}/moves`: apply one move; the last one settles the game."""
    path = f"{GAMES_PATH}/{game_id}/moves"

    def action(uow: UnitOfWork) -> StoredResponse:
        row = _found(uow, client_id, game_id, lock=True)
        if expected_version is not None and expected_version != row.version:
            raise PreconditionFailed(
                f"the game is at version {row.version}, not {expected_version}",
                errors=[FieldError("header.If-Match", f"stale: the game is at version {row.version}")],
            )
        if row.status != "playing":
            raise _finished(game_id)
        the_move = parse_move(body)
        try:
            state = apply_move(_state(row), the_move)
        except GameFinished as exc:  # the stored status said playing: should not happen
            raise _finished(game_id) from exc
        now = utcnow_ms()
        moves = [*row.moves, _stored_move(the_move)]
        values: dict[str, Any] = {"moves": moves, "status": state.status, "updated_at": now}
        round_id = None
        if state.finished:
            values["winner"] = state.player_ids[state.winner] if state.winner is not None else None
            round_id = _record(uow, client_id, row, moves, state)
            values["round_id"] = round_id
        if not uow.games.update_if_version(row.id, row.version, values):
            raise Conflict("the game changed while this move was applied; fetch it and retry")
        doc = _document({**_row_dict(row), "version": row.version + 1, "round_id": round_id}, state)
        return StoredResponse(200, dump(doc))

    return run_once(db, client_id, "POST", path, idempotency_key, body, action)


def _finished(game_id: str) -> Conflict:
    return Conflict(
        f"game {game_id!r} has finished; no more moves",
        errors=[FieldError("player", "the game has finished")],
    )


def _stored_move(m: Move) -> dict[str, Any]:
    return {"player": m.player, "play": None if m.cards is None else canonical(m.cards)}


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
    """The normalised request a finished game is recorded (and re-scored) from."""
    return {
        "rules": row.rules_json,
        "table": row.table_ref,
        "reference": None,
        "currency": row.currency,
        "stake": format_money(row.stake, row.currency),
        "deal": row.deal_id,
        "game": row.id,
        "players": [{"id": pid, "hand": list(hand)} for pid, hand in zip(row.players, row.hands, strict=True)],
        "moves": [{"player": m["player"], "play": m["play"], "pass": m["play"] is None} for m in moves],
    }


def score_request(request: Mapping[str, Any]) -> ScoredGame:
    """Replay the moves of a normalised game request and settle it: the round's document."""
    rules = RuleSet.from_json(request["rules"])
    params = _params(rules)
    currency = request["currency"]
    stake = parse_stake(request["stake"], currency, "stake")
    players = request["players"]
    state = replay(
        [p["id"] for p in players],
        [parse_cards(p["hand"], f"players[{i}].hand") for i, p in enumerate(players)],
        params,
        [_move(m) for m in request["moves"]],
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
        "history": state_document(state)["history"],
    }
    ids = state.player_ids
    lines = tuple(
        PlayerLine(ids[p.seat], p.points, p.money.result, p.money.winnings, p.money.fee, p.money.net)
        for p in settlement.players
    )
    pairs = tuple(
        PairLine(ids[p.winner], ids[p.loser], stake, p.points, p.amount, p.outcome) for p in settlement.pairs
    )
    return ScoredGame(document, lines, pairs, settlement.house_fee, rules.preset)


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
