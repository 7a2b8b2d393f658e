"""`/healthz` and `/readyz` (no key)."""

from __future__ import annotations

from marshmallow import fields, validate

from service.services.readiness import ReplicaStatus, Replication

from ..fields import openapi_meta
from .bases import Out


class HealthSchema(Out):
    status = fields.String(required=True, metadata=openapi_meta("ok"))


class ReplicaReadySchema(Out):
    status = fields.String(
        required=True,
        validate=validate.OneOf([s.value for s in ReplicaStatus]),
        metadata=openapi_meta(
            "ok",
            "`ok`: it serves the reports; `lagging` (past READ_MAX_LAG_S) or `unavailable`: the "
            "primary serves them; `primary`: the URL found a server not in recovery, which serves.",
        ),
    )
    lag_seconds = fields.Float(
        required=True, allow_none=True, metadata=openapi_meta(0.2, "How far behind the primary; null when unknown.")
    )


class ReadySchema(Out):
    status = fields.String(required=True, metadata=openapi_meta("ok"))
    database = fields.String(required=True, metadata=openapi_meta("ok"))
    replication = fields.Enum(
        Replication,
        by_value=True,
        metadata=openapi_meta(
            "synchronous",
            "PostgreSQL only: `synchronous` (a standby acknowledges every commit), `waiting` (a "
            "synchronous standby is named but not streaming: writes answer 503 at the write "
            "deadline), `asynchronous` (degraded: one node, e.g. pg_auto_failover's wait_primary) "
            "or `unknown` (the role cannot read pg_stat_replication: grant it pg_monitor).",
        ),
    )
    standbys = fields.Integer(metadata=openapi_meta(1, "PostgreSQL only: streaming standbys of this primary."))
    replica = fields.Nested(
        ReplicaReadySchema,
        metadata={"description": "With READ_DATABASE_URL only: the reports' standby. Its state never fails readiness."},
    )
