"""Capsa Banting (Big Two): evaluate a play, start a game, fetch it, move."""

from __future__ import annotations

import json
from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.services import banting
from service.services.idempotency import StoredResponse, parse_key

from ..auth import allow_read, require_write
from ..schemas import (
    GameListSchema,
    GameQuerySchema,
    GameRequestSchema,
    GameStateSchema,
    MoveRequestSchema,
    PlayEvaluateRequestSchema,
    PlayEvaluationSchema,
)
from ..state import db, principal
from . import AUTH, BODY, Blueprint, json_response, send_stored

blp = Blueprint(
    "banting", __name__, url_prefix="/v1/banting", description="Capsa Banting (Big Two) games."
)

HAND_A = ["3d", "5c", "5d", "5h", "5s", "9d", "4c", "6c", "8c", "Tc", "Qc", "Kd", "Ad"]
HAND_B = ["3c", "3h", "4d", "4h", "6d", "7c", "8d", "9c", "Jc", "Jd", "Qd", "Kc", "Ac"]
GAME_EXAMPLE = {
    "rules": "capsa-banting-id",
    "currency": "IDR",
    "stake": "1000",
    "table": "table-7",
    "players": [{"id": "a", "hand": HAND_A}, {"id": "b", "hand": HAND_B}],
}
IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "description": "1-255 printable ASCII characters (a quoted string is accepted), scoped to "
    "this path. The same key with the same body replays the first answer byte for byte with "
    "`Idempotent-Replayed: true`; with another body: 422; while the first runs: 409.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 257},
    "example": "9f1c7a4e-3b8d-4c55-a0a3-2b7f1d9e6c10",
}
IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "description": 'The game version the move was decided on, `"7"` or `7`; a stale one is 412 '
    "`precondition-failed` and changes nothing.",
    "schema": {"type": "string", "maxLength": 40},
    "example": '"1"',
}
STATE_HEADERS = {
    "ETag": {"description": 'The game version, `"7"`.', "schema": {"type": "string"}},
    "Idempotent-Replayed": {
        "description": "`true` on a replay of a stored answer.",
        "schema": {"type": "string", "example": "true"},
    },
}


def _send(stored: StoredResponse) -> Response:
    response = send_stored(stored)
    if 200 <= stored.status < 300:
        response.headers["ETag"] = f'"{json.loads(stored.body)["version"]}"'
    return response


@blp.route("/plays/evaluate")
class EvaluatePlay(MethodView):
    @allow_read
    @blp.arguments(PlayEvaluateRequestSchema, example={"cards": ["3d", "3s"], "beats": ["3c", "3h"]})
    @blp.response(200, PlayEvaluationSchema)
    @blp.problems(*BODY)
    def post(self, body: dict[str, Any]) -> Response:
        """Classify a play and, with `beats`, say whether it beats that play (no storage)."""
        return json_response(banting.evaluate(body))


@blp.route("/games")
class Games(MethodView):
    @blp.arguments(GameQuerySchema, location="query")
    @blp.response(200, GameListSchema)
    @blp.problems(*AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """List this client's games (their states), newest first, by status and table, in pages."""
        return json_response(banting.list_(db(), principal().client_id, **query))

    @blp.doc(parameters=[IDEMPOTENCY_KEY])
    @blp.arguments(GameRequestSchema, example=GAME_EXAMPLE)
    @blp.response(201, GameStateSchema, headers={**STATE_HEADERS, "Location": {
        "description": "The new game.", "schema": {"type": "string"}}})
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Start a game with the players' hands, or with a deal (its players, in its order).

        The holder of the lowest dealt card leads, and the first play must contain it.
        Hands are kept by the service and never shown in the state.
        """
        key = parse_key(request.headers.get("Idempotency-Key"))
        return _send(banting.create(db(), principal().client_id, body, key))


@blp.route("/games/<string:game_id>")
class GameById(MethodView):
    @blp.response(200, GameStateSchema, headers={"ETag": STATE_HEADERS["ETag"]})
    @blp.problems(*AUTH, 404)
    def get(self, game_id: str) -> Response:
        """The game's state (no player's cards)."""
        document = banting.get(db(), principal().client_id, game_id)
        return json_response(document, headers={"ETag": f'"{document["version"]}"'})


@blp.route("/games/<string:game_id>/moves")
class Moves(MethodView):
    @allow_read  # the write scope is checked in the view, after the game is found
    @blp.doc(parameters=[IF_MATCH, IDEMPOTENCY_KEY])
    @blp.arguments(MoveRequestSchema, example={"player": "a", "play": ["3d"]})
    @blp.response(200, GameStateSchema, headers=STATE_HEADERS)
    @blp.problems(*BODY, 404, 409, 412)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Play cards or pass; an illegal move is 422 `illegal-move` with the reason.

        Reasons: not your turn, cards not in hand, not a combination, does not beat, must
        contain the lowest card, passed already in this trick, the leader cannot pass. A
        move on a finished game is 409. The move that ends the game settles it and records
        it as a `game: banting` round, returned as `round`.
        """
        client_id = principal().client_id
        banting.require(db(), client_id, game_id)  # another client's game is 404, whatever the key
        require_write()
        key = parse_key(request.headers.get("Idempotency-Key"))
        version = banting.parse_if_match(request.headers.get("If-Match"))
        return _send(banting.move(db(), principal().client_id, game_id, body, version, key))
