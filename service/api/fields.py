"""Marshmallow fields of our own: structure only, strict types, an example on every field."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, ClassVar

from marshmallow import ValidationError, fields, validate

from service.domain.money import NOT_A_STRING

ID_PATTERN = r"^[A-Za-z0-9._:-]{1,64}$"
MONEY_PATTERN = r"^(0|[1-9][0-9]*)(\.[0-9]+)?$"
SIGNED_MONEY_PATTERN = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$"


def _meta(example: Any, description: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"example": example, **extra}
    if description:
        meta["description"] = description
    return meta


class StrictBoolean(fields.Boolean):
    """Only JSON true and false (marshmallow's Boolean also takes "yes", 1, ...)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(truthy={True}, falsy={False}, **kw)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        # `1 in {True}` holds in Python: without this, JSON 1, 1.0 and 0 would pass as booleans.
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Money(fields.String):
    """Money is a JSON string only; the domain checks the digits against the currency."""

    def __init__(self, example: str = "1000", description: str | None = None, **kw: Any) -> None:
        kw.setdefault(
            "metadata",
            _meta(
                example,
                description
                or "Decimal string in plain notation with the currency's minor-unit digits "
                "(never a JSON number).",
                pattern=MONEY_PATTERN,
            ),
        )
        super().__init__(**kw)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, str):
            # The domain's wording (money.parse_stake), not marshmallow's "Not a valid string."
            raise ValidationError(NOT_A_STRING.format(value=value))
        return super()._deserialize(value, attr, data, **kwargs)


class SignedMoney(Money):
    def __init__(self, example: str = "-11000", **kw: Any) -> None:
        kw.setdefault(
            "metadata",
            _meta(example, "Signed decimal string, minor-unit digits.", pattern=SIGNED_MONEY_PATTERN),
        )
        super().__init__(example, **kw)


def Id(example: str = "table-7", description: str | None = None, **kw: Any) -> fields.String:
    """An identifier chosen by a client: `^[A-Za-z0-9._:-]{1,64}$`."""
    return fields.String(
        validate=validate.Regexp(ID_PATTERN, error="must match {regex}"),
        metadata=_meta(example, description, pattern=ID_PATTERN),
        **kw,
    )


def Card(**kw: Any) -> fields.String:
    return fields.String(
        validate=validate.Length(1, 8),
        metadata=_meta("Ah", "A card: rank 2-9, T or 10, J, Q, K, A, then suit c d h s."),
        **kw,
    )


def Cards(example: list[str], description: str, max_items: int = 52, **kw: Any) -> fields.List:
    return fields.List(
        Card(),
        validate=validate.Length(max=max_items),
        metadata=_meta(example, description),
        **kw,
    )


class RulesRef(fields.Field):
    """A preset name or `{"preset", "params", "version"}`; the domain resolves it."""

    openapi: ClassVar[dict[str, Any]] = {
        "oneOf": [
            {"type": "string", "example": "capsa-susun-id", "description": "A preset name."},
            {
                "type": "object",
                "description": "A preset with parameter overrides (docs/rules.md#rule-sets-presets-and-versions).",
                "properties": {
                    "preset": {"type": "string", "example": "chinese-poker-1-6"},
                    "version": {"type": "integer", "example": 1},
                    "params": {
                        "type": "object",
                        "additionalProperties": True,
                        "example": {"fee_rate": "0.05", "wheel": "second"},
                    },
                },
                "required": ["preset"],
                "additionalProperties": False,
                "example": {"preset": "chinese-poker-1-6", "params": {"fee_rate": "0.05"}},
            },
        ],
        "example": "capsa-susun-id",
        "description": "Rule set: a preset name, or a preset with parameter overrides. "
        "Omitted: capsa-susun-id.",
    }

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kw: Any) -> Any:
        if isinstance(value, str | dict):
            return value
        raise ValidationError("must be a preset name or an object")


def openapi_attributes(converter: Any, field: fields.Field, **_: Any) -> dict[str, Any]:
    """apispec attribute function: custom fields describe themselves with `openapi`."""
    return dict(getattr(field, "openapi", {}))


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
MOMENT_FORMS = (
    'an RFC 3339 time with its offset, such as "2026-12-01T00:00:00Z", "2026-12-01T07:00:00+07:00" '
    '(write + as %2B in a URL) or "2026-12-01T00:00:00.250Z", or a date such as "2026-12-01" '
    "(00:00 UTC)"
)


class Moment(fields.AwareDateTime):
    """A `since`/`until` bound: an RFC 3339 time with an offset, or a date meaning 00:00 UTC.

    A time without an offset is refused (whose midnight would it be?); the message lists
    every accepted form. Digits past microseconds are dropped."""

    def __init__(self, description: str, example: str = "2026-12-01T00:00:00Z", **kw: Any) -> None:
        meta = _meta(example, f"{description} {MOMENT_FORMS}.")
        super().__init__(default_timezone=None, metadata=meta, **kw)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> datetime:
        if isinstance(value, str) and _DATE.fullmatch(value):
            try:
                return datetime.fromisoformat(value).replace(tzinfo=UTC)
            except ValueError:
                pass
        try:
            moment: datetime = super()._deserialize(
                value.upper() if isinstance(value, str) else value, attr, data, **kwargs
            )
        except ValidationError:
            raise ValidationError(f"{value!r} is not a time: use {MOMENT_FORMS}") from None
        return moment
