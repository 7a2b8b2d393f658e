"""Versioned resources (Big Two games and matches, Susun games): a stale version and its 412.

A game or match carries a version that every change raises; its answers send it as a strong
`ETag` (`"7"`), and a change may name the version it was decided on in `If-Match`
(`service.api.headers` reads the header into the versions it names).
"""

from __future__ import annotations

from service.domain.errors import FieldError
from service.services.errors import PreconditionFailed


def refuse_stale(expected_versions: frozenset[int] | None, current: int, what: str) -> None:
    """412 unless `If-Match` (as `service.api.headers.parse_if_match` read it) names the
    `current` version of the game or match (`what`); no header or `*` passes."""
    if expected_versions is None or current in expected_versions:
        return
    named = ", ".join(str(v) for v in sorted(expected_versions)) or "no version (the list is empty, or holds weak tags alone: weak tags never match)"
    raise PreconditionFailed(
        f"the {what} is at version {current}, If-Match names {named}",
        errors=[FieldError("header.If-Match", f"stale: the {what} is at version {current}")],
    )
