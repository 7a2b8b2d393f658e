"""`/v1/score` and `/v1/rounds`: a round's request, its scored document, the stored round."""

from __future__ import annotations

from marshmallow import fields, validate

from service.domain.banting.settlement import Outcome
from service.domain.deals import DEAL_ID_MAX
from service.domain.rules import GAMES
from service.domain.susun.round import MAX_PAIR_STAKES, MAX_PLAYERS, MIN_PLAYERS
from service.domain.susun.rules import NATURALS
from service.domain.susun.scoring import PairOutcome
from service.services.cursors import DEFAULT_PAGE, MAX_PAGE
from service.services.rounds.documents import RoundStatus

from ..fields import (
    Cards,
    Id,
    Money,
    RulesRef,
    SignedMoney,
    Since,
    StrictBoolean,
    Until,
    openapi_meta,
)
from .arrangements import HAND_EXAMPLE, ArrangementSchema, RowsSchema
from .banting import HistoryEntrySchema
from .bases import CURSOR_MAX, Out, Query, Strict, currency_code, next_cursor_field, page_limit
from .rules import RulesEchoSchema

OUTCOMES = [*(o.value for o in PairOutcome), *(o.value for o in Outcome)]  # Capsa Susun's, then Big Two's


class PlayerSchema(Strict):
    id = Id("a", "Player id, unique in the round.", required=True)
    hand = Cards(
        list(HAND_EXAMPLE),
        "Optional: the 13 dealt cards; the rows must use exactly these.",
        allow_none=True,
    )
    arrangement = fields.Nested(
        ArrangementSchema,
        allow_none=True,
        metadata={"description": "The rows as set; absent for a surrendering player."},
    )
    surrender = StrictBoolean(metadata=openapi_meta(False, "The player surrenders (where the rules allow it)."))


class PairStakeSchema(Strict):
    players = fields.List(Id("a"), required=True, validate=validate.Length(2, 2), metadata=openapi_meta(["a", "c"]))
    stake = Money("5000", required=True)


class RoundRequestSchema(Strict):
    rules = RulesRef()
    table = Id("table-7", "The operator's table.", allow_none=True)
    reference = Id(
        "client-round-9912",
        "The operator's own id of the round, unique per client among rounds and Capsa Susun games.",
        allow_none=True,
    )
    currency = currency_code()
    stake = Money("1000", "Stake per point, every pair unless `pair_stakes` says otherwise.", required=True)
    pair_stakes = fields.List(
        fields.Nested(PairStakeSchema),
        validate=validate.Length(max=MAX_PAIR_STAKES),
        metadata=openapi_meta([{"players": ["a", "b"], "stake": "5000"}], "Per-pair stakes."),
    )
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, DEAL_ID_MAX),
        metadata=openapi_meta(None, "A deal id (provably fair dealing), or null."),
    )
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        validate=validate.Length(MIN_PLAYERS, MAX_PLAYERS),
        metadata={"description": f"{MIN_PLAYERS} to {MAX_PLAYERS} players with unique ids."},
    )


class RoundQuerySchema(Query):
    table = Id("table-7")
    player = Id("a", "Rounds in which this player played.")
    reference = Id("client-round-9912")
    since = Since()
    until = Until()
    limit = page_limit(DEFAULT_PAGE, MAX_PAGE)
    cursor = fields.String(
        validate=validate.Length(1, CURSOR_MAX),
        metadata=openapi_meta(
            "WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwicm5kXzAxSiJd",
            "Opaque: `next_cursor` of the previous page.",
        ),
    )


class PlayerResultSchema(Out):
    """A player's line; `rows`/`foul`/`natural`/`surrender` in Susun, `cards_left` in Banting."""

    id = Id("a", required=True)
    rows = fields.Nested(RowsSchema, allow_none=True, metadata={"description": "Capsa Susun only."})
    foul = fields.Boolean(metadata=openapi_meta(False, "Capsa Susun only."))
    natural = fields.String(
        allow_none=True, validate=validate.OneOf(NATURALS), metadata=openapi_meta(None, "Capsa Susun only.")
    )
    surrender = fields.Boolean(metadata=openapi_meta(False, "Capsa Susun only."))
    auto_arranged = fields.Boolean(
        metadata=openapi_meta(False, "Rounds of a server-run Capsa Susun game only: the service set this hand.")
    )
    cards_left = fields.Integer(metadata=openapi_meta(7, "Capsa Banting only: cards left at the end."))
    points = fields.Integer(required=True, metadata=openapi_meta(11))
    result = SignedMoney("11000", required=True)
    winnings = Money("11000", required=True)
    fee = Money("330", required=True)
    net = SignedMoney("10670", required=True)


class PairRowsSchema(Out):
    front = fields.Integer(required=True, metadata=openapi_meta(1, "1 won, 0 tied, -1 lost (first player)."))
    middle = fields.Integer(required=True, metadata=openapi_meta(1))
    back = fields.Integer(required=True, metadata=openapi_meta(1))


class PairResultSchema(Out):
    players = fields.List(Id("a"), required=True, metadata=openapi_meta(["a", "b"]))
    stake = Money("1000", required=True)
    rows = fields.Nested(PairRowsSchema, required=True, allow_none=True)
    bonus = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata=openapi_meta({"a": 5, "b": 0}, "What each side was paid in this pair (Capsa Susun only)."),
    )
    outcome = fields.String(required=True, validate=validate.OneOf(OUTCOMES), metadata=openapi_meta("tembus"))
    multiplier = fields.Integer(required=True, metadata=openapi_meta(2))
    points = fields.Integer(required=True, metadata=openapi_meta(11, "From the first player's side."))
    amount = SignedMoney("11000", required=True)


class ScoreDocumentSchema(Out):
    game = fields.String(required=True, validate=validate.OneOf(GAMES), metadata=openapi_meta("susun"))
    table = Id("table-7", required=True, allow_none=True)
    reference = Id("client-round-9912", required=True, allow_none=True)
    game_id = fields.String(
        metadata=openapi_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Rounds of a server-run Capsa Susun game only: the game.")
    )
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    stake = Money("1000", required=True)
    rules = fields.Nested(RulesEchoSchema, required=True)
    engine_version = fields.String(required=True, metadata=openapi_meta("1.0.0"))
    players = fields.List(fields.Nested(PlayerResultSchema), required=True)
    pairs = fields.List(fields.Nested(PairResultSchema), required=True)
    house_fee = Money("330", required=True)
    history = fields.List(
        fields.Nested(HistoryEntrySchema),
        metadata={"description": "Capsa Banting only: the game's moves."},
    )
    turn_seconds = fields.Integer(
        allow_none=True,
        metadata=openapi_meta(
            None, "Capsa Banting games stored from the turn timers on: the game's turn timer (null: untimed)."
        ),
    )


class AuditSchema(Out):
    sequence = fields.Integer(required=True, metadata=openapi_meta(42))
    hash = fields.String(required=True, metadata=openapi_meta("0" * 64))
    previous_hash = fields.String(required=True, metadata=openapi_meta("0" * 64))
    kid = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta("21fe31dfa154a261", "The signing key (`GET /v1/audit/keys`); null while unsigned."),
    )
    signature = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(
            "JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw",
            "The receipt: Ed25519 signature (unpadded base64url) over the UTF-8 bytes "
            "`capsa-audit-v1\\n{client_id}\\n{sequence}\\n{hash}\\n`, made once when the record "
            "was stored; null until a signing key exists (docs/audit.md).",
        ),
    )


class VoidSchema(Out):
    at = fields.String(required=True, metadata=openapi_meta("2026-11-29T11:00:00.000Z", format="date-time"))
    reason = fields.String(required=True, metadata=openapi_meta("dealer error"))
    audit = fields.Nested(
        AuditSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The void's own record in the chain and its receipt."},
    )


class RoundDocumentSchema(Out):
    id = fields.String(required=True, metadata=openapi_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    game = fields.String(required=True, validate=validate.OneOf(GAMES), metadata=openapi_meta("susun"))
    created_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    table = Id("table-7", required=True, allow_none=True)
    reference = Id("client-round-9912", required=True, allow_none=True)
    game_id = fields.String(
        metadata=openapi_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Rounds of a server-run Capsa Susun game only: the game.")
    )
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    stake = Money("1000", required=True)
    rules = fields.Nested(RulesEchoSchema, required=True)
    engine_version = fields.String(required=True, metadata=openapi_meta("1.0.0"))
    status = fields.String(
        required=True, validate=validate.OneOf([s.value for s in RoundStatus]), metadata=openapi_meta("settled")
    )
    void = fields.Nested(VoidSchema, required=True, allow_none=True)
    players = fields.List(fields.Nested(PlayerResultSchema), required=True)
    pairs = fields.List(fields.Nested(PairResultSchema), required=True)
    house_fee = Money("330", required=True)
    audit = fields.Nested(
        AuditSchema,
        required=True,
        allow_none=True,
        metadata={"description": "null until the audit trail exists."},
    )
    history = fields.List(
        fields.Nested(HistoryEntrySchema),
        metadata={"description": "Capsa Banting only: the game's moves."},
    )
    turn_seconds = fields.Integer(
        allow_none=True,
        metadata=openapi_meta(
            None, "Capsa Banting games stored from the turn timers on: the game's turn timer (null: untimed)."
        ),
    )


class RoundListSchema(Out):
    items = fields.List(fields.Nested(RoundDocumentSchema), required=True)
    next_cursor = next_cursor_field()
