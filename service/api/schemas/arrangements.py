"""`/v1/arrangements`: evaluate one arrangement, suggest the best of a hand; the rows a round
document shows too."""

from __future__ import annotations

from marshmallow import fields, validate

from service.domain.susun.arrangement import FRONT_BEATS_MIDDLE, MIDDLE_BEATS_BACK
from service.domain.susun.hands import Category
from service.domain.susun.rules import NATURALS
from service.domain.susun.suggest.limits import LIMIT_DEFAULT, LIMIT_MAX

from ..fields import Card, Cards, RulesRef, openapi_meta
from .bases import Out, Strict
from .rules import RulesEchoSchema

CATEGORIES = [c.label for c in Category]
FOUL_REASONS = [FRONT_BEATS_MIDDLE, MIDDLE_BEATS_BACK]
# A new list at each use: one object met twice would be a YAML alias in openapi.yaml.
HAND_EXAMPLE = ("Ah", "Ad", "7c", "9s", "9h", "4d", "4c", "2s", "Ts", "Js", "Qs", "Ks", "As")


class ArrangementSchema(Strict):
    front = Cards(["Ah", "Ad", "7c"], "Front row, 3 cards.", required=True)
    middle = Cards(["9s", "9h", "4d", "4c", "2s"], "Middle row, 5 cards.", required=True)
    back = Cards(["Ts", "Js", "Qs", "Ks", "As"], "Back row, 5 cards.", required=True)


class EvaluateRequestSchema(Strict):
    rules = RulesRef()
    arrangement = fields.Nested(ArrangementSchema, required=True)
    hand = Cards(
        list(HAND_EXAMPLE),
        "Optional: the 13 cards the rows must use.",
        allow_none=True,
    )


class RowSchema(Out):
    category = fields.String(required=True, validate=validate.OneOf(CATEGORIES), metadata=openapi_meta("pair"))
    cards = fields.List(Card(), required=True, metadata=openapi_meta(["Ah", "Ad", "7c"]))
    bonus = fields.Integer(required=True, metadata=openapi_meta(0, "What this row earns if won."))


class RowsSchema(Out):
    front = fields.Nested(RowSchema, required=True)
    middle = fields.Nested(RowSchema, required=True)
    back = fields.Nested(RowSchema, required=True)


class EvaluationSchema(Out):
    rows = fields.Nested(RowsSchema, required=True)
    foul = fields.Boolean(required=True, metadata=openapi_meta(False))
    foul_reason = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(FOUL_REASONS),
        metadata=openapi_meta(None),
    )
    natural = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(NATURALS), metadata=openapi_meta(None)
    )
    bonus_total = fields.Integer(required=True, metadata=openapi_meta(11))
    rules = fields.Nested(RulesEchoSchema, required=True)


class SuggestRequestSchema(Strict):
    rules = RulesRef()
    hand = Cards(
        list(HAND_EXAMPLE),
        "The 13 cards to set.",
        required=True,
    )
    limit = fields.Integer(
        strict=True,
        load_default=LIMIT_DEFAULT,
        validate=validate.Range(1, LIMIT_MAX),
        metadata=openapi_meta(
            LIMIT_DEFAULT, f"How many distinct legal settings to return, best first (1-{LIMIT_MAX})."
        ),
    )


class SuggestionSchema(Out):
    arrangement = fields.Nested(ArrangementSchema, required=True)
    rows = fields.Nested(RowsSchema, required=True)
    bonus_total = fields.Integer(required=True, metadata=openapi_meta(11))
    score = fields.Float(
        required=True,
        metadata=openapi_meta(2.734512, "The objective: expected points against one baseline opponent."),
    )


class SuggestResultSchema(Out):
    natural = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(NATURALS), metadata=openapi_meta(None)
    )
    suggestions = fields.List(fields.Nested(SuggestionSchema), required=True)
    rules = fields.Nested(RulesEchoSchema, required=True)
