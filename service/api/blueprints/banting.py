"""Capsa Banting (Big Two): evaluate a play, start a game, fetch it, move."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.services.banting import games, matches

from ..auth import allow_read, require_write
from ..headers import parse_if_match, parse_key
from ..heavy_reads import in_slot, in_slot_or_refused
from ..schemas.banting import (
    BantingHandSchema,
    GameListSchema,
    GameQuerySchema,
    GameRequestSchema,
    GameStateSchema,
    HintRequestSchema,
    HintSchema,
    MoveRequestSchema,
    PlayEvaluateRequestSchema,
    PlayEvaluationSchema,
)
from ..schemas.matches import (
    MatchGameListSchema,
    MatchGameRequestSchema,
    MatchGamesQuerySchema,
    MatchRequestSchema,
    MatchSchema,
)
from ..state import db, principal
from . import (
    AUTH,
    BODY,
    IDEMPOTENCY_KEY,
    IF_MATCH,
    NOT_MODIFIED,
    READ_PRECONDITIONS,
    STATE_HEADERS,
    Blueprint,
    json_response,
    send_state,
    send_versioned,
)

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
@blp.route("/plays/evaluate")
class EvaluatePlay(MethodView):
    @allow_read
    @blp.arguments(PlayEvaluateRequestSchema, example={"cards": ["3d", "3s"], "beats": ["3c", "3h"]})
    @blp.response(200, PlayEvaluationSchema)
    @blp.problems(*BODY)
    def post(self, body: dict[str, Any]) -> Response:
        """Classify a play and, with `beats`, say whether it beats that play (no storage)."""
        return json_response(games.evaluate(body))


@blp.route("/games")
class Games(MethodView):
    @blp.arguments(GameQuerySchema, location="query")
    @blp.response(200, GameListSchema)
    @blp.problems(*AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """List this client's games (their states), newest first, by status and table, in pages.

        Each game is shown as a GET of it answers, its due auto moves played first, for at
        most 10 games a page: a page holding more ends before the next one, with fewer items
        than `limit` and a `next_cursor` that resumes there. Playing them takes one of the
        client's heavy-read slots; while it holds both, the games are shown as stored (and a
        page of `status=finished`, which would leave out the games those turns finish, is
        429 `rate-limited`)."""
        # A page of finished games would leave out those the turns finish: 429 rather than that.
        guard = in_slot_or_refused if query.get("status") == "finished" else in_slot
        return json_response(games.list_(db(), principal().client_id, **query, guard=guard))

    @blp.doc(parameters=[IDEMPOTENCY_KEY])
    @blp.arguments(GameRequestSchema, example=GAME_EXAMPLE)
    @blp.response(201, GameStateSchema, headers={**STATE_HEADERS, "Location": {
        "description": "The new game.", "schema": {"type": "string"}}})
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Start a game with the players' hands, or with a deal (its players, in its order).

        The holder of the lowest dealt card leads, and the first play must contain it.
        Hands are kept by the service and never shown in the state. With `turn_seconds`
        the game is timed: a player still in turn at its `deadline` is played for (a pass
        where the rules allow one, otherwise the hint's move), marked `auto: true`. The
        service makes those moves on the next access to the game (a GET, a move or a
        hint), each dated at its deadline, so no client has to poll at the deadline.
        """
        key = parse_key(request.headers.get("Idempotency-Key"))
        return send_versioned(games.create(db(), principal().client_id, body, key))


@blp.route("/games/<string:game_id>")
class GameById(MethodView):
    @blp.doc(parameters=READ_PRECONDITIONS, responses=NOT_MODIFIED)
    @blp.response(200, GameStateSchema, headers={"ETag": STATE_HEADERS["ETag"]})
    @blp.problems(*AUTH, 404, 412)
    def get(self, game_id: str) -> Response:
        """The game's state (no player's cards), after the auto moves that were due.

        A read key may fetch it: the auto moves it may store follow from the clock alone.
        """
        return send_state(games.get(db(), principal().client_id, game_id))


@blp.route("/games/<string:game_id>/hands/<id:player>")
class Hand(MethodView):
    @blp.response(200, BantingHandSchema)
    @blp.problems(*AUTH, 403, 404)
    def get(self, game_id: str, player: str) -> Response:
        """One player's cards held now, for the game server to relay to that player alone.

        A write key is needed (a read key is 403): the state shows only `cards_left`, and a
        game's hands are never answered elsewhere while it is in play. Auto moves that were
        due are applied first.
        """
        client_id = principal().client_id
        games.require(db(), client_id, game_id)  # another client's game is 404, whatever the key
        require_write()
        return json_response(games.hand(db(), client_id, game_id, player))


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
        contain the lowest card, passed already in this trick, the leader cannot pass, must
        play the highest single (`last_card_rule`), turn timed out (a timed game: the
        player's turn ran out and the service played for it; checked before If-Match).
        Auto moves that were due are applied first; if any were, an If-Match is stale
        (412). A move on a finished game is 409. The move that ends the game settles it and records
        it as a `game: banting` round, returned as `round`.
        """
        def checks() -> tuple[str | None, frozenset[int] | None]:
            # Run once the game is found: another client's game is 404, whatever the key.
            require_write()
            return parse_key(request.headers.get("Idempotency-Key")), parse_if_match(request.headers.get("If-Match"))

        return send_versioned(games.move(db(), principal().client_id, game_id, body, checks))


MATCH_EXAMPLE = {
    "rules": "big-two-hk",
    "currency": "IDR",
    "stake": "1000",
    "table": "table-7",
    "players": ["a", "b"],
    "target_points": 101,
}
MATCH_IF_MATCH = {
    **IF_MATCH,
    "description": 'The match version the game was started on, `"3"` or `3`; a stale one is 412 '
    "`precondition-failed` and starts nothing.",
}


@blp.route("/matches")
class Matches(MethodView):
    @blp.doc(parameters=[IDEMPOTENCY_KEY])
    @blp.arguments(MatchRequestSchema, example=MATCH_EXAMPLE)
    @blp.response(201, MatchSchema, headers={**STATE_HEADERS, "ETag": {
        "description": 'The match version, `"1"`.', "schema": {"type": "string"}}, "Location": {
        "description": "The new match.", "schema": {"type": "string"}}})
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Start a match: games of these players under one rule set until one reaches `target_points`.

        Each game of the match is started with `POST /v1/banting/matches/{id}/games`, played
        with the moves endpoint and stored as its own round; its points (each player's real
        loss: cards left x multiplier, after a bomb or a taker of all losses as the rules say;
        0 for the winner) add to the players' totals, unless its round is voided. Lowest
        total wins.
        """
        key = parse_key(request.headers.get("Idempotency-Key"))
        return send_versioned(matches.create(db(), principal().client_id, body, key))


@blp.route("/matches/<string:match_id>")
class MatchById(MethodView):
    @blp.response(200, MatchSchema, headers={"ETag": {
        "description": 'The match version, `"3"`.', "schema": {"type": "string"}}})
    @blp.doc(parameters=READ_PRECONDITIONS, responses=NOT_MODIFIED)
    @blp.problems(*AUTH, 404, 412)
    def get(self, match_id: str) -> Response:
        """The match: its players' totals and the standings after its latest finished games.

        `games` holds the latest 100 (`played` says how many there are); `GET
        /v1/banting/matches/{id}/games` pages through all of them.
        """
        return send_state(matches.get(db(), principal().client_id, match_id), "match")


@blp.route("/matches/<string:match_id>/games")
class MatchGames(MethodView):
    @blp.arguments(MatchGamesQuerySchema, location="query")
    @blp.response(200, MatchGameListSchema)
    @blp.problems(*AUTH, 404)
    def get(self, query: dict[str, Any], match_id: str) -> Response:
        """The match's finished games, voided ones too, newest first, in pages: each with its
        points and the standings after it."""
        return json_response(matches.list_games(db(), principal().client_id, match_id, **query))

    @allow_read  # the write scope is checked in the view, after the match is found
    @blp.doc(parameters=[MATCH_IF_MATCH, IDEMPOTENCY_KEY])
    @blp.arguments(MatchGameRequestSchema, example={"players": GAME_EXAMPLE["players"]})
    @blp.response(201, GameStateSchema, headers={**STATE_HEADERS, "Location": {
        "description": "The new game.", "schema": {"type": "string"}}})
    @blp.problems(*BODY, 404, 409, 412)
    def post(self, body: dict[str, Any], match_id: str) -> Response:
        """Start the match's next game with the match's players, in its order.

        409 while the previous game is being played or once the match has finished. Under
        `first_lead` `previous_winner` the winner of the last game that counts (not voided)
        leads with any play.
        """
        client_id = principal().client_id
        matches.require(db(), client_id, match_id)  # another client's match is 404, whatever the key
        require_write()
        key = parse_key(request.headers.get("Idempotency-Key"))
        version = parse_if_match(request.headers.get("If-Match"), "match")
        return send_versioned(matches.start_game(db(), client_id, match_id, body, version, key))
@blp.route("/games/<string:game_id>/hint")
class Hint(MethodView):
    @allow_read  # the write scope is checked in the view, after the game is found
    @blp.arguments(HintRequestSchema, example={"player": "a"})
    @blp.response(200, HintSchema)
    @blp.problems(*BODY, 404, 409)
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """A good legal move for the player in turn, from its own cards; nothing is stored.

        The answer's `move` is a move body to post as it is. The heuristic sees only that
        player's cards, the table and the counts of cards left (docs/rules.md, "The hint
        heuristic"); each candidate play is checked by the referee, so the hint is always
        legal under the game's rules. A write key is needed: a hint discloses cards of a
        game in play, which the state never shows (read keys see hands only in stored
        rounds). Auto moves that were due are applied first. A player not in turn is 422
        `illegal-move` (not your turn, or turn timed out); a finished game is 409.
        """
        client_id = principal().client_id
        games.require(db(), client_id, game_id)  # another client's game is 404, whatever the key
        require_write()
        return json_response(games.hint(db(), client_id, game_id, body))
