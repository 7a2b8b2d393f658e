"""`GET /v1/rules`: the presets."""

from __future__ import annotations

from marshmallow import fields, validate

from service.domain.rules import GAMES

from ..fields import openapi_meta
from .bases import Out


class RulesEchoSchema(Out):
    """The rules a round or a game was scored under, as every answer echoes them."""

    preset = fields.String(required=True, metadata=openapi_meta("capsa-susun-id"))
    version = fields.Integer(required=True, metadata=openapi_meta(1))
    params = fields.Dict(
        required=True,
        metadata=openapi_meta({"tembus_multiplier": 2, "fee_rate": "0.03"}, "Every parameter of the game."),
    )


class PresetSchema(Out):
    """One version of a preset; a request naming the preset without a version gets the latest."""

    preset = fields.String(required=True, metadata=openapi_meta("capsa-susun-id"))
    version = fields.Integer(required=True, metadata=openapi_meta(2))
    latest = fields.Boolean(
        required=True, metadata=openapi_meta(True, "This is the version a request without one gets.")
    )
    game = fields.String(
        required=True, validate=validate.OneOf(GAMES), metadata=openapi_meta("susun")
    )
    description = fields.String(required=True, metadata=openapi_meta("Capsa Susun as played in ..."))
    params = fields.Dict(required=True, metadata=openapi_meta({"tembus_multiplier": 2}))
    source = fields.String(
        metadata=openapi_meta("yawnoc/big-two-scorer (big2.py, test_big2.py, README.md)", "Where the preset comes from.")
    )
    sources = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata=openapi_meta(
            {"tembus_multiplier": "seed 000"},
            "Where each parameter's value comes from: a seed, a Decision of docs/rules.md, "
            "or a peer's repository and file.",
        ),
    )


class PresetListSchema(Out):
    items = fields.List(fields.Nested(PresetSchema), required=True)
