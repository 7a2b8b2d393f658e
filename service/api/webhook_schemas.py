"""Schemas of webhook endpoints, their delivery attempts, and settlement events."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from service.domain import webhooks as hooks

from .fields import FullMatch, QueryInteger, StrictBoolean, Unbroken, _meta
from .schemas import Out, Strict

EVENT_TYPES = [hooks.SETTLED, hooks.VOIDED, hooks.FINISHED]
SUBSCRIBABLE = [*EVENT_TYPES, hooks.ALL]
WEBHOOK_ID = "whk_01JDX8Q4N6V2C3M5B7Z9K1T3W5"
EVENT_ID = "evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled"
_ULID = "[0-9A-HJKMNP-TV-Z]{26}"
EVENT_ID_PATTERN = rf"^evt_{_ULID}_(settled|finished|voided)$"
WEBHOOK_ID_PATTERN = rf"^whk_{_ULID}$"
ONE_OF = "{input!r} is not one of: {choices}."


def _url(**kw: object) -> fields.String:
    return fields.String(
        validate=[validate.Length(1, hooks.MAX_URL), Unbroken()],
        metadata=_meta(
            "https://wallet.example.com/capsa/events",
            "http(s) URL, no credentials or fragment. Loopback, private and link-local "
            "addresses are refused (checked again on every resolved address at delivery) "
            "unless the service runs with WEBHOOK_ALLOW_PRIVATE.",
        ),
        **kw,  # type: ignore[arg-type]
    )


def _events(**kw: object) -> fields.List[Any]:
    return fields.List(
        fields.String(validate=validate.OneOf(SUBSCRIBABLE, error=ONE_OF)),
        validate=validate.Length(1, len(SUBSCRIBABLE)),
        metadata=_meta(
            ["round.settled", "round.voided"],
            "`round.settled` (every stored round, a finished Big Two game's too), "
            "`round.voided`, `banting.game.finished` (as well as its `round.settled`), or `*`.",
        ),
        **kw,  # type: ignore[arg-type]
    )


def _description(**kw: object) -> fields.String:
    return fields.String(
        validate=validate.Length(0, 500), metadata=_meta("wallet credits", "Free text, at most 500 characters."), **kw  # type: ignore[arg-type]
    )


class WebhookRequestSchema(Strict):
    url = _url(required=True)
    events = _events(required=True)
    description = _description(allow_none=True)


class WebhookPatchSchema(Strict):
    url = _url()
    events = _events()
    description = _description(allow_none=True)
    enabled = StrictBoolean(metadata=_meta(True, "false stops deliveries; true resumes them, with what was missed."))

    @validates_schema
    def _changes_something(self, data: dict[str, Any], **kw: Any) -> None:
        if not data:
            raise ValidationError("name at least one field to change: " + ", ".join(self.fields))


class WebhookSchema(Out):
    id = fields.String(required=True, metadata=_meta(WEBHOOK_ID))
    url = fields.String(required=True, metadata=_meta("https://wallet.example.com/capsa/events"))
    events = fields.List(
        fields.String(validate=validate.OneOf(SUBSCRIBABLE)), required=True, metadata=_meta(["*"])
    )
    description = fields.String(required=True, allow_none=True, metadata=_meta("wallet credits"))
    enabled = fields.Boolean(required=True, metadata=_meta(True, "false: no deliveries (see disabled_reason)."))
    disabled_reason = fields.String(
        required=True, allow_none=True,
        metadata=_meta(None, "`disabled` (PATCH) or `failing` (failed for 3 days)."),
    )
    failing_since = fields.String(
        required=True, allow_none=True, metadata=_meta(None, "The first failure since the last success.")
    )
    previous_secret_expires_at = fields.String(
        required=True, allow_none=True,
        metadata=_meta(None, "After a rotation: until when the previous secret signs too."),
    )
    created_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z"))
    updated_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z"))


class WebhookCreatedSchema(WebhookSchema):
    secret = fields.String(
        required=True,
        metadata=_meta(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1lRzBJ6Gx3Q=",
            "The signing secret: `whsec_` + base64 of 32 random bytes. Shown once.",
        ),
    )


class WebhookListSchema(Out):
    items = fields.List(fields.Nested(WebhookSchema), required=True)


class AttemptSchema(Out):
    id = fields.Integer(required=True, metadata=_meta(42))
    event_id = fields.String(required=True, metadata=_meta(EVENT_ID))
    attempted_at = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.250Z"))
    outcome = fields.String(
        required=True,
        validate=validate.OneOf(["delivered", "http_error", "timeout", "connection_error", "refused"]),
        metadata=_meta("delivered", "2xx: delivered; `refused`: the SSRF guard refused the address."),
    )
    status_code = fields.Integer(required=True, allow_none=True, metadata=_meta(200))
    latency_ms = fields.Integer(required=True, metadata=_meta(12))
    error = fields.String(required=True, allow_none=True, metadata=_meta(None))


class AttemptListSchema(Out):
    items = fields.List(fields.Nested(AttemptSchema), required=True)
    next_cursor = fields.Integer(
        required=True, allow_none=True, metadata=_meta(None, "Pass as `cursor` for older attempts.")
    )


class AttemptQuerySchema(Schema):
    class Meta:
        unknown = RAISE
        ordered = True

    event = fields.String(
        # FullMatch: Regexp's re.match would take the id with a newline after it.
        validate=FullMatch(EVENT_ID_PATTERN),
        metadata=_meta(EVENT_ID, "Only this event's attempts.", pattern=EVENT_ID_PATTERN),
    )
    limit = QueryInteger(
        load_default=50, validate=validate.Range(1, 500), metadata=_meta(50, "Page size, 1-500.")
    )
    cursor = QueryInteger(
        validate=validate.Range(1, 2**62), metadata=_meta(42, "`next_cursor` of the previous page.")
    )


class EventSchema(Out):
    id = fields.String(required=True, metadata=_meta(EVENT_ID, "The `webhook-id` of its deliveries."))
    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES), metadata=_meta("round.settled"))
    timestamp = fields.String(required=True, metadata=_meta("2026-11-29T10:00:00.000Z", "When it happened."))
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
    has_more = fields.Boolean(required=True, metadata=_meta(False, "Ask again with `after` = the last id."))


class EventQuerySchema(Schema):
    class Meta:
        unknown = RAISE
        ordered = True

    after = fields.String(
        validate=validate.Length(1, 64),
        metadata=_meta(EVENT_ID, "An event id: the events after it (absent: from the first)."),
    )
    type = fields.String(validate=validate.OneOf(EVENT_TYPES, error=ONE_OF), metadata=_meta("round.settled"))
    limit = QueryInteger(load_default=100, validate=validate.Range(1, 500), metadata=_meta(100, "1-500."))


class RedeliverRequestSchema(Strict):
    webhook = fields.String(
        validate=validate.Length(1, 40),
        metadata=_meta(WEBHOOK_ID, "Only this endpoint (absent: every enabled endpoint subscribed to the type)."),
    )


class RedeliveredSchema(Out):
    event_id = fields.String(required=True, metadata=_meta(EVENT_ID))
    webhooks = fields.List(fields.String(), required=True, metadata=_meta([WEBHOOK_ID], "Queued for these."))
