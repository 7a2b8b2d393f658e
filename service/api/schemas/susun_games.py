"""`/v1/susun/games`: server-run Capsa Susun games, a player's hand, its submission."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from service.domain.deals import CLIENT_SEED_MAX, DEAL_ID_MAX
from service.domain.errors import quoted
from service.domain.susun.game import MAX_ARRANGE_SECONDS, MIN_ARRANGE_SECONDS, GameStatus
from service.domain.susun.round import MAX_PLAYERS, MIN_PLAYERS
from service.services.cursors import DEFAULT_PAGE, MAX_PAGE

from ..fields import Id, Money, RulesRef, StrictBoolean, Visible, openapi_meta
from .arrangements import HAND_EXAMPLE, ArrangementSchema, EvaluationSchema
from .bases import CURSOR_MAX, Out, Query, Strict, currency_code, next_cursor_field, page_limit
from .rules import RulesEchoSchema

STATUSES = [s.value for s in GameStatus]


class SusunGameRequestSchema(Strict):
    rules = RulesRef()
    players = fields.List(
        Id("a"),
        required=True,
        validate=validate.Length(MIN_PLAYERS, MAX_PLAYERS),
        metadata=openapi_meta(["a", "b", "c", "d"], f"{MIN_PLAYERS} to {MAX_PLAYERS} unique player ids, in seat (and deal) order."),
    )
    currency = currency_code()
    stake = Money("1000", "Stake per point, every pair.", required=True)
    table = Id("table-7", "The operator's table.", allow_none=True)
    reference = Id(
        "client-round-9913",
        "The operator's own id of the round the game becomes, unique per client (rounds and games).",
        allow_none=True,
    )
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, DEAL_ID_MAX),
        metadata=openapi_meta(None, "A deal id (POST /v1/deals): its players, in its order. Omitted: the "
                       "service makes a deal for the game."),
    )
    client_seed = fields.String(
        allow_none=True,
        validate=[validate.Length(1, CLIENT_SEED_MAX), Visible("must show what is mixed in")],
        metadata=openapi_meta("table-7:hand-88", "Without `deal` only (with it, 422): the client seed of "
                       "the deal the service makes (omitted: the game's id), read as for `POST /v1/deals`."),
    )
    arrange_seconds = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(MIN_ARRANGE_SECONDS, MAX_ARRANGE_SECONDS),
        metadata=openapi_meta(60, "Seconds the players have to arrange; the deadline is the game's creation "
                       "time plus this."),
    )

    @validates_schema
    def _seed_without_deal(self, data: dict[str, Any], **kw: Any) -> None:
        # The deal's seeds were fixed when it was made: a seed sent beside it would be ignored.
        if data.get("deal") is not None and data.get("client_seed") is not None:
            raise ValidationError(
                f"{quoted(data['client_seed'])} is not used with `deal`: a deal's client seed is the one "
                "it was made with (POST /v1/deals); send one or the other",
                field_name="client_seed",
            )


class SusunGameQuerySchema(Query):
    status = fields.String(validate=validate.OneOf(STATUSES), metadata=openapi_meta("arranging"))
    table = Id("table-7")
    limit = page_limit(DEFAULT_PAGE, MAX_PAGE)
    cursor = fields.String(
        validate=validate.Length(1, CURSOR_MAX), metadata=openapi_meta(None, "Opaque: `next_cursor` of the previous page.")
    )


class SubmissionRequestSchema(Strict):
    arrangement = fields.Nested(
        ArrangementSchema, allow_none=True, metadata={"description": "The rows, using exactly the player's hand."}
    )
    surrender = StrictBoolean(metadata=openapi_meta(False, "true to surrender instead (where the rules allow it)."))


class SusunGamePlayerSchema(Out):
    id = Id("a", required=True)
    submitted = fields.Boolean(required=True, metadata=openapi_meta(True, "The player sent its rows or surrendered."))
    submitted_at = fields.String(
        required=True, allow_none=True, metadata=openapi_meta("2026-11-29T10:00:12.000Z", format="date-time")
    )
    arrangement = fields.Nested(
        ArrangementSchema, allow_none=True, metadata={"description": "Once settled only: the rows played."}
    )
    surrender = fields.Boolean(metadata=openapi_meta(False, "Once settled only."))
    auto_arranged = fields.Boolean(
        metadata=openapi_meta(False, "Once settled only: the service set this hand (no submission by the deadline).")
    )


class SusunGameSchema(Out):
    id = fields.String(required=True, metadata=openapi_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata=openapi_meta("arranging"))
    version = fields.Integer(required=True, metadata=openapi_meta(1, "Bumped by every change; send it as If-Match."))
    rules = fields.Nested(RulesEchoSchema, required=True)
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    stake = Money("1000", required=True)
    table = Id("table-7", required=True, allow_none=True)
    reference = Id("client-round-9913", required=True, allow_none=True)
    deal = fields.String(required=True, metadata=openapi_meta("dl_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    arrange_seconds = fields.Integer(required=True, metadata=openapi_meta(60))
    created_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    deadline = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:01:00.000Z", format="date-time"))
    settled_at = fields.String(required=True, allow_none=True, metadata=openapi_meta(None, format="date-time"))
    players = fields.List(fields.Nested(SusunGamePlayerSchema), required=True)
    round = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "The round the settled game became (GET /v1/rounds/{id}).")
    )


class SusunGameListSchema(Out):
    items = fields.List(fields.Nested(SusunGameSchema), required=True)
    next_cursor = next_cursor_field()


class SusunHandSchema(Out):
    game = fields.String(required=True, metadata=openapi_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    player = Id("a", required=True)
    hand = fields.List(
        fields.String(),
        required=True,
        metadata=openapi_meta(list(HAND_EXAMPLE)),
    )
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata=openapi_meta("arranging"))
    deadline = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:01:00.000Z", format="date-time"))


class SubmissionSchema(Out):
    game = fields.String(required=True, metadata=openapi_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    player = Id("a", required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata=openapi_meta("arranging"))
    version = fields.Integer(required=True, metadata=openapi_meta(2))
    surrender = fields.Boolean(required=True, metadata=openapi_meta(False))
    evaluation = fields.Nested(
        EvaluationSchema,
        required=True,
        allow_none=True,
        metadata={"description": "As POST /v1/arrangements/evaluate answers; null for a surrender."},
    )
    round = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "Set when this submission was the last and settled the game.")
    )
