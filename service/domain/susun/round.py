"""A round request, end to end: validate the body, score it, settle the money, build documents.

`score_round_request` is what `POST /v1/score`, `POST /v1/rounds` and `capsa score` call.
The body is the JSON object of docs/api.md#rounds; every problem is reported with its path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from ..cards import NOTATIONS, Card, parse_cards
from ..deals import DEAL_ID_MAX
from ..errors import (
    CapsaError,
    FieldError,
    InvalidCard,
    InvalidRound,
    raise_collected,
)
from ..money import (
    NOT_A_STRING,
    PairLine,
    PlayerLine,
    Settlement,
    format_money,
    parse_currency_and_stake,
    parse_stake,
    settle,
)
from ..rules import RuleSet, resolve_rules
from ..shape import AnyObject, Boolean, Either, Fields, Items, Shape, Text, check
from ..version import ENGINE_VERSION
from .arrangement import Arrangement, ArrangementResult, evaluate, parse_arrangement
from .rules import SUSUN, SusunParams
from .scoring import PairResult, PlayerHand, RoundResult, score_round

ID_PATTERN = r"[A-Za-z0-9._:-]{1,64}"
CLIENT_ID = re.compile(ID_PATTERN)
MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_PAIR_STAKES = MAX_PLAYERS * (MAX_PLAYERS - 1) // 2  # one per pair: 6
CURRENCY_MAX = 8  # characters of a currency code (ISO 4217 has 3; CLDR must know it)
_PLAYER_KEYS = frozenset({"id", "hand", "arrangement", "surrender"})
_GAME_PLAYER_KEYS = _PLAYER_KEYS | {"auto_arranged"}

# The shape of a POST /v1/rounds body (the HTTP schema describes the same for OpenAPI).
_ID_MESSAGE = "{value!r} is not an identifier (1-64 of A-Z a-z 0-9 . _ : -)"


def _id(nullable: bool = False) -> Text:
    return Text(pattern=ID_PATTERN, pattern_message=_ID_MESSAGE, message=_ID_MESSAGE, nullable=nullable)


_CARD = Text(1, 8, message="a card is a string such as \"Ah\", not the JSON value {value!r}")
_CARDS = Items(_CARD, max_items=52, known=NOTATIONS)
_MONEY = Text(message=NOT_A_STRING)
# A preset name or {preset, version, params}: the rule set's resolver reads what is inside.
_RULES = Either([Text(), AnyObject()], "must be a preset name or an object")
_PLAYER_SHAPE: dict[str, Shape] = {
    "id": _id(),
    "hand": Items(_CARD, max_items=52, nullable=True, known=NOTATIONS),
    "arrangement": Fields(
        {"front": _CARDS, "middle": _CARDS, "back": _CARDS},
        frozenset({"front", "middle", "back"}),
        nullable=True,
    ),
    "surrender": Boolean(),
}


def _players(player: Mapping[str, Shape], required: frozenset[str]) -> Items:
    return Items(
        Fields(player, required),
        MIN_PLAYERS,
        MAX_PLAYERS,
        count_message=f"a round has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {{n}}",
    )


ROUND_SHAPE = Fields(
    {
        "rules": _RULES,
        "table": _id(nullable=True),
        "reference": _id(nullable=True),
        "currency": Text(1, CURRENCY_MAX),
        "stake": _MONEY,
        "pair_stakes": Items(
            Fields({"players": Items(_id(), 2, 2), "stake": _MONEY}, frozenset({"players", "stake"})),
            max_items=MAX_PAIR_STAKES,
        ),
        "deal": Text(1, DEAL_ID_MAX, nullable=True),
        "players": _players(_PLAYER_SHAPE, frozenset({"id"})),
    },
    frozenset({"currency", "stake", "players"}),
)
# The stored request of a round a server-run game settled (`POST /v1/susun/games`): a round
# body plus the game's id and, per player, whether the service arranged its hand. Only the
# game's settlement and the re-scoring of its record read this shape; `POST /v1/rounds`
# refuses both fields.
GAME_ROUND_SHAPE = Fields(
    {
        **ROUND_SHAPE.keys,
        "game_id": _id(),
        "players": _players(
            {**_PLAYER_SHAPE, "auto_arranged": Boolean()}, frozenset({"id", "hand", "auto_arranged"})
        ),
    },
    frozenset({"currency", "stake", "players", "game_id"}),
)


class PairStakeJson(TypedDict):
    players: list[str]
    stake: str


class RequestPlayer(TypedDict):
    id: str
    hand: list[str] | None
    arrangement: dict[str, list[str]] | None  # front, middle, back
    surrender: bool
    auto_arranged: NotRequired[bool]  # a server-run game's round only


class RoundRequest(TypedDict):
    """A round's request once validated and normalised: what the chain record stores and a
    re-scoring reads (the body of `POST /v1/rounds`, defaults filled in, money formatted)."""

    rules: dict[str, Any]
    table: str | None
    reference: str | None
    currency: str
    stake: str
    pair_stakes: list[PairStakeJson]
    deal: str | None
    players: list[RequestPlayer]
    game_id: NotRequired[str]  # a server-run game's round only


class PlayerDocument(TypedDict):
    id: str
    rows: dict[str, dict[str, Any]] | None  # front, middle, back: category, cards, bonus
    foul: bool
    natural: str | None
    surrender: bool
    points: int
    result: str
    winnings: str
    fee: str
    net: str
    auto_arranged: NotRequired[bool]


class PairDocument(TypedDict):
    players: list[str]
    stake: str
    rows: dict[str, int] | None  # front, middle, back: 1, 0 or -1 from the first player's side
    bonus: dict[str, int]
    outcome: str
    multiplier: int
    points: int
    amount: str


class ScoreDocument(TypedDict):
    """A scored Capsa Susun round: the answer of `POST /v1/score`, the heart of a stored round's."""

    game: str
    table: str | None
    reference: str | None
    currency: str
    stake: str
    rules: dict[str, Any]
    engine_version: str
    players: list[PlayerDocument]
    pairs: list[PairDocument]
    house_fee: str
    game_id: NotRequired[str]


@dataclass(frozen=True, slots=True)
class ScoredRound:
    """A scored round: the `POST /v1/score` document, the normalised request, money rows."""

    document: ScoreDocument
    request: RoundRequest
    rules: RuleSet
    preset: str
    currency: str
    table: str | None
    reference: str | None
    players: tuple[PlayerLine, ...]
    pairs: tuple[PairLine, ...]
    house_fee: int


def check_identifier(value: object, field: str, errors: list[FieldError]) -> str | None:
    """A client-chosen identifier (`^[A-Za-z0-9._:-]{1,64}$`), or an error appended."""
    if isinstance(value, str) and CLIENT_ID.fullmatch(value):
        return value
    errors.append(FieldError(field, f"{value!r} is not an identifier (1-64 of A-Z a-z 0-9 . _ : -)"))
    return None


@dataclass(frozen=True, slots=True)
class _ParsedPlayer:
    id: str
    hand: tuple[Card, ...] | None
    arrangement: Arrangement | None
    auto_arranged: bool = False


def _parse_players(raw: object, params: SusunParams, keys: frozenset[str] = _PLAYER_KEYS) -> list[_ParsedPlayer]:
    if not isinstance(raw, list):
        raise InvalidRound("must be a list of 2 to 4 players", field="players")
    if not 2 <= len(raw) <= 4:
        raise InvalidRound(f"a round has 2 to 4 players, got {len(raw)}", field="players")
    errors: list[FieldError] = []
    players: list[_ParsedPlayer] = []
    ids: dict[str, int] = {}
    holders: dict[int, str] = {}  # card index -> the player holding it
    for i, doc in enumerate(raw):
        path = f"players[{i}]"
        if not isinstance(doc, Mapping):
            errors.append(FieldError(path, "must be an object"))
            continue
        errors += [FieldError(f"{path}.{k}", f"unknown field {k!r}") for k in sorted(set(doc) - keys)]
        pid = check_identifier(doc.get("id"), f"{path}.id", errors)
        if pid is not None:
            if pid in ids:
                errors.append(FieldError(f"{path}.id", f"{pid!r} is also players[{ids[pid]}]"))
            ids[pid] = i
        surrender = doc.get("surrender", False)
        if not isinstance(surrender, bool):
            errors.append(FieldError(f"{path}.surrender", "must be true or false"))
            surrender = False
        hand: list[Card] | None = None
        try:
            if doc.get("hand") is not None:
                texts = doc["hand"]
                if not isinstance(texts, list) or len(texts) != 13:
                    n = len(texts) if isinstance(texts, list) else texts
                    raise InvalidCard(f"a hand has 13 cards, got {n!r}", field=f"{path}.hand")
                hand = parse_cards(texts, f"{path}.hand")
            arrangement = None
            if surrender:
                if not params.surrender_allowed:
                    errors.append(FieldError(f"{path}.surrender", "these rules do not allow surrender"))
                if doc.get("arrangement") is not None:
                    errors.append(
                        FieldError(f"{path}.arrangement", "a surrendering player sends no arrangement")
                    )
            elif doc.get("arrangement") is None:
                errors.append(FieldError(f"{path}.arrangement", "required unless the player surrenders"))
            else:
                arrangement = parse_arrangement(doc["arrangement"], f"{path}.arrangement", hand)
        except CapsaError as exc:
            errors += exc.errors
            continue
        held = arrangement.cards if arrangement is not None else (tuple(hand) if hand is not None else ())
        for k, card in enumerate(held):
            other = holders.get(card.index)
            if other is None:
                holders[card.index] = path
                continue
            if arrangement is not None:  # where the card is, spelled out only for the error
                row = "front" if k < 3 else ("middle" if k < 8 else "back")
                where = f"{path}.arrangement.{row}[{k if k < 3 else (k - 3 if k < 8 else k - 8)}]"
            else:
                where = f"{path}.hand[{k}]"
            errors.append(FieldError(where, f"{card.text!r} is also held by {other}"))
        auto = doc.get("auto_arranged", False) is True
        if auto and arrangement is None:
            errors.append(FieldError(f"{path}.auto_arranged", "an auto-arranged player has an arrangement"))
        players.append(_ParsedPlayer(pid or "", tuple(hand) if hand else None, arrangement, auto))
    raise_collected(errors, _error_class(errors))
    return players


def _error_class(errors: list[FieldError]) -> type[CapsaError]:
    """`invalid-cards` when any problem is about cards or rows, else `validation`."""
    card_paths = (".hand", ".arrangement")
    return InvalidCard if any(any(p in e.field for p in card_paths) for e in errors) else InvalidRound


def _pair_stakes(
    raw: object, ids: list[str], currency: str, default: int
) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], str]]:
    """Each pair's stake (the round's unless `pair_stakes` names it), and the field of each
    stake `pair_stakes` gave."""
    stakes = {(a, b): default for i, a in enumerate(ids) for b in ids[i + 1 :]}
    fields: dict[tuple[str, str], str] = {}
    if raw is None:
        return stakes, fields
    if not isinstance(raw, list):
        raise InvalidRound("must be a list of {players, stake}", field="pair_stakes")
    errors: list[FieldError] = []
    given: set[frozenset[str]] = set()
    for k, doc in enumerate(raw):
        path = f"pair_stakes[{k}]"
        if not isinstance(doc, Mapping) or set(doc) != {"players", "stake"}:
            errors.append(FieldError(path, "must be an object with players and stake"))
            continue
        pair = doc["players"]
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(p, str) and p in ids for p in pair)
            or pair[0] == pair[1]
        ):
            errors.append(FieldError(f"{path}.players", f"{pair!r} must name two different players of the round"))
            continue
        if frozenset(pair) in given:
            errors.append(FieldError(f"{path}.players", f"{pair!r} already has a stake"))
            continue
        given.add(frozenset(pair))
        try:
            stake = parse_stake(doc["stake"], currency, f"{path}.stake")
        except CapsaError as exc:
            errors += exc.errors
            continue
        a, b = sorted(pair, key=ids.index)
        stakes[(a, b)] = stake
        fields[(a, b)] = f"{path}.stake"
    raise_collected(errors, InvalidRound)
    return stakes, fields


def _pair_doc(pair: PairResult, stake: int, currency: str) -> PairDocument:
    return {
        "players": [pair.a, pair.b],
        "stake": format_money(stake, currency),
        "rows": None
        if pair.rows is None
        else {"front": pair.rows[0], "middle": pair.rows[1], "back": pair.rows[2]},
        "bonus": {pair.a: pair.bonus_a, pair.b: pair.bonus_b},
        "outcome": pair.outcome.value,
        "multiplier": pair.multiplier,
        "points": pair.points,
        "amount": format_money(pair.points * stake, currency),
    }


def _player_doc(
    evaluation: ArrangementResult | None, line: PlayerLine, currency: str
) -> PlayerDocument:
    return {
        "id": line.id,
        "rows": None if evaluation is None else {r.row: r.to_json() for r in evaluation.rows},
        "foul": bool(evaluation and evaluation.foul),
        "natural": evaluation.natural if evaluation else None,
        "surrender": evaluation is None,
        "points": line.points,
        "result": format_money(line.result, currency),
        "winnings": format_money(line.winnings, currency),
        "fee": format_money(line.fee, currency),
        "net": format_money(line.net, currency),
    }


def score_round_request(body: Mapping[str, Any], game_round: bool = False, stored: bool = False) -> ScoredRound:
    """Validate, score and settle the body of `POST /v1/rounds` (docs/api.md#rounds).

    One validation pass: the body's shape (types, keys, lengths: `validation` problems),
    then the rules, cards and money as they are read (`unknown-rules`, `invalid-cards`).
    With `game_round`, the body is the request of a round a server-run game settled
    (`GAME_ROUND_SHAPE`: `game_id`, and `auto_arranged` per player), and the document
    carries both. `stored`: the normalised request of a stored round, re-scored to verify
    it; its rules are taken as they were, contradictory parameters included."""
    raise_collected(check(body, GAME_ROUND_SHAPE if game_round else ROUND_SHAPE), InvalidRound)
    errors: list[FieldError] = []
    rules = resolve_rules(body.get("rules"), SUSUN, stored=stored)
    params = rules.params
    assert isinstance(params, SusunParams)
    table = body.get("table")
    reference = body.get("reference")
    deal = body.get("deal")
    for name, value in (("table", table), ("reference", reference), ("deal", deal)):
        if value is not None:
            check_identifier(value, name, errors)
    currency, stake = parse_currency_and_stake(body, errors)
    raise_collected(errors, InvalidRound)
    parsed = _parse_players(body.get("players"), params, _GAME_PLAYER_KEYS if game_round else _PLAYER_KEYS)
    ids = [p.id for p in parsed]
    stakes, stake_fields = _pair_stakes(body.get("pair_stakes"), ids, currency, stake)
    result: RoundResult = score_round([PlayerHand(p.id, p.arrangement) for p in parsed], params)
    index = {pid: i for i, pid in enumerate(ids)}
    money: Settlement = settle(
        len(ids),
        [(index[p.a], index[p.b], p.points * stakes[(p.a, p.b)]) for p in result.pairs],
        params.fee_rate,
        params.fee_basis,
        # each pair's stake field only where `pair_stakes` gave one (else `stake` for all)
        [stake_fields.get((p.a, p.b), "stake") for p in result.pairs] if stake_fields else None,
    )
    lines = tuple(
        PlayerLine(pr.id, pr.points, m.result, m.winnings, m.fee, m.net)
        for pr, m in zip(result.players, money.players)
    )
    pair_lines = tuple(
        PairLine(p.a, p.b, stakes[(p.a, p.b)], p.points, p.points * stakes[(p.a, p.b)], p.outcome.value)
        for p in result.pairs
    )
    rules_json = rules.to_json()
    document: ScoreDocument = {
        "game": SUSUN,
        "table": table,
        "reference": reference,
        "currency": currency,
        "stake": format_money(stake, currency),
        "rules": rules_json,
        "engine_version": ENGINE_VERSION,
        "players": [
            _player_doc(pr.evaluation, line, currency) for pr, line in zip(result.players, lines)
        ],
        "pairs": [_pair_doc(p, stakes[(p.a, p.b)], currency) for p in result.pairs],
        "house_fee": format_money(money.house_fee, currency),
    }
    request: RoundRequest = {
        "rules": rules_json,
        "table": table,
        "reference": reference,
        "currency": currency,
        "stake": format_money(stake, currency),
        "pair_stakes": [
            {"players": [a, b], "stake": format_money(s, currency)}
            for (a, b), s in stakes.items()
            if s != stake
        ],
        "deal": deal,
        "players": [
            {
                "id": p.id,
                "hand": None if p.hand is None else [c.text for c in p.hand],
                "arrangement": None if p.arrangement is None else p.arrangement.to_json(),
                "surrender": p.arrangement is None,
            }
            for p in parsed
        ],
    }
    if game_round:
        document["game_id"] = request["game_id"] = body["game_id"]
        for p, doc, req in zip(parsed, document["players"], request["players"], strict=True):
            doc["auto_arranged"] = req["auto_arranged"] = p.auto_arranged
    return ScoredRound(
        document, request, rules, rules.preset, currency, table, reference, lines, pair_lines, money.house_fee
    )


def evaluate_arrangement_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body of `POST /v1/arrangements/evaluate` to its evaluate document (docs/api.md#rules-evaluate-and-suggest)."""
    if not isinstance(body, Mapping):
        raise InvalidRound("the body must be a JSON object", field="body")
    unknown = sorted(set(body) - {"rules", "arrangement", "hand"})
    raise_collected([FieldError(k, f"unknown field {k!r}") for k in unknown], InvalidRound)
    rules = resolve_rules(body.get("rules"), SUSUN)
    params = rules.params
    assert isinstance(params, SusunParams)
    hand = None
    if body.get("hand") is not None:
        texts = body["hand"]
        if not isinstance(texts, list) or len(texts) != 13:
            n = len(texts) if isinstance(texts, list) else texts
            raise InvalidCard(f"a hand has 13 cards, got {n!r}", field="hand")
        hand = parse_cards(texts, "hand")
    arrangement = parse_arrangement(body.get("arrangement"), "arrangement", hand)
    document = evaluate(arrangement, params).to_json()
    document["rules"] = rules.to_json()
    return document
