"""Rounds: score (preview), score and store, fetch one, list."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.services.rounds import store as rounds

from ..auth import allow_read, holds_write
from ..headers import parse_key
from ..schemas.rounds import (
    RoundDocumentSchema,
    RoundListSchema,
    RoundQuerySchema,
    RoundRequestSchema,
    ScoreDocumentSchema,
)
from ..state import db, principal, state
from . import AUTH, BODY, Blueprint, json_response, send_stored

blp = Blueprint("rounds", __name__, url_prefix="/v1", description="Capsa Susun rounds.")

EXAMPLE = {
    "rules": "capsa-susun-id",
    "table": "table-7",
    "reference": "client-round-9912",
    "currency": "IDR",
    "stake": "1000",
    "players": [
        {
            "id": "a",
            "arrangement": {
                "front": ["2c", "2d", "2h"],
                "middle": ["3s", "4d", "5c", "6h", "7d"],
                "back": ["8h", "Th", "Qh", "Kh", "4h"],
            },
        },
        {
            "id": "b",
            "arrangement": {
                "front": ["Ac", "Kd", "9s"],
                "middle": ["9h", "9d", "Jc", "Qc", "3c"],
                "back": ["Ts", "Td", "Js", "Jd", "5s"],
            },
        },
    ],
}
IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "description": "1-255 printable ASCII characters (a quoted string is accepted), kept 24 hours. "
    "The same key with the same body replays the first answer byte for byte with "
    "`Idempotent-Replayed: true`; with another body: 422. The key is claimed in the same "
    "transaction as the round: a request meeting a first one still running waits for it (at "
    "most 2 s) and replays its answer, or answers 409 `idempotency-in-flight` with Retry-After "
    "when the wait runs out; it never stores a second round. A request that fails or dies "
    "leaves the key free at once.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 257},
    "example": "9f1c7a4e-3b8d-4c55-a0a3-2b7f1d9e6c10",
}
CREATED_HEADERS = {
    "Location": {"description": "The new round.", "schema": {"type": "string"}},
    "Idempotent-Replayed": {
        "description": "`true` on a replay of a stored answer.",
        "schema": {"type": "string", "example": "true"},
    },
}


@blp.route("/score")
class Score(MethodView):
    @allow_read
    @blp.body(RoundRequestSchema, example=EXAMPLE)
    @blp.response(200, ScoreDocumentSchema)
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Score a round without storing it: the document POST /v1/rounds would store.

        With a `deal` used by a game still in play it is 409 `deal-in-play` (no card is
        compared with the deal's hands, so no error lists them).
        """
        document, preset = rounds.preview(body, db(), principal().client_id, writer=holds_write())
        state().metrics.round_scored(preset, stored=False)
        return json_response(document)


@blp.route("/rounds")
class Rounds(MethodView):
    @blp.arguments(RoundQuerySchema, location="query")
    @blp.response(200, RoundListSchema)
    @blp.problems(*AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """List this client's rounds, newest first, filtered, in pages."""
        return json_response(rounds.list_(db(), principal().client_id, **query))

    @blp.doc(parameters=[IDEMPOTENCY_KEY])
    @blp.body(RoundRequestSchema, example=EXAMPLE)
    @blp.response(201, RoundDocumentSchema, headers=CREATED_HEADERS)
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Score a round and store it (idempotent with Idempotency-Key)."""
        key = parse_key(request.headers.get("Idempotency-Key"))
        created = rounds.create(db(), principal().client_id, body, key)
        if created.preset is not None:
            state().metrics.round_scored(created.preset, stored=True)
        return send_stored(created.response)


@blp.route("/rounds/<string:round_id>")
class RoundById(MethodView):
    @blp.response(200, RoundDocumentSchema)
    @blp.problems(*AUTH, 404)
    def get(self, round_id: str) -> Response:
        """One round of this client (another client's round is 404)."""
        return json_response(rounds.get(db(), principal().client_id, round_id))
