"""The audit trail: voids, re-verification, the chain's records, its signed head, the signing
keys, the export."""

from __future__ import annotations

from marshmallow import fields, validate

from service.domain.audit import GENESIS_HASH, MAX_SEQUENCE
from service.domain.signing import ALGORITHM
from service.services.audit import chains, receipts
from service.services.rounds.voids import MAX_REASON

from ..fields import LEGIBLE, QueryInteger, Readable, openapi_meta
from .bases import Out, Query, Strict, as_of_field, min_sequence_field

HASH = "3f6c0e1b9a7d4c2e8b5a1f0d9c8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c"
KID = "21fe31dfa154a261"  # the examples' key: RFC 8032's first test vector (docs/audit.md)
SIGNATURE = "JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw"


class VoidRequestSchema(Strict):
    reason = fields.String(
        required=True,
        validate=[
            validate.Length(1, MAX_REASON),
            Readable("must say why"),
        ],
        metadata=openapi_meta(
            "dealer error", f"Why the round is void: 1-{MAX_REASON} characters, not only whitespace or characters that show nothing (U+200B, U+00AD, ...), {LEGIBLE}."
        ),
    )


class DifferenceSchema(Out):
    field = fields.String(
        required=True, metadata=openapi_meta(
            "players[0].points",
            "Path into the round's result, or what else differs: `audit.hash`, `record.engine_version`, "
            "`round.` and `ledger_lines[n].` (the live rows), `request.deal` and `deal.` (its deal), "
            "and for a voided round its void's own, prefixed `void.`.",
        )
    )
    stored = fields.Raw(required=True, allow_none=True, metadata=openapi_meta(11, "What is stored."))
    recomputed = fields.Raw(
        required=True, allow_none=True, metadata=openapi_meta(12, "What today's engine / the live rows give.")
    )
    absent = fields.String(
        validate=validate.OneOf(["stored", "recomputed"]),
        metadata=openapi_meta(
            "recomputed",
            "Only where one side lacks the key `field` names: that side (`stored` or `recomputed`), "
            "whose value is then given as null.",
        ),
    )


class RoundVerifySchema(Out):
    ok = fields.Boolean(required=True, metadata=openapi_meta(True, "No differences."))
    differences = fields.List(
        fields.Nested(DifferenceSchema),
        required=True,
        metadata=openapi_meta([], "Each field where the stored round and the recomputation differ."),
    )


class ChainVerifyQuerySchema(Query):
    from_sequence = QueryInteger(
        load_default=1,
        validate=validate.Range(1, MAX_SEQUENCE),
        metadata=openapi_meta(1, "First sequence to check (default 1)."),
    )
    limit = QueryInteger(
        load_default=chains.DEFAULT_LIMIT,
        validate=validate.Range(1, chains.MAX_LIMIT),
        metadata=openapi_meta(
            chains.DEFAULT_LIMIT,
            f"Records to check in this request, 1-{chains.MAX_LIMIT:,} (default {chains.DEFAULT_LIMIT:,}). "
            "A request checks at most "
            "this many records and says in `next_from_sequence` where to continue.",
        ),
    )
    min_sequence = min_sequence_field()


class ChainVerifySchema(Out):
    ok = fields.Boolean(required=True, metadata=openapi_meta(True))
    records_checked = fields.Integer(required=True, metadata=openapi_meta(42))
    first_bad_sequence = fields.Integer(required=True, allow_none=True, metadata=openapi_meta(None))
    reason = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(None, "Why the first bad record is bad (missing, hash, rows changed)."),
    )
    next_from_sequence = fields.Integer(
        required=True,
        allow_none=True,
        metadata=openapi_meta(
            None,
            "Where to continue (pass it as `from_sequence`) while records remain after the ones "
            "checked; null once the checked run reached the chain's head.",
        ),
    )
    as_of = as_of_field()


class AuditRecordSchema(Out):
    sequence = fields.Integer(required=True, metadata=openapi_meta(1))
    hash = fields.String(required=True, metadata=openapi_meta(HASH))
    previous_hash = fields.String(required=True, metadata=openapi_meta(GENESIS_HASH))
    canonical = fields.String(
        required=True,
        metadata=openapi_meta(
            '{"created_at":"2026-11-29T10:00:00.000Z","kind":"round","round":"rnd_x","sequence":1}',
            "The RFC 8785 canonical JSON exactly as hashed.",
        ),
    )
    kid = fields.String(required=True, allow_none=True, metadata=openapi_meta(KID, "The receipt's key; null while unsigned."))
    signature = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(SIGNATURE, "The record's receipt (see the round document's `audit.signature`)."),
    )


class AuditHeadSchema(Out):
    client_id = fields.String(
        required=True, metadata=openapi_meta("cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "This client's id, as receipts sign it.")
    )
    sequence = fields.Integer(required=True, metadata=openapi_meta(42, "0 before the first record."))
    hash = fields.String(required=True, metadata=openapi_meta(HASH))
    created_at = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta("2026-11-29T10:00:00.000Z", "When the last record was made; null when none.", format="date-time"),
    )
    signed_at = fields.String(
        required=True,
        metadata=openapi_meta("2026-11-29T10:00:05.123Z", "When the service signed this head.", format="date-time"),
    )
    kid = fields.String(required=True, allow_none=True, metadata=openapi_meta(KID, "The key that signed; null without one."))
    signature = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(
            SIGNATURE,
            "Ed25519 signature (unpadded base64url) over the UTF-8 bytes "
            "`capsa-head-v1\\n{client_id}\\n{sequence}\\n{hash}\\n{signed_at}\\n`. Keep it: two signed "
            "heads that cannot lie on one chain prove a fork (`capsa audit verify-file --head`).",
        ),
    )


class SigningKeySchema(Out):
    kid = fields.String(required=True, metadata=openapi_meta(KID, "First 16 hex digits of SHA-256 over the raw public key."))
    algorithm = fields.String(required=True, validate=validate.OneOf([ALGORITHM]), metadata=openapi_meta(ALGORITHM))
    public_key = fields.String(
        required=True, metadata=openapi_meta("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "32 raw bytes, unpadded base64url.")
    )
    created_at = fields.String(required=True, metadata=openapi_meta("2026-12-01T09:00:00.000Z", format="date-time"))
    retired_at = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(None, "When a newer key took over; its signatures keep verifying.", format="date-time"),
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
        validate=validate.Range(1, MAX_SEQUENCE),
        metadata=openapi_meta(1, "First sequence to export (default 1)."),
    )
    limit = QueryInteger(
        load_default=receipts.EXPORT_DEFAULT_LIMIT,
        validate=validate.Range(1, receipts.EXPORT_MAX_LIMIT),
        metadata=openapi_meta(
            receipts.EXPORT_DEFAULT_LIMIT,
            f"Records in this answer, 1-{receipts.EXPORT_MAX_LIMIT:,} (default {receipts.EXPORT_DEFAULT_LIMIT:,}). "
            "When the chain goes on past them, the "
            "`Capsa-Next-From-Sequence` header (and `Link: rel=\"next\"`) say where to continue.",
        ),
    )
    min_sequence = min_sequence_field()
