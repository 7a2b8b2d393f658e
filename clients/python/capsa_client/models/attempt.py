from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.attempt_outcome import AttemptOutcome, check_attempt_outcome

T = TypeVar("T", bound="Attempt")


@_attrs_define
class Attempt:
    """
    Attributes:
        id (int): The attempt's id: stable, below 2^52, and opaque (it says nothing of order or of other clients).
            Example: 1234567890123.
        event_id (str):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        attempted_at (datetime.datetime): When the attempt's request went out. Example: 2026-11-29T10:00:00.250Z.
        outcome (AttemptOutcome): 2xx: delivered; `refused`: the SSRF guard refused the address. Example: delivered.
        status_code (int | None):  Example: 200.
        latency_ms (int):  Example: 12.
        error (None | str):
    """

    id: int
    event_id: str
    attempted_at: datetime.datetime
    outcome: AttemptOutcome
    status_code: int | None
    latency_ms: int
    error: None | str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        event_id = self.event_id

        attempted_at = self.attempted_at.isoformat()

        outcome: str = self.outcome

        status_code: int | None
        status_code = self.status_code

        latency_ms = self.latency_ms

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "event_id": event_id,
                "attempted_at": attempted_at,
                "outcome": outcome,
                "status_code": status_code,
                "latency_ms": latency_ms,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        event_id = d.pop("event_id")

        attempted_at = datetime.datetime.fromisoformat(d.pop("attempted_at"))

        outcome = check_attempt_outcome(d.pop("outcome"))

        def _parse_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status_code = _parse_status_code(d.pop("status_code"))

        latency_ms = d.pop("latency_ms")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        attempt = cls(
            id=id,
            event_id=event_id,
            attempted_at=attempted_at,
            outcome=outcome,
            status_code=status_code,
            latency_ms=latency_ms,
            error=error,
        )

        return attempt
