"""The audit trail: void a round, re-verify a round or the chain, read records, the signed
head, the signing keys, and export the chain as NDJSON."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.services.audit import chains as audit
from service.services.audit import receipts
from service.services.reporting import AS_OF_HEADER, as_of_header
from service.services.rounds import store as rounds
from service.services.rounds import voids

from ..auth import allow_read, require_write
from ..headers import parse_key
from ..heavy_reads import heavy
from ..schemas.audit import (
    AuditHeadSchema,
    AuditRecordSchema,
    ChainVerifyQuerySchema,
    ChainVerifySchema,
    ExportQuerySchema,
    RoundVerifySchema,
    SigningKeysSchema,
    VoidRequestSchema,
)
from ..schemas.rounds import RoundDocumentSchema
from ..state import db, principal
from . import AS_OF, AUTH, BODY, STATE_HEADERS, Blueprint, json_response, send_stored
from .rounds import IDEMPOTENCY_KEY

blp = Blueprint(
    "audit",
    __name__,
    url_prefix="/v1",
    description="Voids, re-verification and the per-client hash chain (docs/api.md#voids, #verification).",
)


@blp.route("/rounds/<string:round_id>/void")
class RoundVoid(MethodView):
    @blp.doc(parameters=[IDEMPOTENCY_KEY])
    @allow_read  # the scope is checked once the round is found (require_write)
    @blp.arguments(VoidRequestSchema, example={"reason": "dealer error"})
    @blp.response(200, RoundDocumentSchema, headers={"Idempotent-Replayed": STATE_HEADERS["Idempotent-Replayed"]})
    @blp.problems(*BODY, 404, 409, 422)
    def post(self, body: dict[str, Any], round_id: str) -> Response:
        """Void a round: a new chained record with reversing lines; voiding twice is 409.

        The void of a Big Two match's game also takes that game out of the match's standings
        (its entry marked `void`, the match's version bumped), in the same transaction."""
        rounds.get_stored(db(), principal().client_id, round_id)  # another client's round: 404, any key
        require_write()
        key = parse_key(request.headers.get("Idempotency-Key"))
        return send_stored(voids.void(db(), principal().client_id, round_id, body["reason"], key))


@blp.route("/rounds/<string:round_id>/verify")
class RoundVerify(MethodView):
    @blp.response(200, RoundVerifySchema)
    @blp.problems(*AUTH, 404)
    def get(self, round_id: str) -> Response:
        """Re-score the stored request with today's engine and recompute the record's hash (and its
        void's, for a voided round: fields prefixed `void.`)."""
        return json_response(audit.verify_round(db(), principal().client_id, round_id))


@blp.route("/audit/verify")
class ChainVerify(MethodView):
    @blp.arguments(ChainVerifyQuerySchema, location="query")
    @blp.response(200, ChainVerifySchema)
    @blp.problems(*AUTH, 422)
    @heavy
    def get(self, query: dict[str, Any]) -> Response:
        """Rebuild each record from the live rows and check it against the stored chain."""
        report = audit.verify_chain_report(
            db(),
            principal().client_id,
            query["from_sequence"],
            query.get("limit", audit.DEFAULT_LIMIT),
            query.get("min_sequence"),
        )
        return json_response(report.to_json())


@blp.route("/audit/records/<int:sequence>")
class ChainRecord(MethodView):
    @blp.response(200, AuditRecordSchema)
    @blp.problems(*AUTH, 404)
    def get(self, sequence: int) -> Response:
        """One record of this client's chain with the canonical JSON that was hashed."""
        return json_response(audit.record_at(db(), principal().client_id, sequence))


@blp.route("/audit/head")
class ChainHead(MethodView):
    @blp.response(200, AuditHeadSchema)
    @blp.problems(*AUTH, 409)
    def get(self) -> Response:
        """The last record of this client's chain, signed now: keep it to compare later.
        409 `conflict` when the stored head does not name the last record, whose bytes hash
        to it: no such head is signed (verify the chain).

        Two signed heads that cannot lie on one chain (the same sequence with different
        hashes, or a later head whose chain does not pass through the earlier one) prove
        the chain was forked or rewritten; `capsa audit verify-file --head` checks that."""
        return json_response(audit.head(db(), principal().client_id))


@blp.route("/audit/keys")
class SigningKeys(MethodView):
    @blp.response(200, SigningKeysSchema)
    @blp.problems(*AUTH)
    def get(self) -> Response:
        """The public keys that sign receipts and heads, retired ones included."""
        return json_response(receipts.keys(db()))


NDJSON = "application/x-ndjson"
EXPORT_EXAMPLE = (
    '{"format":"capsa-export-v1","client_id":"cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ","sequence":1,"kind":"round",'
    '"round":"rnd_x","previous_hash":"0000000000000000000000000000000000000000000000000000000000000000",'
    '"hash":"394bfd0230762dbdc4b71f53874e03eea5b500f98ce3232ee15a531a5c5f1d0c","kid":"21fe31dfa154a261",'
    '"signature":"JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw",'
    '"record":{"created_at":"2026-11-29T10:00:00.000Z","kind":"round","round":"rnd_x","sequence":1}}\n'
)


_INTEGER = {"type": "integer"}
EXPORT_HEADERS = {
    "Capsa-Head-Sequence": {"description": "The chain head the answer was cut at.", "schema": _INTEGER},
    "Capsa-Next-From-Sequence": {
        "description": "When the chain goes on past this answer: `from_sequence` of the next one.", "schema": _INTEGER,
    },
    "Link": {"description": 'With Capsa-Next-From-Sequence: `</v1/audit/export?...>; rel="next"`.',
             "schema": {"type": "string"}},
    "Capsa-As-Of": AS_OF,
}


@blp.route("/audit/export")
class ChainExport(MethodView):
    @blp.arguments(ExportQuerySchema, location="query")
    @blp.response(
        200,
        {"type": "string", "format": "binary"},  # NDJSON bytes: the Python client hands over a File
        content_type=NDJSON,
        description="One record a line (docs/audit.md, \"The export\"). `Capsa-Next-From-Sequence` "
        "(and a `Link` with `rel=\"next\"`) is set when the chain goes on past this answer; "
        "`Capsa-Head-Sequence` is the head the answer was cut at; `Capsa-As-Of` "
        "(`sequence=N; at=...; source=replica|primary`) says how far the snapshot reached.",
        example=EXPORT_EXAMPLE,
        headers=EXPORT_HEADERS,
    )
    @blp.problems(*AUTH, 422)
    @heavy
    def get(self, query: dict[str, Any]) -> Response:
        """The chain's records as NDJSON, streamed: hashed bytes, hashes, receipts.

        At most `limit` records (50,000) and 256 MiB an answer, read in pages of 1,000, so
        memory stays bounded, a request ends well within a worker's timeout and the answer
        fits whole in the buffer nginx keeps for a slow reader."""
        client_id = principal().client_id
        plan = receipts.plan_export(
            db(), client_id, query["from_sequence"], query["limit"], query.get("min_sequence"),
            max_bytes=receipts.EXPORT_MAX_BYTES,
        )
        response = Response(receipts.export_lines(db(), plan), content_type=NDJSON)
        response.headers["Capsa-Head-Sequence"] = str(plan.head)
        if plan.as_of is not None:
            response.headers[AS_OF_HEADER] = as_of_header(plan.as_of)
        if plan.next_from_sequence is not None:
            response.headers["Capsa-Next-From-Sequence"] = str(plan.next_from_sequence)
            response.headers["Link"] = (
                f'</v1/audit/export?from_sequence={plan.next_from_sequence}&limit={query["limit"]}>; rel="next"'
            )
        return response
