"""Versioned resources (Big Two games and matches, Susun games): `If-Match` and its 412,
`If-None-Match` and its 304.

A game or match carries a version that every change raises; its answers send it as a strong
`ETag` (`"7"`), a change may name the version it was decided on in `If-Match`, and a read
may say which version it holds already in `If-None-Match`.
"""

from __future__ import annotations

import re

from service.domain.errors import FieldError, quoted
from service.services.errors import InvalidInput, PreconditionFailed

_VERSION = re.compile(r'(W/)?("?)([0-9]{1,18})\2')


def parse_if_match(header: str | None, what: str = "game") -> frozenset[int] | None:
    """The versions an `If-Match` header names (`"7"`, `7` or a list); None without it or `*`.
    A header that names none is 422, saying it must be a version of `what` (game or match).

    RFC 9110 13.1.1 compares If-Match strongly: a weak tag (`W/"7"`) matches no version, so a
    header of weak tags alone is an empty set, which every version fails (412)."""
    if header is None or header.strip() == "*":
        return None
    versions: set[int] = set()
    for item in header.split(","):
        match = _VERSION.fullmatch(item.strip())
        if match is None:
            raise InvalidInput(
                f'If-Match must be a {what} version, such as "7", got {quoted(header)}',
                errors=[FieldError("header.If-Match", f'must be a {what} version, such as "7", got {quoted(item.strip())}')],
            )
        if match.group(1) is None:
            versions.add(int(match.group(3)))
    return frozenset(versions)


def not_modified(header: str | None, current: int) -> bool:
    """Whether `If-None-Match` names the `current` version (or is `*`): a GET answers 304.
    RFC 9110 13.1.2 compares it weakly, so `W/"7"` names version 7 too. A header that names
    no version is 422, as `If-Match`'s is."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    versions = set()
    for item in header.split(","):
        match = _VERSION.fullmatch(item.strip())
        if match is None:
            raise InvalidInput(
                f'If-None-Match must name versions, such as "7", got {quoted(header)}',
                errors=[FieldError("header.If-None-Match", f'must be a version, such as "7", got {quoted(item.strip())}')],
            )
        versions.add(int(match.group(3)))
    return current in versions


def refuse_stale(expected_versions: frozenset[int] | None, current: int, what: str) -> None:
    """412 unless `If-Match` (as `parse_if_match` read it) names the `current` version of
    the game or match (`what`); no header or `*` passes."""
    if expected_versions is None or current in expected_versions:
        return
    named = ", ".join(str(v) for v in sorted(expected_versions)) or "no version (weak tags never match)"
    raise PreconditionFailed(
        f"the {what} is at version {current}, If-Match names {named}",
        errors=[FieldError("header.If-Match", f"stale: the {what} is at version {current}")],
    )
