"""Schemas of server-run Capsa Susun games (`/v1/susun/games`): structure only."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields, validate

from service.domain.susun.game import MAX_ARRANGE_SECONDS, MIN_ARRANGE_SECONDS, GameStatus

from .fields import Id, Money, QueryInteger, RulesRef, StrictBoolean, _meta
from .schemas import ArrangementSchema, EvaluationSchema, Out, RulesEchoSchema, Strict

STATUSES = [s.value for s in GameStatus]


class SusunGameRequestSchema(Strict):
    rules = RulesRef()
    players = fields.List(
        Id("a"),
        required=True,
        validate=validate.Length(2, 4),
        metadata=_meta(["a", "b", "c", "d"], "2 to 4 unique player ids, in seat (and deal) order."),
    )
    currency = fields.String(
        required=True, validate=validate.Length(1, 8), metadata=_meta("IDR", "ISO 4217 code known to CLDR.")
    )
    stake = Money("1000", "Stake per point, every pair.", required=True)
    table = Id("table-7", "The operator's table.", allow_none=True)
    reference = Id(
        "client-round-9913",
        "The operator's own id of the round the game becomes, unique per client (rounds and games).",
        allow_none=True,
    )
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, 64),
        metadata=_meta(None, "A deal id (POST /v1/deals): its players, in its order. Omitted: the "
                       "service makes a deal for the game."),
    )
    client_seed = fields.String(
        allow_none=True,
        validate=validate.Length(1, 128),
        metadata=_meta("table-7:hand-88", "Without `deal`: the client seed of the deal the service "
                       "makes (omitted: the game's id)."),
    )
    arrange_seconds = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(MIN_ARRANGE_SECONDS, MAX_ARRANGE_SECONDS),
        metadata=_meta(60, "Seconds the players have to arrange; the deadline is the game's creation "
                       "time plus this."),
    )


class SusunGameQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE
        ordered = True

    status = fields.String(validate=validate.OneOf(STATUSES), metadata=_meta("arranging"))
    table = Id("table-7")
    limit = QueryInteger(load_default=50, validate=validate.Range(1, 500), metadata=_meta(50, "Page size, 1-500."))
    cursor = fields.String(
        validate=validate.Length(1, 512), metadata=_meta(None, "Opaque: `next_cursor` of the previous page.")
    )


class SubmissionRequestSchema(Strict):
    arrangement = fields.Nested(
        ArrangementSchema, allow_none=True, metadata={"description": "The rows, using exactly the player's hand."}
    )
    surrender = StrictBoolean(metadata=_meta(False, "true to surrender instead (where the rules allow it)."))


class SusunGamePlayerSchema(Out):
    id = Id("a", required=True)
    submitted = fields.Boolean(required=True, metadata=_meta(True, "The player sent its rows or surrendered."))
    submitted_at = fields.String(
        required=True, allow_none=True, metadata=_meta("2026-11-29T10:00:12.000Z", format="date-time")
    )
    arrangement = fields.Nested(
        ArrangementSchema, allow_none=True, metadata={"description": "Once settled only: the rows played."}
    )
    surrender = fields.Boolean(metadata=_meta(False, "Once settled only."))
    auto_arranged = fields.Boolean(
        metadata=_meta(False, "Once settled only: the service set this hand (no submission by the deadline).")
    )


class SusunGameSchema(Out):
    id = fields.String(required=True, metadata=_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata=_meta("arranging"))
    version = fields.Integer(required=True, metadata=_meta(1, "Bumped by every change; send it as If-Match."))
    rules = fields.Nested(RulesEchoSchema, required=True)
    currency = fields.String(required=True, metadata=_meta("IDR"))
    stake = Money("1000", required=True)
    table = Id("table-7", required=True, allow_none=True)
    reference = Id("client-round-9913", required=True, allow_none=True)
    deal = fields.String(required=True, metadata=_meta("dl_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    arrange_seconds = fields.Integer(required=True, metadata=_meta(60))
    created_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    deadline = fields.String(required=True, metadata=_meta("2026-11-29T10:01:00.000Z", format="date-time"))
    settled_at = fields.String(required=True, allow_none=True, metadata=_meta(None, format="date-time"))
    players = fields.List(fields.Nested(SusunGamePlayerSchema), required=True)
    round = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "The round the settled game became (GET /v1/rounds/{id}).")
    )


class SusunGameListSchema(Out):
    items = fields.List(fields.Nested(SusunGameSchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "Pass as `cursor` for the next page; null on the last.")
    )


class SusunHandSchema(Out):
    game = fields.String(required=True, metadata=_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    player = Id("a", required=True)
    hand = fields.List(
        fields.String(),
        required=True,
        metadata=_meta(["Ah", "Ad", "7c", "9s", "9h", "4d", "4c", "2s", "Ts", "Js", "Qs", "Ks", "As"]),
    )
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata=_meta("arranging"))
    deadline = fields.String(required=True, metadata=_meta("2026-11-29T10:01:00.000Z", format="date-time"))


class SubmissionSchema(Out):
    game = fields.String(required=True, metadata=_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    player = Id("a", required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata=_meta("arranging"))
    version = fields.Integer(required=True, metadata=_meta(2))
    surrender = fields.Boolean(required=True, metadata=_meta(False))
    evaluation = fields.Nested(
        EvaluationSchema,
        required=True,
        allow_none=True,
        metadata={"description": "As POST /v1/arrangements/evaluate answers; null for a surrender."},
    )
    round = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "Set when this submission was the last and settled the game.")
    )
