"""`/v1/banting/matches`: a match of Big Two games, its next game, its standings."""

from __future__ import annotations

from marshmallow import fields, validate

from service.domain.banting.game import MAX_PLAYERS, MIN_PLAYERS, GameStatus
from service.domain.banting.match import DEFAULT_TARGET, MAX_TARGET, MIN_TARGET
from service.domain.deals import DEAL_ID_MAX
from service.services.banting.matches import SHOWN_GAMES
from service.services.cursors import DEFAULT_PAGE, MAX_PAGE

from ..fields import Id, Money, openapi_meta
from .banting import GAME_STATUSES, BantingPlayerSchema, BantingRulesRef
from .bases import Out, PagedQuery, Strict, currency_code, next_cursor_field, page_limit
from .rules import RulesEchoSchema


class MatchRequestSchema(Strict):
    rules = BantingRulesRef()
    currency = currency_code()
    stake = Money("1000", "Stake per point, for every game of the match.", required=True)
    table = Id("table-7", "The operator's table.", allow_none=True)
    players = fields.List(
        Id("a"),
        required=True,
        validate=validate.Length(MIN_PLAYERS, MAX_PLAYERS),
        metadata=openapi_meta(["a", "b", "c", "d"], f"{MIN_PLAYERS} to {MAX_PLAYERS} unique player ids in seat order, for every game."),
    )
    target_points = fields.Integer(
        strict=True,
        validate=validate.Range(MIN_TARGET, MAX_TARGET),
        metadata=openapi_meta(
            DEFAULT_TARGET,
            f"The match ends once a player's total reaches it (default {DEFAULT_TARGET}); lowest total wins.",
        ),
    )


class MatchGameRequestSchema(Strict):
    players = fields.List(
        fields.Nested(BantingPlayerSchema),
        required=True,
        validate=validate.Length(MIN_PLAYERS, MAX_PLAYERS),
        metadata={"description": "The match's players, in its order, with their hands (or a deal)."},
    )
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, DEAL_ID_MAX),
        metadata=openapi_meta(None, "A deal id: the players must be the deal's, in its order."),
    )


class MatchPlayerSchema(Out):
    id = Id("a", required=True)
    points = fields.Integer(required=True, metadata=openapi_meta(12, "Total over the finished games that count (not voided)."))


class MatchGameSchema(Out):
    n = fields.Integer(required=True, metadata=openapi_meta(1, "Game number in the match, from 1."))
    game = fields.String(required=True, metadata=openapi_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    round = fields.String(required=True, metadata=openapi_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    winner = Id("a", required=True)
    void = fields.Boolean(
        required=True,
        metadata=openapi_meta(
            False,
            "The game's round was voided: its points count in no total, and a match it had finished plays on "
            "when no total reaches the target without it.",
        ),
    )
    points = fields.Dict(
        keys=fields.String(), values=fields.Integer(), required=True,
        metadata=openapi_meta(
            {"a": 0, "b": 8},
            "Each player's points from this game: its real loss (cards left x multiplier, after a bomb or a "
            "taker of all losses as the rules say; 0 for the winner).",
        ),
    )
    totals = fields.Dict(
        keys=fields.String(), values=fields.Integer(), required=True,
        metadata=openapi_meta({"a": 0, "b": 8}, "The standings after this game, over the games that count."),
    )


class MatchSchema(Out):
    id = fields.String(required=True, metadata=openapi_meta("mt_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES), metadata=openapi_meta(GameStatus.PLAYING.value))
    version = fields.Integer(required=True, metadata=openapi_meta(1, "Bumped by every game started or finished, and by a void of one of its games."))
    rules = fields.Nested(RulesEchoSchema, required=True)
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    stake = Money("1000", required=True)
    table = Id("table-7", required=True, allow_none=True)
    target_points = fields.Integer(required=True, metadata=openapi_meta(101))
    players = fields.List(fields.Nested(MatchPlayerSchema), required=True)
    played = fields.Integer(
        required=True, metadata=openapi_meta(1, "How many games have finished, voided ones too (the last one's `n`).")
    )
    games = fields.List(
        fields.Nested(MatchGameSchema),
        required=True,
        metadata={
            "description": f"The latest {SHOWN_GAMES} finished games (all of them up to {SHOWN_GAMES}), voided ones "
            "too, oldest first; every game is in `GET /v1/banting/matches/{id}/games`."
        },
    )
    current_game = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "The game being played, if any.")
    )
    next_leader = Id(
        "a", "Who leads the next game (first_lead previous_winner); null: the lowest card.",
        required=True, allow_none=True,
    )
    winners = fields.List(
        Id("a"), required=True, metadata=openapi_meta([], "Once finished: the players with the lowest total.")
    )


class MatchGamesQuerySchema(PagedQuery):
    limit = page_limit(DEFAULT_PAGE, MAX_PAGE)


class MatchGameListSchema(Out):
    items = fields.List(fields.Nested(MatchGameSchema), required=True)
    next_cursor = next_cursor_field()
