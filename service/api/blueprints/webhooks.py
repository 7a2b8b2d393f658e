"""Webhook endpoints and settlement events: `/v1/webhooks...` and `/v1/events...`."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView
from marshmallow import RAISE

from service.services.webhooks import endpoints as webhooks
from service.services.webhooks import events

from ..auth import allow_read, require_write
from ..body import no_body, optional_body
from ..headers import parse_key
from ..heavy_reads import answer_heavy
from ..schemas.webhooks import (
    AttemptListSchema,
    AttemptQuerySchema,
    EventListSchema,
    EventQuerySchema,
    EventSchema,
    RedeliveredSchema,
    RedeliverRequestSchema,
    WebhookCreatedSchema,
    WebhookListSchema,
    WebhookPatchSchema,
    WebhookRequestSchema,
    WebhookSchema,
)
from ..state import db, principal
from . import AUTH, BODY, IDEMPOTENCY_KEY, Blueprint, json_response, send_stored

FORMAT = """\
Deliveries follow Standard Webhooks (standardwebhooks.com): `POST` of
`{"type", "timestamp", "data"}` with headers `webhook-id` (the event id, the same on every
retry and redelivery), `webhook-timestamp` (Unix seconds of this attempt) and
`webhook-signature` (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed by the
base64-decoded part of the secret after `whsec_`; during a rotation two, space-separated).
A 2xx answer within the timeout (5 s), its body (up to 4 KiB) included, is delivered;
anything else, a redirect too, is retried with jittered backoff for up to 3 days, and an
endpoint failing for 3 days is disabled. Delivery is at least once: dedupe by `webhook-id`. docs/webhooks.md has a
receiver."""

blp = Blueprint(
    "webhooks", __name__, url_prefix="/v1/webhooks",
    description="Webhook endpoints: settlement events pushed to the operator's wallet.\n\n" + FORMAT,
)
events_blp = Blueprint(
    "events", __name__, url_prefix="/v1/events",
    description="Settlement events, oldest first: catch up without webhooks, or redeliver one.",
)

EXAMPLE = {
    "url": "https://wallet.example.com/capsa/events",
    "events": ["round.settled", "round.voided"],
    "description": "wallet credits",
}


@blp.route("")
class Webhooks(MethodView):
    @blp.response(200, WebhookListSchema)
    @blp.problems(*AUTH)
    def get(self) -> Response:
        """This client's webhook endpoints (secrets are never shown again)."""
        return json_response(webhooks.list_(db(), principal().client_id))

    @blp.doc(parameters=[IDEMPOTENCY_KEY])
    @blp.arguments(WebhookRequestSchema, example=EXAMPLE)
    @blp.response(
        201, WebhookCreatedSchema,
        headers={"Location": {"description": "The new endpoint.", "schema": {"type": "string"}}},
    )
    @blp.problems(*BODY, 409)
    def post(self, body: dict[str, Any]) -> Response:
        """Add an endpoint; it takes the events stored from now on. The secret is shown once
        (and to a retry with the same Idempotency-Key and body, which adds no second endpoint)."""
        key = parse_key(request.headers.get("Idempotency-Key"))
        return send_stored(webhooks.create_once(db(), principal().client_id, body, key))


@blp.route("/<string:webhook_id>")
class WebhookById(MethodView):
    @blp.response(200, WebhookSchema)
    @blp.problems(*AUTH, 404)
    def get(self, webhook_id: str) -> Response:
        """One endpoint."""
        return json_response(webhooks.get(db(), principal().client_id, webhook_id))

    @allow_read  # the write scope is checked once the endpoint is found: 404 for others' keys
    @blp.arguments(WebhookPatchSchema, example={"enabled": False})
    @blp.response(200, WebhookSchema)
    @blp.problems(*BODY, 404)
    def patch(self, body: dict[str, Any], webhook_id: str) -> Response:
        """Change the URL, the events, the description, or enable / disable the endpoint."""
        _owned(webhook_id)
        return json_response(webhooks.update(db(), principal().client_id, webhook_id, body))

    @allow_read
    @blp.response(204)
    @blp.problems(*AUTH, 403, 404)
    def delete(self, webhook_id: str) -> Response:
        """Delete the endpoint with its deliveries and attempts.

        It is gone at once: nothing more is queued for it or sent to it (but an attempt
        already in flight), and every read answers 404. Past 1,000 deliveries or attempts,
        the dispatchers delete them after the answer, 1,000 of each a transaction.
        """
        _owned(webhook_id)
        webhooks.delete(db(), principal().client_id, webhook_id)
        gone = Response(status=204)
        del gone.headers["Content-Type"]  # no content: Werkzeug's default text/html would describe none
        return gone


@blp.route("/<string:webhook_id>/rotate-secret")
class RotateSecret(MethodView):
    @allow_read
    @no_body
    @blp.response(200, WebhookCreatedSchema)
    @blp.problems(*BODY, 404)
    def post(self, webhook_id: str) -> Response:
        """A new secret (shown once); the old one keeps signing beside it for 24 hours."""
        _owned(webhook_id)
        return json_response(webhooks.rotate_secret(db(), principal().client_id, webhook_id))


@blp.route("/<string:webhook_id>/deliveries")
class Deliveries(MethodView):
    @blp.arguments(AttemptQuerySchema, location="query", unknown=RAISE)
    @blp.response(200, AttemptListSchema)
    @blp.problems(*AUTH, 404)
    def get(self, query: dict[str, Any], webhook_id: str) -> Response:
        """The endpoint's delivery attempts, newest first: time, outcome, status, latency, error.

        An attempt is kept for 30 days, then deleted (the dispatcher's `WEBHOOK_ATTEMPTS_KEEP`).
        """
        return json_response(webhooks.attempts(db(), principal().client_id, webhook_id, **query))


def _owned(webhook_id: str) -> None:
    """404 unless the client has this endpoint, then 403 for a read key."""
    webhooks.get(db(), principal().client_id, webhook_id)
    require_write()


@events_blp.route("")
class Events(MethodView):
    @events_blp.arguments(EventQuerySchema, location="query", unknown=RAISE)
    @events_blp.response(200, EventListSchema)
    @events_blp.problems(*AUTH)
    def get(self, query: dict[str, Any]) -> Response:
        """This client's events, oldest first, after the event `after`.

        A page of more than 100 events is a heavy read (each event is its round's whole
        document): 429 `rate-limited` while the client has its heavy reads in flight."""

        def make() -> Response:
            return json_response(
                events.list_events(db(), principal().client_id, query.get("after"), query.get("type"), query["limit"])
            )

        return answer_heavy(make) if query["limit"] > events.LIGHT_LIMIT else make()


@events_blp.route("/<string:event_id>")
class EventById(MethodView):
    @events_blp.response(200, EventSchema)
    @events_blp.problems(*AUTH, 404)
    def get(self, event_id: str) -> Response:
        """One event, as its deliveries carry it (with its id)."""
        return json_response(events.get_event(db(), principal().client_id, event_id).document())


@events_blp.route("/<string:event_id>/redeliver")
class Redeliver(MethodView):
    @allow_read
    @optional_body
    @events_blp.arguments(RedeliverRequestSchema, required=False)
    @events_blp.response(202, RedeliveredSchema)
    @events_blp.problems(*BODY, 404, 409)
    def post(self, body: dict[str, Any], event_id: str) -> Response:
        """Send the event again now, with a fresh retry schedule, to every enabled endpoint
        subscribed to its type, or to `webhook` only (409 when it is disabled or not
        subscribed to the event's type)."""
        events.get_event(db(), principal().client_id, event_id)  # another client's event is 404
        require_write()
        queued = webhooks.redeliver(db(), principal().client_id, event_id, (body or {}).get("webhook"))
        return json_response(queued, 202)
