from typing import Literal

ProblemType = Literal[
    "/problems/bad-request",
    "/problems/conflict",
    "/problems/deal-in-play",
    "/problems/forbidden",
    "/problems/http-version-not-supported",
    "/problems/idempotency-in-flight",
    "/problems/idempotency-key-reused",
    "/problems/illegal-move",
    "/problems/internal",
    "/problems/invalid-cards",
    "/problems/malformed-json",
    "/problems/method-not-allowed",
    "/problems/not-acceptable",
    "/problems/not-found",
    "/problems/not-implemented",
    "/problems/payload-too-large",
    "/problems/precondition-failed",
    "/problems/rate-limited",
    "/problems/request-header-fields-too-large",
    "/problems/unauthorized",
    "/problems/unavailable",
    "/problems/unknown-rules",
    "/problems/unsupported-media-type",
    "/problems/uri-too-long",
    "/problems/validation",
]

PROBLEM_TYPE_VALUES: set[ProblemType] = {
    "/problems/bad-request",
    "/problems/conflict",
    "/problems/deal-in-play",
    "/problems/forbidden",
    "/problems/http-version-not-supported",
    "/problems/idempotency-in-flight",
    "/problems/idempotency-key-reused",
    "/problems/illegal-move",
    "/problems/internal",
    "/problems/invalid-cards",
    "/problems/malformed-json",
    "/problems/method-not-allowed",
    "/problems/not-acceptable",
    "/problems/not-found",
    "/problems/not-implemented",
    "/problems/payload-too-large",
    "/problems/precondition-failed",
    "/problems/rate-limited",
    "/problems/request-header-fields-too-large",
    "/problems/unauthorized",
    "/problems/unavailable",
    "/problems/unknown-rules",
    "/problems/unsupported-media-type",
    "/problems/uri-too-long",
    "/problems/validation",
}


def check_problem_type(value: str) -> ProblemType:
    if value in PROBLEM_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PROBLEM_TYPE_VALUES!r}")
