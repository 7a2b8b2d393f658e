"""`/v1/deals`: provably fair deals."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from service.domain.deals import CLIENT_SEED_MAX, DEAL_ID_MAX, MAX_PLAYERS, MIN_PLAYERS, DealStatus
from service.services.cursors import DEFAULT_PAGE, MAX_PAGE

from ..fields import LEGIBLE, Card, Id, Visible, openapi_meta
from .bases import Out, PagedQuery, Strict, next_cursor_field, page_limit

DEAL_STATUSES = [s.value for s in DealStatus]


class DealRequestSchema(Strict):
    players = fields.List(
        Id("a"),
        required=True,
        validate=validate.Length(MIN_PLAYERS, MAX_PLAYERS),
        metadata=openapi_meta(["a", "b", "c", "d"], f"{MIN_PLAYERS} to {MAX_PLAYERS} unique player ids; player k gets cards 13k..13k+12."),
    )
    client_seed = fields.String(
        required=True,
        validate=[validate.Length(1, CLIENT_SEED_MAX), Visible("must show what is mixed in")],
        metadata=openapi_meta(
            "table-7",
            f"Any UTF-8 string of 1-{CLIENT_SEED_MAX} characters, mixed into the shuffle, that reads as it is: "
            f"no character that shows nothing (a zero-width space, a soft hyphen, a variation selector), {LEGIBLE}.",
        ),
    )
    commitment_id = fields.String(
        validate=validate.Length(1, DEAL_ID_MAX),
        metadata=openapi_meta(
            "dc_01JDQ8V6R3X5M2N7P9K4T1W0YZ",
            "A commitment from `POST /v1/deals/commitments`, unused: the deal shuffles with its server seed "
            "and nonce, drawn before you chose `client_seed`. Without it the server seed is drawn now.",
        ),
    )


class DealHandsField(fields.Dict):
    def __init__(self, description: str = "Each player's 13 cards, in dealt order.", **kw: Any) -> None:
        super().__init__(
            keys=fields.String(),
            values=fields.List(Card()),
            metadata=openapi_meta(
                {"a": ["7c", "Qc", "5c", "7h", "9c", "As", "5h", "7d", "3d", "2d", "Kh", "Tc", "2s"]},
                description,
            ),
            **kw,
        )


class DealSchema(Out):
    id = fields.String(required=True, metadata=openapi_meta("dl_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(
        required=True,
        validate=validate.OneOf(DEAL_STATUSES),
        metadata=openapi_meta("open", "open (seed secret), revealed (seed published, unused) or used."),
    )
    commitment = fields.String(
        required=True,
        metadata=openapi_meta(
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
            "Hex SHA-256 of the secret server seed.",
        ),
    )
    commitment_id = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(None, "The commitment the deal was made from; null when its server seed was drawn in its own request."),
    )
    committed_at = fields.String(
        required=True,
        metadata=openapi_meta(
            "2026-11-29T10:00:00.000Z",
            "When the server seed was drawn and committed to: the commitment's time, or the deal's own.",
            format="date-time",
        ),
    )
    nonce = fields.Integer(
        required=True, metadata=openapi_meta(0, "The client's count of server seeds drawn before this one's: its commitments, and its deals made without one.")
    )
    client_seed = fields.String(required=True, metadata=openapi_meta("table-7"))
    hands = DealHandsField(
        description="Each player's 13 cards, in dealt order; left out while the game that used the deal "
        "is in play (a Capsa Susun game arranging, a Big Two game playing), whatever the key, and for a "
        "read key while the deal is unused and its seed secret."
    )
    players = fields.List(Id("a"), required=True, metadata=openapi_meta(["a", "b", "c", "d"], "In deal order."))
    created_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    used_at = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "When a round or game used it.", format="date-time")
    )
    used_by = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "The round (rnd_), Big Two game (gm_) or Capsa Susun game (sg_) that used it.")
    )
    revealed_at = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "When the server seed was published.", format="date-time")
    )
    server_seed = fields.String(
        metadata=openapi_meta(
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "Hex; present only once the deal is used or revealed, and left out while the game that "
            "used it is in play.",
        )
    )


class DealQuerySchema(PagedQuery):
    status = fields.String(validate=validate.OneOf(DEAL_STATUSES), metadata=openapi_meta("open", "Only deals in this status."))
    limit = page_limit(DEFAULT_PAGE, MAX_PAGE)


class DealListSchema(Out):
    items = fields.List(fields.Nested(DealSchema), required=True)
    next_cursor = next_cursor_field()


class CommitmentSchema(Out):
    id = fields.String(required=True, metadata=openapi_meta("dc_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    commitment = fields.String(
        required=True,
        metadata=openapi_meta(
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
            "Hex SHA-256 of the secret server seed drawn now.",
        ),
    )
    nonce = fields.Integer(
        required=True, metadata=openapi_meta(0, "The nonce taken now: the client's count of server seeds drawn before it (commitments, and deals made without one).")
    )
    created_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    used_by = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "The deal made from it (dl_); null while unused.")
    )
