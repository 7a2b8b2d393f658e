"""Server-run Capsa Susun games: start, read, a player's hand, submit rows, list."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.services.susun import games as susun_games

from ..auth import allow_read, require_write
from ..headers import parse_if_match, parse_key
from ..heavy_reads import in_slot, in_slot_or_refused
from ..schemas.susun_games import (
    SubmissionRequestSchema,
    SubmissionSchema,
    SusunGameListSchema,
    SusunGameQuerySchema,
    SusunGameRequestSchema,
    SusunGameSchema,
    SusunHandSchema,
)
from ..state import db, principal
from . import (
    AUTH,
    BODY,
    IDEMPOTENCY_KEY,
    NOT_MODIFIED,
    READ_PRECONDITIONS,
    STATE_HEADERS,
    Blueprint,
    json_response,
    send_state,
    send_versioned,
)

blp = Blueprint(
    "susun_games", __name__, url_prefix="/v1/susun", description="Server-run Capsa Susun games."
)

GAME_EXAMPLE = {
    "rules": "capsa-susun-id",
    "players": ["a", "b", "c", "d"],
    "currency": "IDR",
    "stake": "1000",
    "table": "table-7",
    "arrange_seconds": 60,
}
IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "description": 'The game version the submission was decided on, `"7"` or `7`; a stale one is 412 '
    "`precondition-failed` and changes nothing.",
    "schema": {"type": "string", "maxLength": 40},
    "example": '"1"',
}
ETAG = {"ETag": STATE_HEADERS["ETag"]}
REPLAYED = {"Idempotent-Replayed": STATE_HEADERS["Idempotent-Replayed"]}


@blp.route("/games")
class Games(MethodView):
    @blp.arguments(SusunGameQuerySchema, location="query")
    @blp.response(200, SusunGameListSchema)
    @blp.problems(*AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """List this client's games, newest first, by `status` and `table`, in pages.

        Overdue games on a page settle first, at most 10 a page: a page holding more ends
        before the next one, with fewer items than `limit` and a `next_cursor` that resumes
        there. Settling them takes one of the client's heavy-read slots; while it holds both,
        the games are shown as stored (and a page of `status=settled`, which would leave out
        the games settling them would add, is 429 `rate-limited`)."""
        # A page of settled games would leave out those settling them adds: 429 rather than that.
        guard = in_slot_or_refused if query.get("status") == "settled" else in_slot
        return json_response(susun_games.list_(db(), principal().client_id, **query, guard=guard))

    @blp.doc(parameters=[IDEMPOTENCY_KEY])
    @blp.arguments(SusunGameRequestSchema, example=GAME_EXAMPLE)
    @blp.response(201, SusunGameSchema, headers={**ETAG, **REPLAYED, "Location": {
        "description": "The new game.", "schema": {"type": "string"}}})
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Deal a game and open its arrangement phase until `deadline`.

        Without `deal` the service makes a provably fair deal for it (as POST /v1/deals
        does, with `client_seed`); either way the deal is used by the game. Each player's
        13 cards are at `/hands/{player}`; the game settles when every player has
        submitted or at the deadline, whichever comes first, and becomes a round.
        """
        key = parse_key(request.headers.get("Idempotency-Key"))
        return send_versioned(susun_games.create(db(), principal().client_id, body, key))


@blp.route("/games/<string:game_id>")
class GameById(MethodView):
    @blp.doc(parameters=READ_PRECONDITIONS, responses=NOT_MODIFIED)
    @blp.response(200, SusunGameSchema, headers=ETAG)
    @blp.problems(*AUTH, 404, 412)
    def get(self, game_id: str) -> Response:
        """The game: who has submitted (no player's cards until it is settled).

        A game whose deadline has passed settles on this read, before it is answered.
        """
        return send_state(susun_games.get(db(), principal().client_id, game_id, guard=in_slot))


@blp.route("/games/<string:game_id>/hands/<id:player>")
class Hand(MethodView):
    @blp.response(200, SusunHandSchema)
    @blp.problems(*AUTH, 403, 404)
    def get(self, game_id: str, player: str) -> Response:
        """One player's 13 dealt cards, for the game server to relay to that player alone.

        A write key is needed (a read key is 403): while the game is in play this is the
        only answer that carries a card of it.
        """
        client_id = principal().client_id
        susun_games.require(db(), client_id, game_id)  # another client's game is 404, whatever the key
        require_write()
        return json_response(susun_games.hand(db(), client_id, game_id, player, guard=in_slot))


@blp.route("/games/<string:game_id>/arrangements/<id:player>")
class Arrangement(MethodView):
    @allow_read  # the write scope is checked in the view, after the game is found
    @blp.doc(parameters=[IF_MATCH, IDEMPOTENCY_KEY])
    @blp.arguments(SubmissionRequestSchema, example={"arrangement": {
        "front": ["Ah", "Ad", "7c"], "middle": ["9s", "9h", "4d", "4c", "2s"],
        "back": ["Ts", "Js", "Qs", "Ks", "As"]}})
    @blp.response(200, SubmissionSchema, headers={**ETAG, **REPLAYED})
    @blp.problems(*BODY, 404, 409, 412)
    def put(self, body: dict[str, Any], game_id: str, player: str) -> Response:
        """Set a player's rows (or surrender); the answer is their evaluation at once.

        The rows must use exactly the player's dealt cards (else 422 `invalid-cards`); a
        foul is accepted, and evaluated as one. A player may replace its rows until the game
        settles; after that (or after the deadline) it is 409. `{"surrender": true}` only
        where the rules allow surrender. The last player's submission settles the game and
        answers its `round`.
        """
        client_id = principal().client_id
        due = susun_games.require(db(), client_id, game_id)  # another client's game is 404, whatever the key
        require_write()
        key = parse_key(request.headers.get("Idempotency-Key"))
        version = parse_if_match(request.headers.get("If-Match"))
        return send_versioned(
            susun_games.submit(db(), client_id, game_id, player, body, version, key, due=due, guard=in_slot)
        )
