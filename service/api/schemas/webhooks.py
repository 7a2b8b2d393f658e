"""`/v1/webhooks` and `/v1/events`: endpoints, their delivery attempts, settlement events."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from service.domain import webhooks as hooks
from service.domain.webhooks import AttemptOutcome, EventType
from service.services.cursors import DEFAULT_PAGE, MAX_PAGE
from service.services.webhooks import events

from ..fields import (
    LEGIBLE,
    FullMatch,
    Legible,
    QueryInteger,
    StrictBoolean,
    Unbroken,
    open_enum,
    openapi_meta,
)
from .bases import Out, Strict, page_limit

EVENT_TYPES = [t.value for t in EventType]
SUBSCRIBABLE = [*EVENT_TYPES, hooks.ALL]
ATTEMPT_OUTCOMES = [o.value for o in AttemptOutcome]
WEBHOOK_ID = "whk_01JDX8Q4N6V2C3M5B7Z9K1T3W5"
EVENT_ID = "evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled"
EVENT_ID_PATTERN = rf"^evt_{hooks.ULID}_({hooks.EVENT_ID_SUFFIXES})$"
WEBHOOK_ID_PATTERN = rf"^whk_{hooks.ULID}$"
ONE_OF = "{input!r} is not one of: {choices}."
DESCRIPTION_MAX = 500  # characters of an endpoint's description
EVENT_ID_MAX = 64  # characters of an event id given as `after` (ours are 37-38)
WEBHOOK_ID_MAX = 40  # characters of an endpoint id (ours are 30)
ATTEMPT_ID_MAX = 2**hooks.ATTEMPT_ID_BITS - 1  # shown attempt ids are below 2^52, 0 among them


def _url(**kw: Any) -> fields.String:
    return fields.String(
        validate=[validate.Length(1, hooks.MAX_URL), Unbroken()],
        metadata=openapi_meta(
            "https://wallet.example.com/capsa/events",
            "http(s) URL, no credentials or fragment. Loopback, private and link-local "
            "addresses are refused (checked again on every resolved address at delivery) "
            "unless the service runs with WEBHOOK_ALLOW_PRIVATE.",
        ),
        **kw,
    )


def _events(**kw: Any) -> fields.List[Any]:
    return fields.List(
        fields.String(validate=validate.OneOf(SUBSCRIBABLE, error=ONE_OF)),
        validate=validate.Length(1, len(SUBSCRIBABLE)),
        metadata=openapi_meta(
            ["round.settled", "round.voided"],
            "`round.settled` (every stored round, a finished Big Two game's too), "
            "`round.voided`, `banting.game.finished` (as well as its `round.settled`), each once, "
            "or `*` (every type) alone.",
        ),
        **kw,
    )


def _description(**kw: Any) -> fields.String:
    return fields.String(
        validate=[validate.Length(0, DESCRIPTION_MAX), Legible()],
        metadata=openapi_meta("wallet credits", f"Free text, at most {DESCRIPTION_MAX} characters: {LEGIBLE}."),
        **kw,
    )


class WebhookRequestSchema(Strict):
    url = _url(required=True)
    events = _events(required=True)
    description = _description(allow_none=True)


class WebhookPatchSchema(Strict):
    url = _url()
    events = _events()
    description = _description(allow_none=True)
    enabled = StrictBoolean(metadata=openapi_meta(True, "false stops deliveries; true resumes them, with what was missed: the events stored meanwhile, and the deliveries that had failed for good or wait for a late retry, sent again at once with a fresh schedule."))

    @validates_schema
    def _changes_something(self, data: dict[str, Any], **kw: Any) -> None:
        if not data:
            raise ValidationError("name at least one field to change: " + ", ".join(self.fields))


class WebhookSchema(Out):
    id = fields.String(required=True, metadata=openapi_meta(WEBHOOK_ID))
    url = fields.String(required=True, metadata=openapi_meta("https://wallet.example.com/capsa/events"))
    events = fields.List(
        fields.String(metadata=open_enum("EventSubscription", SUBSCRIBABLE, "*")), required=True, metadata=openapi_meta(["*"])
    )
    description = fields.String(required=True, allow_none=True, metadata=openapi_meta("wallet credits"))
    enabled = fields.Boolean(required=True, metadata=openapi_meta(True, "false: no deliveries (see disabled_reason)."))
    disabled_reason = fields.String(
        required=True, allow_none=True,
        metadata=openapi_meta(None, "`disabled` (PATCH) or `failing` (failed for 3 days)."),
    )
    failing_since = fields.String(
        required=True, allow_none=True, metadata=openapi_meta(None, "The first failure since the last success.", format="date-time")
    )
    previous_secret_expires_at = fields.String(
        required=True, allow_none=True,
        metadata=openapi_meta(None, "After a rotation: until when the previous secret signs too.", format="date-time"),
    )
    created_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    updated_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))


class WebhookCreatedSchema(WebhookSchema):
    secret = fields.String(
        required=True,
        metadata=openapi_meta(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1lRzBJ6Gx3Q=",
            "The signing secret: `whsec_` + base64 of 32 random bytes. Shown once.",
        ),
    )


class WebhookListSchema(Out):
    items = fields.List(fields.Nested(WebhookSchema), required=True)


class AttemptSchema(Out):
    id = fields.Integer(
        required=True,
        metadata=openapi_meta(
            1234567890123, "The attempt's id: stable, below 2^52, and opaque (it says nothing of order or of other clients)."
        ),
    )
    event_id = fields.String(required=True, metadata=openapi_meta(EVENT_ID))
    attempted_at = fields.String(
        required=True,
        metadata=openapi_meta("2026-11-29T10:00:00.250Z", "When the attempt's request went out.", format="date-time"),
    )
    outcome = fields.String(
        required=True,
        validate=validate.OneOf(ATTEMPT_OUTCOMES),
        metadata=openapi_meta("delivered", "2xx: delivered; `refused`: the SSRF guard refused the address."),
    )
    status_code = fields.Integer(required=True, allow_none=True, metadata=openapi_meta(200))
    latency_ms = fields.Integer(required=True, metadata=openapi_meta(12))
    error = fields.String(required=True, allow_none=True, metadata=openapi_meta(None))


class AttemptListSchema(Out):
    items = fields.List(fields.Nested(AttemptSchema), required=True)
    next_cursor = fields.Integer(
        required=True, allow_none=True, metadata=openapi_meta(None, "Pass as `cursor` for older attempts.")
    )


class AttemptQuerySchema(Schema):
    class Meta:
        unknown = RAISE
        ordered = True

    event = fields.String(
        # FullMatch: Regexp's re.match would take the id with a newline after it.
        validate=FullMatch(EVENT_ID_PATTERN),
        metadata=openapi_meta(EVENT_ID, "Only this event's attempts.", pattern=EVENT_ID_PATTERN),
    )
    limit = page_limit(DEFAULT_PAGE, MAX_PAGE)
    cursor = QueryInteger(
        validate=validate.Range(0, ATTEMPT_ID_MAX), metadata=openapi_meta(42, "`next_cursor` of the previous page.")
    )


class EventSchema(Out):
    id = fields.String(required=True, metadata=openapi_meta(EVENT_ID, "The `webhook-id` of its deliveries."))
    type = fields.String(required=True, metadata=open_enum("EventType", EVENT_TYPES, "round.settled"))
    timestamp = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", "When it happened.", format="date-time"))
    data = fields.Dict(
        required=True,
        metadata={
            "example": {"id": "rnd_01JDX8Q4N6V2C3M5B7Z9K1T3W5", "game": "susun", "status": "settled"},
            "description": "The round document as `GET /v1/rounds/{id}` answered then "
            "(`round.settled`: settled; `round.voided`: after the void), or for "
            "`banting.game.finished` the game as `GET /v1/banting/games/{id}` answers it."
        },
    )


class EventListSchema(Out):
    items = fields.List(fields.Nested(EventSchema), required=True)
    has_more = fields.Boolean(required=True, metadata=openapi_meta(False, "Ask again with `after` = the last id."))


class EventQuerySchema(Schema):
    class Meta:
        unknown = RAISE
        ordered = True

    after = fields.String(
        validate=validate.Length(1, EVENT_ID_MAX),
        metadata=openapi_meta(EVENT_ID, "An event id: the events after it (absent: from the first)."),
    )
    type = fields.String(validate=validate.OneOf(EVENT_TYPES, error=ONE_OF), metadata=openapi_meta("round.settled"))
    limit = page_limit(
        events.DEFAULT_LIMIT, events.MAX_LIMIT,
        f"1-{{most}}. A page of more than {events.LIGHT_LIMIT} is a heavy read (429 while the client has its heavy reads in flight).",
    )


class RedeliverRequestSchema(Strict):
    webhook = fields.String(
        validate=validate.Length(1, WEBHOOK_ID_MAX),
        metadata=openapi_meta(WEBHOOK_ID, "Only this endpoint (absent: every enabled endpoint subscribed to the type)."),
    )


class RedeliveredSchema(Out):
    event_id = fields.String(required=True, metadata=openapi_meta(EVENT_ID))
    webhooks = fields.List(fields.String(), required=True, metadata=openapi_meta([WEBHOOK_ID], "Queued for these."))
