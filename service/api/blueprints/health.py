"""Service routes without a key: health and readiness (metrics are on METRICS_BIND)."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from ..problems import problem_response
from ..schemas.health import HealthSchema, ReadySchema
from ..state import db, state
from . import Blueprint, json_response

blp = Blueprint("service", __name__, description="Health and readiness (no key).")

NO_AUTH: list[dict[str, list[str]]] = []


@blp.route("/healthz")
class Health(MethodView):
    @blp.doc(security=NO_AUTH)
    @blp.response(200, HealthSchema)
    @blp.problems(406, 422)  # an Accept it cannot answer; a query parameter it does not take
    def get(self) -> Response:
        """Liveness: answers without touching the database."""
        return json_response({"status": "ok"})


@blp.route("/readyz")
class Ready(MethodView):
    @blp.doc(security=NO_AUTH)
    @blp.response(200, ReadySchema)
    @blp.problems(406, 422, 503)
    def get(self) -> Response:
        """Readiness: 200 when the database takes writes with the expected timeouts, 503
        otherwise; on PostgreSQL, also what a commit waits for (`replication`).

        With READ_DATABASE_URL, `replica` says whether the reports' standby serves and how
        far behind it is (probed with the check); a lagging or absent standby leaves readiness to the
        primary, which then serves the reports.

        A process answers with what it found for up to READY_CACHE_S (1 s) after it looked:
        the route is never rate limited, and a flood of it checks once a second a process."""
        seen, fresh = state().ready.seen(db())
        found = seen.readiness
        if found is None:
            return problem_response(
                503, "unavailable", "the database does not answer", headers={"Retry-After": "5"}
            )
        if fresh and found.replication is not None:
            state().metrics.database_state(found.replication, found.standbys or 0)
        if found.refusals:
            return problem_response(
                503, "unavailable", "; ".join(found.refusals), headers={"Retry-After": "5"}
            )
        answer: dict[str, Any] = {"status": "ok", "database": "ok"}
        if found.replication is not None:
            answer.update(replication=str(found.replication), standbys=found.standbys)
        if seen.replica is not None:
            answer["replica"] = {"status": seen.replica.status.value, "lag_seconds": seen.replica.lag_seconds}
        return json_response(answer)
