"""Service routes without a key: health and readiness (metrics are on METRICS_BIND)."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from service.adapters.errors import DatabaseUnavailable
from service.services import readiness

from ..problems import problem_response
from ..schemas import HealthSchema, ReadySchema
from ..state import db, state
from . import Blueprint, json_response

blp = Blueprint("service", __name__, description="Health and readiness (no key).")

NO_AUTH: list[dict[str, list[str]]] = []


@blp.route("/healthz")
class Health(MethodView):
    @blp.doc(security=NO_AUTH)
    @blp.response(200, HealthSchema)
    def get(self) -> Response:
        """Liveness: answers without touching the database."""
        return json_response({"status": "ok"})


@blp.route("/readyz")
class Ready(MethodView):
    @blp.doc(security=NO_AUTH)
    @blp.response(200, ReadySchema)
    @blp.problems(503)
    def get(self) -> Response:
        """Readiness: 200 when the database takes writes with the expected timeouts, 503
        otherwise; on PostgreSQL, also what a commit waits for (`replication`)."""
        try:
            found = readiness.check(db())
        except DatabaseUnavailable:
            return problem_response(
                503, "unavailable", "the database does not answer", headers={"Retry-After": "5"}
            )
        if found.replication is not None:
            state().metrics.database_state(found.replication, found.standbys or 0)
        if found.refusals:
            return problem_response(503, "unavailable", "; ".join(found.refusals), headers={"Retry-After": "5"})
        answer: dict[str, object] = {"status": "ok", "database": "ok"}
        if found.replication is not None:
            answer.update(replication=str(found.replication), standbys=found.standbys)
        return json_response(answer)
