"""The domain's one exception hierarchy; the API maps each class to a problem type."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem at one place of the input (`field` is a path like `players[1].hand[2]`)."""

    field: str
    message: str


class CapsaError(ValueError):
    """Base of every domain error: input that cannot be processed."""

    problem = "validation"
    title = "Validation failed"

    def __init__(
        self, message: str, field: str | None = None, errors: list[FieldError] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if errors is None:
            errors = [FieldError(field, message)] if field is not None else []
        self.errors: list[FieldError] = errors


class InvalidCard(CapsaError):
    """A card that is not one of the 52, a duplicate, or a wrong number of cards."""

    problem = "invalid-cards"
    title = "Invalid cards"


class InvalidArrangement(InvalidCard):
    """Rows of the wrong size, or rows that do not use exactly the dealt hand."""


class UnknownRules(CapsaError):
    """An unknown preset, a preset of the other game, or an unknown parameter name."""

    problem = "unknown-rules"
    title = "Unknown rules"


class InvalidParameter(CapsaError):
    """A rule parameter of the wrong type or out of bounds."""


class InvalidMoney(CapsaError):
    """A stake or amount that is not a positive multiple of the currency's minor unit."""


class InvalidRound(CapsaError):
    """A round that cannot be scored: player count, ids, surrender where not allowed."""


class IllegalMove(CapsaError):
    """A Big Two move that the rules refuse; the reason says why."""

    problem = "illegal-move"
    title = "Illegal move"


class SettingError(ValueError):
    """An environment setting a process cannot run with; the message names it and its value
    (the app and every command stop with it in one line)."""


# Unicode's Bidi_Control characters: the marks, embeddings, overrides and isolates that make
# text display in another order than it is stored ("Trojan Source", CVE-2021-42574), as a
# regular-expression class's members.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# What JSON leaves raw but a reader does not see as itself: DEL, the C1 controls, the line
# and paragraph separators (a line break in some readers) and the bidi controls, which
# reorder the text around them where a message is shown (a dashboard, a log). Quoted, they
# are escaped as JSON would.
_UNSEEN = re.compile(f"[\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}]")


def _escaped(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def quoted(value: object, limit: int = 100) -> str:
    """A request value as the JSON the client sent it (`true`, `null`, `{"a": 1}`, not
    Python's `True`, `None`, `{'a': 1}`), cut at `limit` characters; a character that would
    not show as itself is written as its JSON escape (`\\u202e`)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not a JSON value (a caller's own object): as Python shows it
        text = repr(value)
    text = _UNSEEN.sub(_escaped, text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def raise_collected(errors: list[FieldError], cls: type[CapsaError] = CapsaError) -> None:
    """Raise `cls` carrying every collected error, when there is at least one."""
    if not errors:
        return
    if len(errors) == 1:
        message = f"{errors[0].field}: {errors[0].message}"
    else:
        message = f"{len(errors)} problems in the request body"
    raise cls(message, errors=errors)
