"""Request and response schemas. Requests: structure only (game rules live in the domain)."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import EXCLUDE, RAISE, Schema, fields, post_load, validate

from service.adapters.db import Replication
from service.domain.banting.game import GameStatus
from service.domain.banting.plays import Combination
from service.domain.banting.settlement import Outcome

from .fields import (
    Card,
    Cards,
    Id,
    Money,
    QueryInteger,
    RulesRef,
    SignedMoney,
    Since,
    StrictBoolean,
    Until,
    _meta,
)

CATEGORIES = [
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
]
NATURALS = ["dragon", "three_straights", "three_flushes", "six_pairs"]
OUTCOMES = [
    "normal", "tie", "tembus", "super", "scoop", "foul", "natural", "surrender", *(o.value for o in Outcome),
]
GAMES = ["susun", "banting"]
PROBLEM_TYPES = {
    "malformed-json": (
        400,
        (
            "The body is not JSON, has NaN/Infinity, duplicate keys, nesting "
            "deeper than 32, a number too large for a double, or is not an object."
        ),
    ),
    "validation": (
        422,
        (
            "The body, a query parameter or a header does not fit the schema, or "
            "breaks a game-independent bound (player count, money, ids)."
        ),
    ),
    "invalid-cards": (
        422,
        ("Unknown cards, wrong counts, duplicate cards, rows that do not use exactly the dealt hand."),
    ),
    "unknown-rules": (
        422,
        "An unknown preset, a preset of the other game, or an unknown parameter.",
    ),
    "unauthorized": (401, "Missing, unknown or revoked API key (WWW-Authenticate: Bearer)."),
    "forbidden": (403, "A read key on a writing endpoint."),
    "not-found": (
        404,
        "No such resource for this client (another client's round too), or no such route.",
    ),
    "conflict": (
        409,
        "Conflicting state: `reference` already used, a deal used twice, a move on a finished game.",
    ),
    "deal-in-play": (
        409,
        "The deal is used by a game still in play: its seed and hands stay hidden until the game ends.",
    ),
    "idempotency-key-reused": (422, "The Idempotency-Key was used with another body."),
    "idempotency-in-flight": (
        409,
        ("The first request with this Idempotency-Key is still running; retry after Retry-After seconds."),
    ),
    "illegal-move": (422, "A Big Two move that the rules refuse."),
    "payload-too-large": (413, "The body is over the limit (64 KiB)."),
    "uri-too-long": (414, "The request line is over 8189 bytes (answered by nginx in front)."),
    "request-header-fields-too-large": (
        431,
        "A header line is over 8189 bytes, all of them over 32 KiB or over 1,000 lines (answered by nginx in front).",
    ),
    "bad-request": (400, "The request line or a header is not valid HTTP (answered by nginx in front)."),
    "unsupported-media-type": (415, "The body is not application/json."),
    "rate-limited": (429, "Too many requests; retry after Retry-After seconds."),
    "unavailable": (503, "The database is unavailable; retry after Retry-After seconds."),
    "method-not-allowed": (405, "The route does not take this method (see Allow)."),
    "not-acceptable": (
        406,
        "The Accept header allows neither application/json nor application/problem+json.",
    ),
    "precondition-failed": (412, "A stale If-Match version."),
    "internal": (
        500,
        (
            "A safety net for an unexpected error; the tests assert it never "
            "happens. The request id is logged."
        ),
    ),
}


class Strict(Schema):
    class Meta:
        unknown = RAISE
        ordered = True


class Out(Schema):
    """Response shapes: documentation and schema conformance only (views return JSON bytes)."""

    class Meta:
        unknown = RAISE
        ordered = True


# -- requests --------------------------------------------------------------------------------


class ArrangementSchema(Strict):
    front = Cards(["Ah", "Ad", "7c"], "Front row, 3 cards.", required=True)
    middle = Cards(["9s", "9h", "4d", "4c", "2s"], "Middle row, 5 cards.", required=True)
    back = Cards(["Ts", "Js", "Qs", "Ks", "As"], "Back row, 5 cards.", required=True)


class PlayerSchema(Strict):
    id = Id("a", "Player id, unique in the round.", required=True)
    hand = Cards(
        ["Ah", "Ad", "7c", "9s", "9h", "4d", "4c", "2s", "Ts", "Js", "Qs", "Ks", "As"],
        "Optional: the 13 dealt cards; the rows must use exactly these.",
        allow_none=True,
    )
    arrangement = fields.Nested(
        ArrangementSchema,
        allow_none=True,
        metadata={"description": "The rows as set; absent for a surrendering player."},
    )
    surrender = StrictBoolean(metadata=_meta(False, "The player surrenders (where the rules allow it)."))


class PairStakeSchema(Strict):
    players = fields.List(Id("a"), required=True, validate=validate.Length(2, 2), metadata=_meta(["a", "c"]))
    stake = Money("5000", required=True)


class RoundRequestSchema(Strict):
    rules = RulesRef()
    table = Id("table-7", "The operator's table.", allow_none=True)
    reference = Id(
        "client-round-9912",
        "The operator's own id of the round, unique per client.",
        allow_none=True,
    )
    currency = fields.String(
        required=True,
        validate=validate.Length(1, 8),
        metadata=_meta("IDR", "ISO 4217 code known to CLDR."),
    )
    stake = Money("1000", "Stake per point, every pair unless `pair_stakes` says otherwise.", required=True)
    pair_stakes = fields.List(
        fields.Nested(PairStakeSchema),
        validate=validate.Length(max=6),
        metadata=_meta([{"players": ["a", "b"], "stake": "5000"}], "Per-pair stakes."),
    )
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, 64),
        metadata=_meta(None, "A deal id (provably fair dealing), or null."),
    )
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        validate=validate.Length(2, 4),
        metadata={"description": "2 to 4 players with unique ids."},
    )


class EvaluateRequestSchema(Strict):
    rules = RulesRef()
    arrangement = fields.Nested(ArrangementSchema, required=True)
    hand = Cards(
        ["Ah", "Ad", "7c", "9s", "9h", "4d", "4c", "2s", "Ts", "Js", "Qs", "Ks", "As"],
        "Optional: the 13 cards the rows must use.",
        allow_none=True,
    )


class RoundQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE  # names the route does not take are refused before (queryguard)
        ordered = True

    table = Id("table-7")
    player = Id("a", "Rounds in which this player played.")
    reference = Id("client-round-9912")
    since = Since()
    until = Until()
    limit = QueryInteger(
        load_default=50,
        validate=validate.Range(1, 500),
        metadata=_meta(50, "Page size, 1-500."),
    )
    cursor = fields.String(
        validate=validate.Length(1, 512),
        metadata=_meta(
            "WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwicm5kXzAxSiJd",
            "Opaque: `next_cursor` of the previous page.",
        ),
    )


# -- responses -------------------------------------------------------------------------------


class RowSchema(Out):
    category = fields.String(required=True, validate=validate.OneOf(CATEGORIES), metadata=_meta("pair"))
    cards = fields.List(Card(), required=True, metadata=_meta(["Ah", "Ad", "7c"]))
    bonus = fields.Integer(required=True, metadata=_meta(0, "What this row earns if won."))


class RowsSchema(Out):
    front = fields.Nested(RowSchema, required=True)
    middle = fields.Nested(RowSchema, required=True)
    back = fields.Nested(RowSchema, required=True)


class RulesEchoSchema(Out):
    preset = fields.String(required=True, metadata=_meta("capsa-susun-id"))
    version = fields.Integer(required=True, metadata=_meta(1))
    params = fields.Dict(
        required=True,
        metadata=_meta({"tembus_multiplier": 2, "fee_rate": "0.03"}, "Every parameter of the game."),
    )


class PlayerResultSchema(Out):
    """A player's line; `rows`/`foul`/`natural`/`surrender` in Susun, `cards_left` in Banting."""

    id = Id("a", required=True)
    rows = fields.Nested(RowsSchema, allow_none=True, metadata={"description": "Capsa Susun only."})
    foul = fields.Boolean(metadata=_meta(False, "Capsa Susun only."))
    natural = fields.String(
        allow_none=True, validate=validate.OneOf(NATURALS), metadata=_meta(None, "Capsa Susun only.")
    )
    surrender = fields.Boolean(metadata=_meta(False, "Capsa Susun only."))
    auto_arranged = fields.Boolean(
        metadata=_meta(False, "Rounds of a server-run Capsa Susun game only: the service set this hand.")
    )
    cards_left = fields.Integer(metadata=_meta(7, "Capsa Banting only: cards left at the end."))
    points = fields.Integer(required=True, metadata=_meta(11))
    result = SignedMoney("11000", required=True)
    winnings = Money("11000", required=True)
    fee = Money("330", required=True)
    net = SignedMoney("10670", required=True)


class PairRowsSchema(Out):
    front = fields.Integer(required=True, metadata=_meta(1, "1 won, 0 tied, -1 lost (first player)."))
    middle = fields.Integer(required=True, metadata=_meta(1))
    back = fields.Integer(required=True, metadata=_meta(1))


class PairResultSchema(Out):
    players = fields.List(Id("a"), required=True, metadata=_meta(["a", "b"]))
    stake = Money("1000", required=True)
    rows = fields.Nested(PairRowsSchema, required=True, allow_none=True)
    bonus = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata=_meta({"a": 5, "b": 0}, "What each side was paid in this pair (Capsa Susun only)."),
    )
    outcome = fields.String(required=True, validate=validate.OneOf(OUTCOMES), metadata=_meta("tembus"))
    multiplier = fields.Integer(required=True, metadata=_meta(2))
    points = fields.Integer(required=True, metadata=_meta(11, "From the first player's side."))
    amount = SignedMoney("11000", required=True)


class ScoreDocumentSchema(Out):
    game = fields.String(required=True, validate=validate.OneOf(GAMES), metadata=_meta("susun"))
    table = Id("table-7", required=True, allow_none=True)
    reference = Id("client-round-9912", required=True, allow_none=True)
    game_id = fields.String(
        metadata=_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Rounds of a server-run Capsa Susun game only: the game.")
    )
    currency = fields.String(required=True, metadata=_meta("IDR"))
    stake = Money("1000", required=True)
    rules = fields.Nested(RulesEchoSchema, required=True)
    engine_version = fields.String(required=True, metadata=_meta("1.0.0"))
    players = fields.List(fields.Nested(PlayerResultSchema), required=True)
    pairs = fields.List(fields.Nested(PairResultSchema), required=True)
    house_fee = Money("330", required=True)
    history = fields.List(
        fields.Nested("HistoryEntrySchema"),
        metadata={"description": "Capsa Banting only: the game's moves."},
    )
    turn_seconds = fields.Integer(
        allow_none=True,
        metadata=_meta(
            None, "Capsa Banting games stored from the turn timers on: the game's turn timer (null: untimed)."
        ),
    )


class AuditSchema(Out):
    sequence = fields.Integer(required=True, metadata=_meta(42))
    hash = fields.String(required=True, metadata=_meta("0" * 64))
    previous_hash = fields.String(required=True, metadata=_meta("0" * 64))
    kid = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta("21fe31dfa154a261", "The signing key (`GET /v1/audit/keys`); null while unsigned."),
    )
    signature = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(
            "JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw",
            "The receipt: Ed25519 signature (unpadded base64url) over the UTF-8 bytes "
            "`capsa-audit-v1\\n{client_id}\\n{sequence}\\n{hash}\\n`, made once when the record "
            "was stored; null until a signing key exists (docs/audit.md).",
        ),
    )


class VoidSchema(Out):
    at = fields.String(required=True, metadata=_meta("2026-11-29T11:00:00.000Z", format="date-time"))
    reason = fields.String(required=True, metadata=_meta("dealer error"))
    audit = fields.Nested(
        AuditSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The void's own record in the chain and its receipt."},
    )


class RoundDocumentSchema(Out):
    id = fields.String(required=True, metadata=_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    game = fields.String(required=True, validate=validate.OneOf(GAMES), metadata=_meta("susun"))
    created_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    table = Id("table-7", required=True, allow_none=True)
    reference = Id("client-round-9912", required=True, allow_none=True)
    game_id = fields.String(
        metadata=_meta("sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Rounds of a server-run Capsa Susun game only: the game.")
    )
    currency = fields.String(required=True, metadata=_meta("IDR"))
    stake = Money("1000", required=True)
    rules = fields.Nested(RulesEchoSchema, required=True)
    engine_version = fields.String(required=True, metadata=_meta("1.0.0"))
    status = fields.String(
        required=True, validate=validate.OneOf(["settled", "void"]), metadata=_meta("settled")
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
        fields.Nested("HistoryEntrySchema"),
        metadata={"description": "Capsa Banting only: the game's moves."},
    )
    turn_seconds = fields.Integer(
        allow_none=True,
        metadata=_meta(
            None, "Capsa Banting games stored from the turn timers on: the game's turn timer (null: untimed)."
        ),
    )


class RoundListSchema(Out):
    items = fields.List(fields.Nested(RoundDocumentSchema), required=True)
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(None, "Pass as `cursor` for the next page; null on the last."),
    )


class EvaluationSchema(Out):
    rows = fields.Nested(RowsSchema, required=True)
    foul = fields.Boolean(required=True, metadata=_meta(False))
    foul_reason = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(["front beats middle", "middle beats back"]),
        metadata=_meta(None),
    )
    natural = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(NATURALS), metadata=_meta(None)
    )
    bonus_total = fields.Integer(required=True, metadata=_meta(11))
    rules = fields.Nested(RulesEchoSchema, required=True)


class SuggestRequestSchema(Strict):
    rules = RulesRef()
    hand = Cards(
        ["Ah", "Ad", "7c", "9s", "9h", "4d", "4c", "2s", "Ts", "Js", "Qs", "Ks", "As"],
        "The 13 cards to set.",
        required=True,
    )
    limit = fields.Integer(
        strict=True,
        load_default=3,
        validate=validate.Range(1, 20),
        metadata=_meta(3, "How many distinct legal settings to return, best first (1-20)."),
    )


class SuggestionSchema(Out):
    arrangement = fields.Nested(ArrangementSchema, required=True)
    rows = fields.Nested(RowsSchema, required=True)
    bonus_total = fields.Integer(required=True, metadata=_meta(11))
    score = fields.Float(
        required=True,
        metadata=_meta(2.734512, "The objective: expected points against one baseline opponent."),
    )


class SuggestResultSchema(Out):
    natural = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(NATURALS), metadata=_meta(None)
    )
    suggestions = fields.List(fields.Nested(SuggestionSchema), required=True)
    rules = fields.Nested(RulesEchoSchema, required=True)


class PresetSchema(Out):
    """One version of a preset; a request naming the preset without a version gets the latest."""

    preset = fields.String(required=True, metadata=_meta("capsa-susun-id"))
    version = fields.Integer(required=True, metadata=_meta(2))
    latest = fields.Boolean(
        required=True, metadata=_meta(True, "This is the version a request without one gets.")
    )
    game = fields.String(
        required=True, validate=validate.OneOf(["susun", "banting"]), metadata=_meta("susun")
    )
    description = fields.String(required=True, metadata=_meta("Capsa Susun as played in ..."))
    params = fields.Dict(required=True, metadata=_meta({"tembus_multiplier": 2}))
    source = fields.String(
        metadata=_meta("yawnoc/big-two-scorer (big2.py, test_big2.py, README.md)", "Where the preset comes from.")
    )
    sources = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata=_meta(
            {"tembus_multiplier": "seed 000"},
            "Where each parameter's value comes from: a seed, a Decision of docs/rules.md, "
            "or a peer's repository and file.",
        ),
    )


class PresetListSchema(Out):
    items = fields.List(fields.Nested(PresetSchema), required=True)


class HealthSchema(Out):
    status = fields.String(required=True, metadata=_meta("ok"))


class ReplicaReadySchema(Out):
    status = fields.String(
        required=True,
        validate=validate.OneOf(["ok", "lagging", "unavailable", "primary"]),
        metadata=_meta(
            "ok",
            "`ok`: it serves the reports; `lagging` (past READ_MAX_LAG_S) or `unavailable`: the "
            "primary serves them; `primary`: the URL found a server not in recovery, which serves.",
        ),
    )
    lag_seconds = fields.Float(
        required=True, allow_none=True, metadata=_meta(0.2, "How far behind the primary; null when unknown.")
    )


class ReadySchema(Out):
    status = fields.String(required=True, metadata=_meta("ok"))
    database = fields.String(required=True, metadata=_meta("ok"))
    replication = fields.Enum(
        Replication,
        metadata=_meta(
            "synchronous",
            "PostgreSQL only: `synchronous` (a standby acknowledges every commit), `waiting` (a "
            "synchronous standby is named but not streaming: writes answer 503 at the write "
            "deadline), `asynchronous` (degraded: one node, e.g. pg_auto_failover's wait_primary) "
            "or `unknown` (the role cannot read pg_stat_replication: grant it pg_monitor).",
        ),
    )
    standbys = fields.Integer(metadata=_meta(1, "PostgreSQL only: streaming standbys of this primary."))
    replica = fields.Nested(
        ReplicaReadySchema,
        metadata={"description": "With READ_DATABASE_URL only: the reports' standby. Its state never fails readiness."},
    )


class FieldErrorSchema(Out):
    field = fields.String(
        required=True,
        metadata=_meta(
            "players[1].arrangement.front[2]",
            "A path into the body, or header.<Name> / query.<name>.",
        ),
    )
    message = fields.String(required=True, metadata=_meta("unknown card 'Xx'"))


class ProblemSchema(Out):
    type = fields.String(
        required=True,
        validate=validate.OneOf([f"/problems/{p}" for p in PROBLEM_TYPES]),
        metadata=_meta(
            "/problems/invalid-cards",
            "Problem type; one of:\n\n"
            + "\n".join(f"- `/problems/{p}` ({s}): {d}" for p, (s, d) in PROBLEM_TYPES.items()),
        ),
    )
    title = fields.String(required=True, metadata=_meta("Invalid cards"))
    status = fields.Integer(required=True, metadata=_meta(422))
    detail = fields.String(required=True, metadata=_meta("2 problems in the request body"))
    errors = fields.List(
        fields.Nested(FieldErrorSchema),
        required=True,
        metadata={"description": "Every problem found, each at its place."},
    )


# -- Capsa Banting (Big Two) and deals (issue 6) ---------------------------------------------

COMBINATIONS = [c.value for c in Combination]
GAME_STATUSES = [s.value for s in GameStatus]  # a Big Two game's and a match's
HAND_EXAMPLE = ["3d", "5c", "5d", "5h", "5s", "9d", "4c", "6c", "8c", "Tc", "Qc", "Kd", "Ad"]


class BantingRulesRef(RulesRef):
    """A rule reference on the Banting endpoints (omitted: capsa-banting-id)."""

    openapi: ClassVar[dict[str, Any]] = {
        **RulesRef.openapi,
        "example": "capsa-banting-id",
        "description": "Rule set: a Banting preset name, or one with parameter overrides "
        "(docs/rules.md#banting-parameters). Omitted: capsa-banting-id; a Capsa Susun preset is 422 unknown-rules.",
    }


class DealRequestSchema(Strict):
    players = fields.List(
        Id("a"),
        required=True,
        validate=validate.Length(2, 4),
        metadata=_meta(["a", "b", "c", "d"], "2 to 4 unique player ids; player k gets cards 13k..13k+12."),
    )
    client_seed = fields.String(
        required=True,
        validate=validate.Length(1, 128),
        metadata=_meta("table-7", "Any UTF-8 string of 1-128 characters, mixed into the shuffle."),
    )


class DealHandsField(fields.Dict):
    def __init__(self, description: str = "Each player's 13 cards, in dealt order.", **kw: Any) -> None:
        super().__init__(
            keys=fields.String(),
            values=fields.List(Card()),
            metadata=_meta(
                {"a": ["7c", "Qc", "5c", "7h", "9c", "As", "5h", "7d", "3d", "2d", "Kh", "Tc", "2s"]},
                description,
            ),
            **kw,
        )


DEAL_STATUSES = ["open", "revealed", "used"]


class DealSchema(Out):
    id = fields.String(required=True, metadata=_meta("dl_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(
        required=True,
        validate=validate.OneOf(DEAL_STATUSES),
        metadata=_meta("open", "open (seed secret), revealed (seed published, unused) or used."),
    )
    commitment = fields.String(
        required=True,
        metadata=_meta(
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
            "Hex SHA-256 of the secret server seed.",
        ),
    )
    nonce = fields.Integer(required=True, metadata=_meta(0, "The client's count of deals before this one."))
    client_seed = fields.String(required=True, metadata=_meta("table-7"))
    hands = DealHandsField(
        description="Each player's 13 cards, in dealt order; left out while the game that used the deal "
        "is in play (a Capsa Susun game arranging, a Big Two game playing), whatever the key."
    )
    players = fields.List(Id("a"), required=True, metadata=_meta(["a", "b", "c", "d"], "In deal order."))
    created_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    used_at = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "When a round or game used it.", format="date-time")
    )
    used_by = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "The round (rnd_) or game (gm_) that used it.")
    )
    revealed_at = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "When the server seed was published.", format="date-time")
    )
    server_seed = fields.String(
        metadata=_meta(
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "Hex; present only once the deal is used or revealed, and left out while the game that "
            "used it is in play.",
        )
    )


class PlayEvaluateRequestSchema(Strict):
    rules = BantingRulesRef()
    cards = Cards(["3d", "3s"], "The play: 1, 2, 3 or 5 cards.", required=True)
    beats = Cards(["3c", "3h"], "Optional: the play on the table.", allow_none=True)


class PlayEvaluationSchema(Out):
    combination = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(COMBINATIONS), metadata=_meta("pair")
    )
    valid = fields.Boolean(required=True, metadata=_meta(True))
    beats = fields.Boolean(
        required=True, allow_none=True, metadata=_meta(True, "null when no `beats` play was given.")
    )
    reason = fields.String(required=True, allow_none=True, metadata=_meta(None, "Why not valid or not beating."))
    rules = fields.Nested(RulesEchoSchema, required=True)


class BantingPlayerSchema(Strict):
    id = Id("a", "Player id, unique in the game; seats follow this order.", required=True)
    hand = Cards(HAND_EXAMPLE, "The 13 dealt cards (omit with a deal, or give the dealt ones).", allow_none=True)


class GameRequestSchema(Strict):
    rules = BantingRulesRef()
    currency = fields.String(
        required=True, validate=validate.Length(1, 8), metadata=_meta("IDR", "ISO 4217 code known to CLDR.")
    )
    stake = Money("1000", "Stake per card owed.", required=True)
    table = Id("table-7", "The operator's table.", allow_none=True)
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, 64),
        metadata=_meta(None, "A deal id: the players must be the deal's, in its order."),
    )
    players = fields.List(
        fields.Nested(BantingPlayerSchema),
        required=True,
        validate=validate.Length(2, 4),
        metadata={"description": "2 to 4 players in seat order."},
    )
    turn_seconds = fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(1, 86_400),
        metadata=_meta(
            30,
            "Optional turn timer, 1 to 86,400 seconds; null or absent: untimed. A turn lasts this "
            "long from the previous move (the game's start for the first); a player still in "
            "turn at its deadline is played for: it passes where the rules allow, otherwise "
            "it plays the hint. Such moves are `auto: true` in the history and the round, and "
            "the player's late move is 422 `illegal-move` (turn timed out).",
        ),
    )


class MoveRequestSchema(Strict):
    player = Id("a", "The player moving.", required=True)
    play = Cards(["3d"], "The cards played; omit to pass.", allow_none=True)
    pass_ = StrictBoolean(data_key="pass", metadata=_meta(False, "true to pass instead of playing."))

    @post_load
    def _pass_key(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if "pass_" in data:
            data["pass"] = data.pop("pass_")
        return data


class GamePlayerSchema(Out):
    id = Id("a", required=True)
    seat = fields.Integer(required=True, metadata=_meta(0))
    cards_left = fields.Integer(required=True, metadata=_meta(13))
    passed = fields.Boolean(
        required=True, metadata=_meta(False, "Passed in the current trick (pass_locks turn: since the last play).")
    )


class TablePlaySchema(Out):
    player = Id("a", required=True)
    cards = fields.List(Card(), required=True, metadata=_meta(["3d"]))
    combination = fields.String(required=True, validate=validate.OneOf(COMBINATIONS), metadata=_meta("single"))


class HistoryEntrySchema(Out):
    n = fields.Integer(required=True, metadata=_meta(1, "Move number, from 1."))
    player = Id("a", required=True)
    play = fields.List(Card(), required=True, allow_none=True, metadata=_meta(["3d"], "null for a pass."))
    pass_ = fields.Boolean(required=True, data_key="pass", metadata=_meta(False))
    auto = fields.Boolean(
        metadata=_meta(
            False,
            "true when the service made the move because the player's turn timed out. Always "
            "in a game's state; in a stored round from the turn timers on (older rounds lack it).",
        )
    )
    at = fields.String(
        allow_none=True,
        metadata=_meta(
            "2026-11-29T10:00:12.000Z",
            "When the move was made (an auto move: its turn's deadline); null for moves made "
            "before turn timers, absent from rounds stored before them.",
            format="date-time",
        ),
    )


class HintRequestSchema(Strict):
    player = Id("a", "The player in turn.", required=True)


class HintMoveSchema(Out):
    player = Id("a", required=True)
    play = fields.List(Card(), metadata=_meta(["3d", "4d", "5c", "6h", "7s"], "The cards to play; absent for a pass."))
    pass_ = fields.Boolean(data_key="pass", metadata=_meta(True, "Present (true) for a pass."))


class BantingHandSchema(Out):
    game = fields.String(required=True, metadata=_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    player = Id("a", required=True)
    hand = fields.List(
        Card(),
        required=True,
        metadata=_meta(["3d", "4c", "5d", "5c", "5h", "5s", "6c", "8c", "9d", "Tc", "Qc", "Kd", "Ad"],
                       "The cards the player holds now, lowest first in the game's ranking."),
    )
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES), metadata=_meta(GameStatus.PLAYING.value))
    version = fields.Integer(required=True, metadata=_meta(1, "The game version the hand was read at."))


class HintSchema(Out):
    game = fields.String(required=True, metadata=_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    version = fields.Integer(required=True, metadata=_meta(3, "The game version the hint was made on (If-Match)."))
    move = fields.Nested(
        HintMoveSchema,
        required=True,
        metadata={"description": "A move body, ready to post to the game's moves."},
    )
    combination = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(COMBINATIONS),
        metadata=_meta("straight", "null for a pass."),
    )
    deadline = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(None, "When the player's turn runs out; null when untimed.", format="date-time"),
    )


class GameStateSchema(Out):
    match = fields.String(metadata=_meta("mt_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Only for a game of a match."))
    id = fields.String(required=True, metadata=_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES), metadata=_meta(GameStatus.PLAYING.value))
    version = fields.Integer(required=True, metadata=_meta(1, "Bumped by every move; send it as If-Match."))
    rules = fields.Nested(RulesEchoSchema, required=True)
    currency = fields.String(required=True, metadata=_meta("IDR"))
    stake = Money("1000", required=True)
    table = Id("table-7", required=True, allow_none=True)
    players = fields.List(fields.Nested(GamePlayerSchema), required=True)
    turn = Id("a", "Whose turn; null once finished.", required=True, allow_none=True)
    turn_seconds = fields.Integer(
        required=True, allow_none=True, metadata=_meta(None, "The turn timer; null when untimed.")
    )
    deadline = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(
            None,
            "When the current turn runs out (the last move's time + turn_seconds); null when "
            "untimed or finished.",
            format="date-time",
        ),
    )
    leader = Id("a", "Who led the current trick.", required=True)
    table_play = fields.Nested(TablePlaySchema, required=True, allow_none=True)
    history = fields.List(fields.Nested(HistoryEntrySchema), required=True)
    winner = Id("a", required=True, allow_none=True)
    round = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "The round the finished game became.")
    )


# -- Big Two matches (issue 15) ---------------------------------------------------------------


class MatchRequestSchema(Strict):
    rules = BantingRulesRef()
    currency = fields.String(
        required=True, validate=validate.Length(1, 8), metadata=_meta("IDR", "ISO 4217 code known to CLDR.")
    )
    stake = Money("1000", "Stake per point, for every game of the match.", required=True)
    table = Id("table-7", "The operator's table.", allow_none=True)
    players = fields.List(
        Id("a"),
        required=True,
        validate=validate.Length(2, 4),
        metadata=_meta(["a", "b", "c", "d"], "2 to 4 unique player ids in seat order, for every game."),
    )
    target_points = fields.Integer(
        strict=True,
        validate=validate.Range(1, 10_000),
        metadata=_meta(101, "The match ends once a player's total reaches it (default 101); lowest total wins."),
    )


class MatchGameRequestSchema(Strict):
    players = fields.List(
        fields.Nested(BantingPlayerSchema),
        required=True,
        validate=validate.Length(2, 4),
        metadata={"description": "The match's players, in its order, with their hands (or a deal)."},
    )
    deal = fields.String(
        allow_none=True,
        validate=validate.Length(1, 64),
        metadata=_meta(None, "A deal id: the players must be the deal's, in its order."),
    )


class MatchPlayerSchema(Out):
    id = Id("a", required=True)
    points = fields.Integer(required=True, metadata=_meta(12, "Total over the finished games."))


class MatchGameSchema(Out):
    n = fields.Integer(required=True, metadata=_meta(1, "Game number in the match, from 1."))
    game = fields.String(required=True, metadata=_meta("gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    round = fields.String(required=True, metadata=_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    winner = Id("a", required=True)
    points = fields.Dict(
        keys=fields.String(), values=fields.Integer(), required=True,
        metadata=_meta({"a": 0, "b": 8}, "Each player's points from this game: cards left x multiplier."),
    )
    totals = fields.Dict(
        keys=fields.String(), values=fields.Integer(), required=True,
        metadata=_meta({"a": 0, "b": 8}, "The standings after this game."),
    )


class MatchSchema(Out):
    id = fields.String(required=True, metadata=_meta("mt_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES), metadata=_meta(GameStatus.PLAYING.value))
    version = fields.Integer(required=True, metadata=_meta(1, "Bumped by every game started or finished."))
    rules = fields.Nested(RulesEchoSchema, required=True)
    currency = fields.String(required=True, metadata=_meta("IDR"))
    stake = Money("1000", required=True)
    table = Id("table-7", required=True, allow_none=True)
    target_points = fields.Integer(required=True, metadata=_meta(101))
    players = fields.List(fields.Nested(MatchPlayerSchema), required=True)
    games = fields.List(fields.Nested(MatchGameSchema), required=True, metadata={"description": "Finished games."})
    current_game = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "The game being played, if any.")
    )
    next_leader = Id(
        "a", "Who leads the next game (first_lead previous_winner); null: the lowest card.",
        required=True, allow_none=True,
    )
    winners = fields.List(
        Id("a"), required=True, metadata=_meta([], "Once finished: the players with the lowest total.")
    )


# -- lists of deals and Big Two games --------------------------------------------------------


class _PageQuery(Schema):
    class Meta:
        unknown = RAISE  # a misspelt filter is a 422, not a silently unfiltered list
        ordered = True

    cursor = fields.String(
        validate=validate.Length(1, 512),
        metadata=_meta("WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0", "Opaque: `next_cursor` of the previous page."),
    )


class DealQuerySchema(_PageQuery):
    status = fields.String(validate=validate.OneOf(DEAL_STATUSES), metadata=_meta("open", "Only deals in this status."))
    limit = QueryInteger(load_default=50, validate=validate.Range(1, 500), metadata=_meta(50, "Page size, 1-500."))


class DealListSchema(Out):
    items = fields.List(fields.Nested(DealSchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "Pass as `cursor` for the next page; null on the last.")
    )


class GameQuerySchema(_PageQuery):
    status = fields.String(
        validate=validate.OneOf(GAME_STATUSES), metadata=_meta(GameStatus.PLAYING.value, "Only games in this status.")
    )
    table = Id("table-7", "Only games at this table.")
    limit = QueryInteger(
        load_default=20,
        validate=validate.Range(1, 100),
        metadata=_meta(20, "Page size, 1-100 (each game's state is replayed from its moves)."),
    )


class GameListSchema(Out):
    items = fields.List(fields.Nested(GameStateSchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "Pass as `cursor` for the next page; null on the last.")
    )
