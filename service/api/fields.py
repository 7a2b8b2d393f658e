"""Marshmallow fields of our own: structure only, strict types, an example on every field."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, date, datetime
from typing import Any, ClassVar

from marshmallow import ValidationError, fields, validate

from service.domain.errors import BIDI_CONTROLS
from service.domain.money import NOT_A_STRING
from service.domain.susun.round import ID_PATTERN as BARE_ID_PATTERN

# Anchored for OpenAPI (ECMA-262 `$` is the end of the string); Python matches them with
# fullmatch, where `$` alone would also match before a trailing newline.
ID_PATTERN = rf"^{BARE_ID_PATTERN}$"
MONEY_PATTERN = r"^(0|[1-9][0-9]*)(\.[0-9]+)?$"
SIGNED_MONEY_PATTERN = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$"


def openapi_meta(example: Any, description: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"example": example, **extra}
    if description:
        meta["description"] = description
    return meta


# The named lists of values that answers may grow within /v1, by their schema's name in the
# spec (`CapsaApi` adds them to its components).
OPEN_ENUMS: dict[str, list[str]] = {}


def open_enum(name: str, values: list[str], example: Any, description: str | None = None) -> dict[str, Any]:
    """Metadata for a string of an answer whose values grow within /v1 (problem and event
    types: docs/api.md, "What may change within v1"): the spec gives `anyOf` the values
    known now (the schema `name`) or any string, so a client generated from it keeps the
    known ones for its type checker and reads one added later as text, where a plain
    `enum` made it raise."""
    OPEN_ENUMS[name] = list(values)
    return openapi_meta(example, description, anyOf=[{"$ref": f"#/components/schemas/{name}"}, {"type": "string"}])


class FullMatch(validate.Validator):
    """marshmallow's Regexp uses re.match: `^a$` takes "a\\n". This matches the whole string."""

    def __init__(self, pattern: str, error: str = "must match {regex}") -> None:
        self.regex = re.compile(pattern)
        self.error = error.format(regex=pattern)

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str) or self.regex.fullmatch(value) is None:
            raise ValidationError(str(self.error))
        return value


_BREAK = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")


class Unbroken(validate.Validator):
    """No whitespace or control character anywhere (a URL): a trailing newline is refused,
    not trimmed away by a parser further on (urlsplit drops tabs and newlines silently)."""

    def __call__(self, value: Any) -> Any:
        found = _BREAK.search(value) if isinstance(value, str) else None
        if found is not None:
            raise ValidationError(
                f"{value!r} has {found.group()!r} at position {found.start()}: "
                "no whitespace or control character is allowed"
            )
        return value


# Control characters, the line and paragraph separators (a line break in any reader that
# honours them, nothing in one that does not), and the bidi controls that make text display
# in another order than it is stored.
_HIDDEN = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}]")
LEGIBLE = "no control character (newlines and line separators included) and no bidirectional formatting character"


class Legible(validate.Validator):
    """Free text people read (a void's reason, an endpoint's description) shows as it is
    stored: a reason that reads "dealer error" on a statement cannot hold other text, or
    lines of its own, that a reader does not see."""

    def __call__(self, value: Any) -> Any:
        found = _HIDDEN.search(value) if isinstance(value, str) else None
        if found is not None:
            raise ValidationError(f"has U+{ord(found.group()):04X} at position {found.start()}: {LEGIBLE} is allowed")
        return value


# What shows nothing where it stands besides whitespace and the format characters (category
# Cf: U+200B, U+FEFF, U+00AD, ...): the rest of Unicode's Default_Ignorable_Code_Point, which
# `unicodedata` does not give (the combining grapheme joiner, Hangul and Khmer fillers, the
# variation selectors).
_IGNORABLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0"
    + "".join(map(chr, (*range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))))
)


def _invisible(c: str) -> bool:
    return c in _IGNORABLE or unicodedata.category(c) == "Cf"


def shows_nothing(text: str) -> bool:
    """Whether `text` has characters and a reader sees none of them: only whitespace, format
    characters and other default-ignorable code points (an empty text is a length's to
    refuse, not this)."""
    return bool(text) and all(c.isspace() or _invisible(c) for c in text)


class Readable(Legible):
    """Legible text that shows something: a value of only whitespace and characters that show
    nothing gets one refusal, `{purpose}: not only whitespace or characters that show
    nothing`, not a second one for a control character it holds (a tab)."""

    def __init__(self, purpose: str) -> None:
        self.purpose = purpose

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str) and shows_nothing(value):
            raise ValidationError(f"{self.purpose}: not only whitespace or characters that show nothing")
        return super().__call__(value)


class Visible(Readable):
    """Readable text in which every character shows: a seed that reads "table-7" is the bytes
    mixed into a shuffle, so one with a zero-width space, a soft hyphen, a variation
    selector or a tag character inside it, which reads the same, is refused too (free text,
    a void's reason, keeps them: joiners belong to some scripts and to emoji)."""

    def __call__(self, value: Any) -> Any:
        value = super().__call__(value)
        if isinstance(value, str):
            for position, c in enumerate(value):
                if _invisible(c):
                    raise ValidationError(
                        f"has U+{ord(c):04X} at position {position}: {self.purpose}, "
                        "so no character that shows nothing is allowed"
                    )
        return value


_DIGITS = re.compile("[0-9]+")


class QueryInteger(fields.Integer):
    """An integer in a query string: ASCII digits only, nothing around them.

    marshmallow's Integer calls int(), which also reads "+1", "1_0", " 1\n" and "١" (an
    Arabic-Indic one): each of them is a 422 naming the parameter and quoting the value."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(strict=False, **kw)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, str) or _DIGITS.fullmatch(value) is None:
            raise ValidationError(f"{value!r} is not a whole number written with the digits 0-9 alone")
        return super()._deserialize(value, attr, data, **kwargs)


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
            openapi_meta(
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
            openapi_meta(example, "Signed decimal string, minor-unit digits.", pattern=SIGNED_MONEY_PATTERN),
        )
        super().__init__(example, **kw)


def Id(example: str = "table-7", description: str | None = None, **kw: Any) -> fields.String:
    """An identifier chosen by a client: `^[A-Za-z0-9._:-]{1,64}$`."""
    return fields.String(
        validate=FullMatch(ID_PATTERN),
        metadata=openapi_meta(example, description, pattern=ID_PATTERN),
        **kw,
    )


def Card(**kw: Any) -> fields.String:
    return fields.String(
        validate=validate.Length(1, 8),
        metadata=openapi_meta("Ah", "A card: rank 2-9, T or 10, J, Q, K, A, then suit c d h s."),
        **kw,
    )


def Cards(example: list[str], description: str, max_items: int = 52, **kw: Any) -> fields.List[Any]:
    return fields.List(
        Card(),
        validate=validate.Length(max=max_items),
        metadata=openapi_meta(example, description),
        **kw,
    )


class RulesRef(fields.Field[Any]):
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


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_FORMS = (
    'an RFC 3339 time with its offset, such as "2026-12-01T00:00:00Z", "2026-12-01T07:00:00+07:00" '
    '(write + as %2B in a URL) or "2026-12-01T00:00:00.250Z", or a date such as "2026-12-01" '
)
MOMENT_FORMS = _FORMS + "(00:00 UTC)"
ZONED_MOMENT_FORMS = _FORMS + "(its 00:00 in `tz`, default UTC)"


class Moment(fields.AwareDateTime):
    """A `since`/`until` bound: an RFC 3339 time with an offset, as UTC, or a date.

    A date means 00:00 UTC, or with `dates` stays a `date`, which the ledger reads as the
    midnight that starts it in the request's `tz`. A time without an offset is refused (whose
    midnight would it be?); the message lists every accepted form. A time whose UTC instant
    lies outside years 1-9999 (`0001-01-01T00:00:00+14:00`) is a 422 naming the field, not an
    OverflowError. Digits past microseconds are dropped."""

    def __init__(
        self, description: str, example: str = "2026-12-01T00:00:00Z", dates: bool = False, **kw: Any
    ) -> None:
        self.forms = ZONED_MOMENT_FORMS if dates else MOMENT_FORMS
        super().__init__(default_timezone=None, metadata=openapi_meta(example, f"{description} {self.forms}."), **kw)
        self.dates = dates

    def _deserialize(  # type: ignore[override]  # a date where `dates` asks for one
        self, value: Any, attr: Any, data: Any, **kwargs: Any
    ) -> datetime | date:
        if isinstance(value, str) and _DATE.fullmatch(value):
            try:
                day = date.fromisoformat(value)
            except ValueError:
                pass
            else:
                return day if self.dates else datetime(day.year, day.month, day.day, tzinfo=UTC)
        try:
            moment: datetime = super()._deserialize(
                value.upper() if isinstance(value, str) else value, attr, data, **kwargs
            )
        except ValidationError:
            raise ValidationError(f"{value!r} is not a time: use {self.forms}") from None
        try:
            return moment.astimezone(UTC)
        except (OverflowError, ValueError):
            raise ValidationError(
                f"{value!r} is outside the times this service can represent (0001-01-01 to 9999-12-31 UTC)"
            ) from None


def Since(dates: bool = False) -> Moment:
    return Moment("Inclusive; accepted:", "2026-11-29T00:00:00Z", dates=dates)


def Until(dates: bool = False) -> Moment:
    return Moment("Exclusive; accepted:", "2026-11-30T00:00:00Z", dates=dates)
