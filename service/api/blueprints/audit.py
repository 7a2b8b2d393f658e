"""The audit trail: void a round, re-verify a round or the chain, read records and the head."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView

from service.services import audit, rounds
from service.services.idempotency import parse_key

from ..audit_schemas import (
    AuditHeadSchema,
    AuditRecordSchema,
    ChainVerifyQuerySchema,
    ChainVerifySchema,
    RoundVerifySchema,
    VoidRequestSchema,
)
from ..auth import allow_read, require_write
from ..schemas import RoundDocumentSchema
from ..state import db, principal
from . import AUTH, BODY, Blueprint, json_response, send_stored
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
    @blp.response(200, RoundDocumentSchema)
    @blp.problems(*BODY, 404, 409, 422)
    def post(self, body: dict[str, Any], round_id: str) -> Response:
        """Void a round: a new chained record with reversing lines; voiding twice is 409."""
        rounds.get_stored(db(), principal().client_id, round_id)  # another client's round: 404, any key
        require_write()
        key = parse_key(request.headers.get("Idempotency-Key"))
        return send_stored(audit.void(db(), principal().client_id, round_id, body["reason"], key))


@blp.route("/rounds/<string:round_id>/verify")
class RoundVerify(MethodView):
    @blp.response(200, RoundVerifySchema)
    @blp.problems(*AUTH, 404)
    def get(self, round_id: str) -> Response:
        """Re-score the stored request with today's engine and recompute the record's hash."""
        return json_response(audit.verify_round(db(), principal().client_id, round_id))


@blp.route("/audit/verify")
class ChainVerify(MethodView):
    @blp.arguments(ChainVerifyQuerySchema, location="query")
    @blp.response(200, ChainVerifySchema)
    @blp.problems(*AUTH, 422)
    def get(self, query: dict[str, Any]) -> Response:
        """Rebuild each record from the live rows and check it against the stored chain."""
        report = audit.verify_chain(
            db(), principal().client_id, query["from_sequence"], query.get("limit", audit.DEFAULT_LIMIT)
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
    @blp.problems(*AUTH)
    def get(self) -> Response:
        """The last record of this client's chain, for auditors to keep and compare later."""
        return json_response(audit.head(db(), principal().client_id))
