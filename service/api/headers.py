"""The request headers the API reads into values for the services: `Idempotency-Key` (the
key), `If-Match` (the versions a change was decided on) and `If-None-Match` (the versions a
read holds already). A header that names nothing of the kind is 422, naming it."""

from __future__ import annotations

import re

from service.domain.errors import FieldError, quoted
from service.services.errors import InvalidInput

_KEY = re.compile(r"[\x20-\x7e]{1,255}")
# An entity tag of RFC 9110 8.8.3 (`"7"`, `W/"7"`, any opaque text between the quotes), or
# a version sent bare (`7`).
_TAG = re.compile(r'(W/)?"([\x21\x23-\x7e\x80-\xff]*)"|([0-9]{1,18})')
_DIGITS = re.compile("0|[1-9][0-9]{0,17}")


def parse_key(header: str | None) -> str | None:
    """The key of an `Idempotency-Key` header (a quoted string is accepted), or None.

    The header is one Structured Field string. Servers join repeated headers with a comma
    (gunicorn does), so a comma outside quotes, or a quote inside them, means two keys: 422,
    never the joined `"k1,k2"` as a key of its own."""
    if header is None:
        return None
    key = header
    is_string = len(key) >= 2 and key[0] == key[-1] == '"'
    if is_string:
        key = key[1:-1]  # a Structured Field string
    if ('"' in key or "\\" in key) if is_string else ("," in key):
        raise InvalidInput(
            "Idempotency-Key was sent more than once (or holds a comma outside quotes); send one key",
            errors=[_field_error(f"one key expected, got {_shown(header)}")],
        )
    if not _KEY.fullmatch(key):
        raise InvalidInput(
            f"Idempotency-Key must be 1-255 printable ASCII characters, got {_shown(header)}",
            errors=[_field_error(f"must be 1-255 printable ASCII characters, got {_shown(header)}")],
        )
    return key


def _shown(header: str) -> str:
    """A header as the client wrote it, quoted for a message. WSGI hands a header's bytes over
    as Latin-1 (PEP 3333), so a UTF-8 value arrives as mojibake ("cafÃ©"): it is shown as the
    UTF-8 text it was, and as it came where its bytes are not UTF-8."""
    try:
        return quoted(header.encode("latin-1").decode("utf-8"))
    except UnicodeError:
        return quoted(header)


def _field_error(message: str) -> FieldError:
    return FieldError("header.Idempotency-Key", message)


def parse_if_match(header: str | None, what: str = "game") -> frozenset[int] | None:
    """The versions an `If-Match` header names (`"7"`, `7` or a list); None without it or `*`.
    A header that names none is 422, saying it must be a version of `what` (game or match).

    RFC 9110 13.1.1 compares If-Match strongly: a weak tag (`W/"7"`) matches no version, so a
    header of weak tags alone is an empty set, which every version fails (412)."""
    if header is None or header.strip() == "*":
        return None
    message = f'If-Match must be a {what} version, such as "7", got {_shown(header)}'
    return frozenset(_versions(header, "If-Match", message, f'must be a {what} version, such as "7"', weak=False))


def not_modified(header: str | None, current: int) -> bool:
    """Whether `If-None-Match` names the `current` version (or is `*`): a GET answers 304.
    RFC 9110 13.1.2 compares it weakly, so `W/"7"` names version 7 too. A header that names
    no version is 422, as `If-Match`'s is."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    message = f'If-None-Match must name versions, such as "7", got {_shown(header)}'
    return current in _versions(header, "If-None-Match", message, 'must be a version, such as "7"', weak=True)


def _versions(header: str, name: str, message: str, each: str, *, weak: bool) -> set[int]:
    """The versions a list of tags names: empty items skipped (RFC 9110 5.6.1.2), a weak tag
    only when compared weakly, and a tag compared as text (8.8.3.2), so `"07"` names none."""
    versions = set()
    for item in header.split(","):
        tag = item.strip()
        if not tag:
            continue
        match = _TAG.fullmatch(tag)
        if match is None:
            raise InvalidInput(message, errors=[FieldError(f"header.{name}", f"{each}, got {_shown(tag)}")])
        opaque, bare = match.group(2), match.group(3)
        digits = bare if opaque is None else opaque
        if (weak or match.group(1) is None) and _DIGITS.fullmatch(digits):
            versions.add(int(digits))
    return versions
