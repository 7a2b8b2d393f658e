"""`/v1/banting`: Big Two plays, games, moves, hints and hands (matches: `matches`)."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import fields, post_load, validate

from service.domain.banting.game import MAX_PLAYERS, MIN_PLAYERS, GameStatus
from service.domain.banting.plays import Combination
from service.domain.banting.timers import MAX_TURN_SECONDS, MIN_TURN_SECONDS
from service.domain.deals import DEAL_ID_MAX
from service.services.cursors import GAME_PAGE, MAX_GAME_PAGE

from ..fields import Card, Cards, Id, Money, RulesRef, StrictBoolean, openapi_meta
from .bases import Out, PagedQuery, Strict, currency_code, next_cursor_field, page_limit
from .rules import RulesEchoSchema

COMBINATIONS = [c.value for c in Combination]
GAME_STATUSES = [s.value for s in GameStatus]  # a Big Two game's and a match's
HAND_EXAMPLE = ["3d", "5c", "5d", "5h", "5s", "9d", "4c", "6c", "8c", "Tc", "Qc", "Kd", "Ad"]


class BantingRulesRef(RulesRef):
    """A rule reference on the Banting endpoints (omitted: capsa-banting-id)."""

    openapi: ClassVar[dict[str, Any]] = {
        **RulesRef.openapi,
        "example": "capsa-banting-id",
        "description": "Rule set: a Banting preset name, or one with parameter overrides "
        "(docs/rules.md#banting-parameters). Omitted: capsa-banting-id; a Capsa Susun preset is 422 unknown-rules.",
    }


class PlayEvaluateRequestSchema(Strict):
    rules = BantingRulesRef()
    cards = Cards(["3d", "3s"], "The play: 1, 2, 3 or 5 cards.", required=True)
    beats = Cards(["3c", "3h"], "Optional: the play on the table.", allow_none=True)


class PlayEvaluationSchema(Out):
    combination = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(COMBINATIONS), metadata=openapi_meta("pair")
    )
    valid = fields.Boolean(required=True, metadata=openapi_meta(True))
    beats = fields.Boolean(
        required=True, allow_none=True, metadata=openapi_meta(True, "null when no `beats` play was given.")
    )
    reason = fields.String(required=True, allow_none=True, metadata=openapi_meta(None, "Why not valid or not beating."))
    rules = fields.Nested(RulesEchoSchema, required=True)


class BantingPlayerSchema(Strict):
    id = Id("a", "Player id, unique in the game; seats follow this order.", required=True)
    hand = Cards(HAND_EXAMPLE, "The 13 dealt cards (omit with a deal, or give the dealt ones).", allow_none=True)


class GameRequestSchema(Strict):
    rules = BantingRulesRef()
    currency = currency_code()
    stake = Money("1000", "Stake per card owed.", required=True)
    table = Id("table-7", "The operator's table.", allow_none=True)
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, DEAL_ID_MAX),
        metadata=openapi_meta(None, "A deal id: the players must be the deal's, in its order."),
    )
    players = fields.List(
        fields.Nested(BantingPlayerSchema),
        required=True,
        validate=validate.Length(MIN_PLAYERS, MAX_PLAYERS),
        metadata={"description": f"{MIN_PLAYERS} to {MAX_PLAYERS} players in seat order."},
    )
    turn_seconds = fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(MIN_TURN_SECONDS, MAX_TURN_SECONDS),
        metadata=openapi_meta(
            30,
            f"Optional turn timer, {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS:,} seconds; null or absent: untimed. "
            "A turn lasts this "
            "long from the previous move (the game's start for the first); a player still in "
            "turn at its deadline is played for: it passes where the rules allow, otherwise "
            "it plays the hint. Such moves are `auto: true` in the history and the round, and "
            "the player's late move is 422 `illegal-move` (turn timed out).",
        ),
    )


class MoveRequestSchema(Strict):
    player = Id("a", "The player moving.", required=True)
    play = Cards(["3d"], "The cards played; omit to pass.", allow_none=True)
    pass_ = StrictBoolean(data_key="pass", metadata=openapi_meta(False, "true to pass instead of playing."))

    @post_load
    def _pass_key(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if "pass_" in data:
            data["pass"] = data.pop("pass_")
        return data


class GamePlayerSchema(Out):
    id = Id("a", required=True)
    seat = fields.Integer(required=True, metadata=openapi_meta(0))
    cards_left = fields.Integer(required=True, metadata=openapi_meta(13))
    passed = fields.Boolean(
        required=True, metadata=openapi_meta(False, "Passed in the current trick (pass_locks turn: since the last play).")
    )


class TablePlaySchema(Out):
    player = Id("a", required=True)
    cards = fields.List(Card(), required=True, metadata=openapi_meta(["3d"]))
    combination = fields.String(required=True, validate=validate.OneOf(COMBINATIONS), metadata=openapi_meta("single"))


class HistoryEntrySchema(Out):
    n = fields.Integer(required=True, metadata=openapi_meta(1, "Move number, from 1."))
    player = Id("a", required=True)
    play = fields.List(Card(), required=True, allow_none=True, metadata=openapi_meta(["3d"], "null for a pass."))
    pass_ = fields.Boolean(required=True, data_key="pass", metadata=openapi_meta(False))
    auto = fields.Boolean(
        metadata=openapi_meta(
            False,
            "true when the service made the move because the player's turn timed out. Always "
            "in a game's state; in a stored round from the turn timers on (older rounds lack it).",
        )
    )
    at = fields.String(
        allow_none=True,
        metadata=openapi_meta(
            "2026-11-29T10:00:12.000Z",
            "When the move was made (an auto move: its turn's deadline); null for moves made "
            "before turn timers, absent from rounds stored before them.",
            format="date-time",
        ),
    )


class HintRequestSchema(Strict):
    player = Id("a", "The player in turn.", required=True)


class HintMoveSchema(Out):
    player = Id("a", required=True)
    play = fields.List(Card(), metadata=openapi_meta(["3d", "4d", "5c", "6h", "7s"], "The cards to play; absent for a pass."))
    pass_ = fields.Boolean(data_key="pass", metadata=openapi_meta(True, "Present (true) for a pass."))


class BantingHandSchema(Out):
    game = fields.String(required=True, metadata=openapi_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    player = Id("a", required=True)
    hand = fields.List(
        Card(),
        required=True,
        metadata=openapi_meta(["3d", "4c", "5d", "5c", "5h", "5s", "6c", "8c", "9d", "Tc", "Qc", "Kd", "Ad"],
                       "The cards the player holds now, lowest first in the game's ranking."),
    )
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES), metadata=openapi_meta(GameStatus.PLAYING.value))
    version = fields.Integer(required=True, metadata=openapi_meta(1, "The game version the hand was read at."))


class HintSchema(Out):
    game = fields.String(required=True, metadata=openapi_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    version = fields.Integer(required=True, metadata=openapi_meta(3, "The game version the hint was made on (If-Match)."))
    move = fields.Nested(
        HintMoveSchema,
        required=True,
        metadata={"description": "A move body, ready to post to the game's moves."},
    )
    combination = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(COMBINATIONS),
        metadata=openapi_meta("straight", "null for a pass."),
    )
    deadline = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(None, "When the player's turn runs out; null when untimed.", format="date-time"),
    )


class GameStateSchema(Out):
    match = fields.String(metadata=openapi_meta("mt_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Only for a game of a match."))
    id = fields.String(required=True, metadata=openapi_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES), metadata=openapi_meta(GameStatus.PLAYING.value))
    version = fields.Integer(required=True, metadata=openapi_meta(1, "Bumped by every move; send it as If-Match."))
    rules = fields.Nested(RulesEchoSchema, required=True)
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    stake = Money("1000", required=True)
    table = Id("table-7", required=True, allow_none=True)
    players = fields.List(fields.Nested(GamePlayerSchema), required=True)
    turn = Id("a", "Whose turn; null once finished.", required=True, allow_none=True)
    turn_seconds = fields.Integer(
        required=True, allow_none=True, metadata=openapi_meta(None, "The turn timer; null when untimed.")
    )
    deadline = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(
            None,
            "When the current turn runs out (the last move's time + turn_seconds); null when "
            "untimed or finished.",
            format="date-time",
        ),
    )
    leader = Id("a", "Who led the current trick.", required=True)
    table_play = fields.Nested(TablePlaySchema, required=True, allow_none=True)
    history = fields.List(fields.Nested(HistoryEntrySchema), required=True)
    winner = Id("a", required=True, allow_none=True)
    round = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "The round the finished game became.")
    )


class GameQuerySchema(PagedQuery):
    status = fields.String(
        validate=validate.OneOf(GAME_STATUSES), metadata=openapi_meta(GameStatus.PLAYING.value, "Only games in this status.")
    )
    table = Id("table-7", "Only games at this table.")
    limit = page_limit(GAME_PAGE, MAX_GAME_PAGE, "Page size, 1-{most} (each game's state is replayed from its moves).")


class GameListSchema(Out):
    items = fields.List(fields.Nested(GameStateSchema), required=True)
    next_cursor = next_cursor_field()
