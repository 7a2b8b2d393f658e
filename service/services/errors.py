"""Failures of the use cases, each with the problem type the API answers with."""

from __future__ import annotations

from service.domain.errors import FieldError


class ServiceError(Exception):
    """Base: `problem` is the problem-type slug, `message` the human detail."""

    problem = "internal"
    title = "Internal error"

    def __init__(
        self,
        message: str,
        errors: list[FieldError] | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors or []
        self.retry_after = retry_after


class Unauthorized(ServiceError):
    """No API key, or one that is unknown or revoked."""

    problem = "unauthorized"
    title = "Unauthorized"


class Forbidden(ServiceError):
    """The key's scope does not allow this call."""

    problem = "forbidden"
    title = "Forbidden"


class NotFound(ServiceError):
    """No such resource for this client."""

    problem = "not-found"
    title = "Not found"


class Conflict(ServiceError):
    """The request conflicts with what is stored (a used `reference`)."""

    problem = "conflict"
    title = "Conflict"


class DealInPlay(Conflict):
    """A deal's seed or cards asked for while the game that used it is still in play."""

    problem = "deal-in-play"
    title = "Deal in play"


class IdempotencyKeyReused(ServiceError):
    """An Idempotency-Key already used with another body."""

    problem = "idempotency-key-reused"
    title = "Idempotency-Key reused"


class IdempotencyInFlight(ServiceError):
    """The first request with this Idempotency-Key is still running."""

    problem = "idempotency-in-flight"
    title = "Request in flight"


class InvalidInput(ServiceError):
    """Input that the schemas let through but the use case cannot read (a foreign cursor)."""

    problem = "validation"
    title = "Validation failed"


class Unavailable(ServiceError):
    """The database is unavailable; retry later."""

    problem = "unavailable"
    title = "Service unavailable"


class PreconditionFailed(ServiceError):
    """A stale `If-Match` version on a Big Two move."""

    problem = "precondition-failed"
    title = "Precondition failed"


class ChainBroken(Conflict):
    """What the service was asked to sign does not match its chain (a head row naming no
    record, or a record whose bytes do not hash to it): it signs nothing it cannot vouch
    for, and the chain must be verified."""

