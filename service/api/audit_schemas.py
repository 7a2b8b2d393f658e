"""Schemas of the audit trail, voids, verification, ledgers and round view links."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields, validate

from service.domain.audit import GENESIS_HASH

from .fields import Id, QueryInteger, SignedMoney, Since, Until, _meta
from .schemas import Out, Strict

HASH = "3f6c0e1b9a7d4c2e8b5a1f0d9c8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c"
KID = "21fe31dfa154a261"  # the examples' key: RFC 8032's first test vector (docs/audit.md)
SIGNATURE = "JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw"

COUNTING = """\
How a period is counted: a report sums the ledger lines *dated* in [since, until). A
round's lines are dated at the round's `created_at`; a void's reversal lines at the void.
So a round voided in a later period still counts in its own period and its reversal in the
later one; over all time a voided round nets to zero.

- `rounds`: +1 per settlement line (a player's part in a round), -1 per reversal of one.
- `points`: the player's points on each settlement line, negated on its reversal.
- `result`: the sum of settlement lines and their reversals.
- `winnings`: the player's winnings (sum of its positive pair amounts) on each
  settlement line, negated on its reversal.
- `fees`: the fees the player paid (fee lines, negated to a positive figure), less
  their reversals.
- `net`: the sum of every line of the player's account: `result - fees`.
"""


class Query(Schema):
    class Meta:
        unknown = EXCLUDE  # names the route does not take are refused before (queryguard)
        ordered = True


def _tz() -> fields.String:
    return fields.String(
        load_default="UTC",
        validate=validate.Length(1, 64),
        metadata=_meta(
            "Asia/Jakarta",
            "IANA time zone (zoneinfo) in which date-only `since`/`until` are read and, for "
            "`group_by=day`, days are cut; default UTC.",
        ),
    )


def _currency(**kw: object) -> fields.String:
    return fields.String(
        validate=validate.Length(1, 8),
        metadata=_meta("IDR", "ISO 4217 code; only lines in this currency are summed."),
        **kw,  # type: ignore[arg-type]
    )


def _min_sequence() -> QueryInteger:
    return QueryInteger(
        validate=validate.Range(1, 2**62),
        metadata=_meta(
            42,
            "The chain sequence the answer must reach (a reader that just stored a round): a "
            "standby behind it is waited for briefly (up to 1 s), then the primary answers.",
        ),
    )


class AsOfSchema(Out):
    sequence = fields.Integer(
        required=True,
        metadata=_meta(42, "The client's chain head in the report's snapshot: every record up to it is in."),
    )
    at = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(
            "2026-11-29T10:00:00.000Z", "When that record was stored; null for an empty chain.", format="date-time"
        ),
    )
    source = fields.String(
        required=True,
        validate=validate.OneOf(["replica", "primary"]),
        metadata=_meta("replica", "`replica` (READ_DATABASE_URL's standby) or `primary`."),
    )


def _as_of() -> fields.Nested:
    return fields.Nested(
        AsOfSchema,
        required=True,
        metadata={
            "description": "How far the answer reaches; a cursor keeps its first page's, so later pages see no more."
        },
    )


# -- voids and verification ------------------------------------------------------------------


class VoidRequestSchema(Strict):
    reason = fields.String(
        required=True,
        validate=validate.Length(1, 500),
        metadata=_meta("dealer error", "Why the round is void (1-500 characters)."),
    )


class DifferenceSchema(Out):
    field = fields.String(
        required=True, metadata=_meta("players[0].points", "Path into the round document, or `audit.hash`.")
    )
    stored = fields.Raw(required=True, allow_none=True, metadata=_meta(11, "What is stored."))
    recomputed = fields.Raw(
        required=True, allow_none=True, metadata=_meta(12, "What today's engine / the live rows give.")
    )


class RoundVerifySchema(Out):
    ok = fields.Boolean(required=True, metadata=_meta(True, "No differences."))
    differences = fields.List(
        fields.Nested(DifferenceSchema),
        required=True,
        metadata=_meta([], "Each field where the stored round and the recomputation differ."),
    )


class ChainVerifyQuerySchema(Query):
    from_sequence = QueryInteger(
        load_default=1,
        validate=validate.Range(1, 2**62),
        metadata=_meta(1, "First sequence to check (default 1)."),
    )
    limit = QueryInteger(
        load_default=10_000,
        validate=validate.Range(1, 100_000),
        metadata=_meta(
            10_000,
            "Records to check in this request, 1-100,000 (default 10,000). A request checks at most "
            "this many records and says in `next_from_sequence` where to continue.",
        ),
    )
    min_sequence = _min_sequence()


class ChainVerifySchema(Out):
    ok = fields.Boolean(required=True, metadata=_meta(True))
    records_checked = fields.Integer(required=True, metadata=_meta(42))
    first_bad_sequence = fields.Integer(required=True, allow_none=True, metadata=_meta(None))
    reason = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(None, "Why the first bad record is bad (missing, hash, rows changed)."),
    )
    next_from_sequence = fields.Integer(
        required=True,
        allow_none=True,
        metadata=_meta(
            None,
            "Where to continue (pass it as `from_sequence`) while records remain after the ones "
            "checked; null once the checked run reached the chain's head.",
        ),
    )
    as_of = _as_of()


class AuditRecordSchema(Out):
    sequence = fields.Integer(required=True, metadata=_meta(1))
    hash = fields.String(required=True, metadata=_meta(HASH))
    previous_hash = fields.String(required=True, metadata=_meta(GENESIS_HASH))
    canonical = fields.String(
        required=True,
        metadata=_meta(
            '{"created_at":"2026-11-29T10:00:00.000Z","kind":"round","round":"rnd_x","sequence":1}',
            "The RFC 8785 canonical JSON exactly as hashed.",
        ),
    )
    kid = fields.String(required=True, allow_none=True, metadata=_meta(KID, "The receipt's key; null while unsigned."))
    signature = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(SIGNATURE, "The record's receipt (see the round document's `audit.signature`)."),
    )


class AuditHeadSchema(Out):
    client_id = fields.String(
        required=True, metadata=_meta("cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "This client's id, as receipts sign it.")
    )
    sequence = fields.Integer(required=True, metadata=_meta(42, "0 before the first record."))
    hash = fields.String(required=True, metadata=_meta(HASH))
    created_at = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta("2026-11-29T10:00:00.000Z", "When the last record was made; null when none.", format="date-time"),
    )
    signed_at = fields.String(
        required=True,
        metadata=_meta("2026-11-29T10:00:05.123Z", "When the service signed this head.", format="date-time"),
    )
    kid = fields.String(required=True, allow_none=True, metadata=_meta(KID, "The key that signed; null without one."))
    signature = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(
            SIGNATURE,
            "Ed25519 signature (unpadded base64url) over the UTF-8 bytes "
            "`capsa-head-v1\\n{client_id}\\n{sequence}\\n{hash}\\n{signed_at}\\n`. Keep it: two signed "
            "heads that cannot lie on one chain prove a fork (`capsa audit verify-file --head`).",
        ),
    )


class SigningKeySchema(Out):
    kid = fields.String(required=True, metadata=_meta(KID, "First 16 hex digits of SHA-256 over the raw public key."))
    algorithm = fields.String(required=True, validate=validate.OneOf(["Ed25519"]), metadata=_meta("Ed25519"))
    public_key = fields.String(
        required=True, metadata=_meta("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "32 raw bytes, unpadded base64url.")
    )
    created_at = fields.String(required=True, metadata=_meta("2026-12-01T09:00:00.000Z", format="date-time"))
    retired_at = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta(None, "When a newer key took over; its signatures keep verifying.", format="date-time"),
    )


class SigningKeysSchema(Out):
    keys = fields.List(
        fields.Nested(SigningKeySchema),
        required=True,
        metadata={"description": "Every key that signed or signs receipts and heads, oldest first."},
    )


class ExportQuerySchema(Query):
    from_sequence = QueryInteger(
        load_default=1,
        validate=validate.Range(1, 2**62),
        metadata=_meta(1, "First sequence to export (default 1)."),
    )
    limit = QueryInteger(
        load_default=10_000,
        validate=validate.Range(1, 50_000),
        metadata=_meta(
            10_000,
            "Records in this answer, 1-50,000 (default 10,000). When the chain goes on past them, the "
            "`Capsa-Next-From-Sequence` header (and `Link: rel=\"next\"`) say where to continue.",
        ),
    )
    min_sequence = _min_sequence()


# -- ledgers ---------------------------------------------------------------------------------


class LedgerQuerySchema(Query):
    currency = _currency(required=True)
    since = Since(dates=True)
    until = Until(dates=True)
    tz = _tz()
    min_sequence = _min_sequence()


class PlayerLedgerSchema(Out):
    player = fields.String(required=True, metadata=_meta("a", "The player id as asked."))
    currency = fields.String(required=True, metadata=_meta("IDR"))
    rounds = fields.Integer(required=True, metadata=_meta(3, "Rounds played, less reversals."))
    points = fields.Integer(required=True, metadata=_meta(11))
    result = SignedMoney("11000", required=True)
    winnings = SignedMoney("11000", required=True)
    fees = SignedMoney("330", required=True)
    net = SignedMoney("10670", required=True)
    as_of = _as_of()


class SummaryQuerySchema(LedgerQuerySchema):
    group_by = fields.String(
        load_default="player",
        validate=validate.OneOf(["player", "table", "day"]),
        metadata=_meta("player", "`player`, `table` or `day` (dates in `tz`, UTC unless given); default `player`."),
    )


class SummaryRowSchema(Out):
    key = fields.String(
        required=True,
        allow_none=True,
        metadata=_meta("a", "The player id, the table (null: rounds without one) or the day in `tz`."),
    )
    rounds = fields.Integer(
        required=True,
        metadata=_meta(
            3,
            "By player: the player's rounds. By table or day: rounds booked (a reversal counts -1).",
        ),
    )
    result = SignedMoney("11000", required=True)
    fees = SignedMoney("330", required=True)
    net = SignedMoney("10670", required=True)


class SummarySchema(Out):
    currency = fields.String(required=True, metadata=_meta("IDR"))
    rows = fields.List(
        fields.Nested(SummaryRowSchema),
        required=True,
        metadata={"description": "Players' lines per group, ordered by key."},
    )
    house_fee = SignedMoney("330", required=True)
    as_of = _as_of()


class EntriesQuerySchema(LedgerQuerySchema):
    player = Id("a", "Only this player's lines.")
    round = fields.String(
        validate=validate.Length(1, 40), metadata=_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Only this round's lines.")
    )
    limit = QueryInteger(
        load_default=50, validate=validate.Range(1, 500), metadata=_meta(50, "Page size, 1-500 (JSON only).")
    )
    cursor = fields.String(
        validate=validate.Length(1, 512),
        metadata=_meta(
            "WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0",
            "Opaque: `next_cursor` of the previous page (JSON), or the URL a CSV answer's `Link` names.",
        ),
    )


class EntrySchema(Out):
    round = fields.String(required=True, metadata=_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    sequence = fields.Integer(required=True, metadata=_meta(42, "The chain record that booked the line."))
    created_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    account = fields.String(required=True, metadata=_meta("player:a", "`player:<id>` or `house`."))
    kind = fields.String(
        required=True, validate=validate.OneOf(["settlement", "fee", "reversal"]), metadata=_meta("settlement")
    )
    amount = SignedMoney("11000", required=True)
    currency = fields.String(required=True, metadata=_meta("IDR"))


class EntryListSchema(Out):
    items = fields.List(fields.Nested(EntrySchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "Pass as `cursor` for the next page; null on the last.")
    )
    as_of = _as_of()


class StatementQuerySchema(LedgerQuerySchema):
    limit = QueryInteger(
        load_default=100, validate=validate.Range(1, 500), metadata=_meta(100, "Lines per page, 1-500 (JSON only).")
    )
    cursor = fields.String(
        validate=validate.Length(1, 512),
        metadata=_meta(
            "WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0",
            "Opaque: `next_cursor` of the previous page (JSON), or the URL a CSV answer's `Link` names.",
        ),
    )


class StatementLineSchema(Out):
    created_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    round = fields.String(required=True, metadata=_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    sequence = fields.Integer(required=True, metadata=_meta(42, "The chain record that booked the line."))
    kind = fields.String(
        required=True, validate=validate.OneOf(["settlement", "fee", "reversal"]), metadata=_meta("settlement")
    )
    amount = SignedMoney("11000", required=True)
    balance = SignedMoney("21000", required=True, metadata=_meta("21000", "The account's balance after this line."))


class StatementSchema(Out):
    player = fields.String(required=True, metadata=_meta("a"))
    account = fields.String(required=True, metadata=_meta("player:a"))
    currency = fields.String(required=True, metadata=_meta("IDR"))
    tz = fields.String(required=True, metadata=_meta("Asia/Jakarta", "The zone dates were read in."))
    since = fields.String(
        required=True, allow_none=True, metadata=_meta("2026-11-28T17:00:00.000Z", "The period's start in UTC.")
    )
    until = fields.String(
        required=True, allow_none=True, metadata=_meta("2026-11-29T17:00:00.000Z", "The period's end in UTC.")
    )
    opening_balance = SignedMoney(
        "10000", required=True, metadata=_meta("10000", "The sum of every line of the account dated before `since`.")
    )
    closing_balance = SignedMoney(
        "21000", required=True, metadata=_meta("21000", "The opening balance plus every line of the period.")
    )
    lines = fields.List(
        fields.Nested(StatementLineSchema), required=True, metadata={"description": "The period's lines, oldest first."}
    )
    next_cursor = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "Pass as `cursor` for the next page; null on the last.")
    )
    as_of = _as_of()


class ViewLinkSchema(Out):
    url = fields.String(required=True, metadata=_meta("/view/rounds/WyJjbGlfMDEiLCJybmRfMDEiXQ.Z2x1.c2ln"))
    expires_at = fields.String(required=True, metadata=_meta("2026-11-29T11:00:00.000Z", format="date-time"))
