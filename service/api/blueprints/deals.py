"""Provably fair deals: make one, show it, reveal its server seed."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.services import deals

from ..auth import allow_read, holds_write, require_write
from ..body import no_body
from ..schemas.deals import CommitmentSchema, DealListSchema, DealQuerySchema, DealRequestSchema, DealSchema
from ..state import db, principal
from . import AUTH, BODY, Blueprint, json_response

ALGORITHM = """\
Algorithm (anyone can recompute it): `server_seed` is 32 random bytes from the OS CSPRNG;
`commitment` = hex SHA-256(server_seed); `nonce` = the client's count of server seeds
drawn before this one (0, 1, ...): its commitments, and its deals made without one. Byte stream: blocks HMAC-SHA256(key = server_seed, message = UTF-8 of
`"<client_seed>:<nonce>:<i>"`) for i = 0, 1, 2..., concatenated, read as 4-byte big-endian
unsigned integers u. Start deck: `2c 2d 2h 2s 3c ... As` (ranks 2..A, suits c d h s).
Fisher-Yates: for i from 51 down to 1, n = i + 1, limit = floor(2^32 / n) x n; take the
next u until u < limit; j = u mod n; swap positions i and j. Player k of the request gets
cards 13k .. 13k+12.

Commit first, so that the server seed is fixed before the client's seed exists:
`POST /v1/deals/commitments` draws the server seed and takes the nonce, and answers its
`commitment` and `nonce`, never the seed; choose `client_seed` after, and send both as `POST /v1/deals` with
`commitment_id`. The deal's `commitment` and `nonce` are the ones answered before. Without
`commitment_id` the service draws the seed in the deal's own request, after it has seen
`client_seed` (`committed_at` then equals `created_at`).

Test vector: server_seed = bytes 0x00, 0x01, ..., 0x1f; client_seed `table-7`; nonce 0 ->
commitment `630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd`,
player 0 `7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s`,
player 3 `3h Qh 4s 5d 8d 9h 3s 6c Jc 7s 3c Ah 2h`.

A round (`POST /v1/rounds`, `POST /v1/score`) or a Big Two game may carry
`"deal": "<deal id>"`: every player's cards must be exactly its dealt hand (422
`invalid-cards` otherwise); a deal is used at most once (409 `conflict`). A round that uses
it reveals it; a game reveals it once the game has ended (settled or finished): while the
game is in play the deal's `hands` and `server_seed` are left out of every answer, for
every key, and naming the deal (a round, `POST /v1/score`, a game, reveal) is 409
`deal-in-play`. `POST /v1/score` checks the cards without using the deal.
"""

blp = Blueprint(
    "deals", __name__, url_prefix="/v1/deals", description="Provably fair deals.\n\n" + ALGORITHM
)

EXAMPLE = {"players": ["a", "b", "c", "d"], "client_seed": "table-7"}


@blp.route("")
class Deals(MethodView):
    @blp.arguments(DealQuerySchema, location="query")
    @blp.response(200, DealListSchema)
    @blp.problems(*AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """List this client's deals, newest first, by status, in pages."""
        return json_response(deals.list_(db(), principal().client_id, writer=holds_write(), **query))

    @blp.doc(
        description="The server seed stays secret (only its SHA-256 `commitment` is shown) until "
        "a round uses the deal, a game that used it has ended, or it is revealed.\n\n" + ALGORITHM
    )
    @blp.arguments(DealRequestSchema, example=EXAMPLE)
    @blp.response(
        201,
        DealSchema,
        headers={"Location": {"description": "The new deal.", "schema": {"type": "string"}}},
    )
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Deal 13 cards to each of 2 to 4 players from a committed, secret server seed.

        The answer has the fields of `GET /v1/deals/{id}` (without `server_seed`)."""
        created = deals.create(db(), principal().client_id, body)
        return json_response(created, 201, {"Location": f"/v1/deals/{created['id']}"})


@blp.route("/commitments")
class Commitments(MethodView):
    @no_body
    @blp.response(
        201,
        CommitmentSchema,
        headers={"Location": {"description": "The new commitment.", "schema": {"type": "string"}}},
    )
    @blp.problems(*BODY)
    def post(self) -> Response:
        """Draw a secret server seed and take the next nonce now, before you choose your seed (no body needed).

        Answers the seed's SHA-256 (`commitment`) and the nonce; name the commitment as
        `commitment_id` in `POST /v1/deals` to deal with them. A commitment makes one deal
        (409 `conflict` after: its `detail` names the deal made, so a retry after a lost
        answer finds it)."""
        made = deals.commit(db(), principal().client_id)
        return json_response(made, 201, {"Location": f"/v1/deals/commitments/{made['id']}"})


@blp.route("/commitments/<string:commitment_id>")
class CommitmentById(MethodView):
    @blp.response(200, CommitmentSchema)
    @blp.problems(*AUTH, 404)
    def get(self, commitment_id: str) -> Response:
        """One commitment: its seed's SHA-256, its nonce, and the deal made from it."""
        return json_response(deals.get_commitment(db(), principal().client_id, commitment_id))


@blp.route("/<deal:deal_id>")
class DealById(MethodView):
    @blp.response(200, DealSchema)
    @blp.problems(*AUTH, 404)
    def get(self, deal_id: str) -> Response:
        """One deal; `server_seed` (hex) only once it is used or revealed.

        While the game that used it is in play, neither `hands` nor `server_seed`.
        """
        return json_response(deals.get(db(), principal().client_id, deal_id, writer=holds_write()))


@blp.route("/<deal:deal_id>/reveal")
class Reveal(MethodView):
    @allow_read  # the write scope is checked in the view, after the deal is found
    @no_body
    @blp.response(200, DealSchema)
    @blp.problems(*BODY, 404, 409)
    def post(self, deal_id: str) -> Response:
        """Publish the deal's server seed, so anyone can recompute the hands (no body needed).

        409 `deal-in-play` while the game that used the deal is in play.
        """
        deals.get(db(), principal().client_id, deal_id, writer=False)  # another client's deal is 404
        require_write()
        return json_response(deals.reveal(db(), principal().client_id, deal_id))
