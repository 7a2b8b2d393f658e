from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.replica_ready_status import ReplicaReadyStatus, check_replica_ready_status

T = TypeVar("T", bound="ReplicaReady")


@_attrs_define
class ReplicaReady:
    """
    Attributes:
        status (ReplicaReadyStatus): `ok`: it serves the reports; `lagging` (past READ_MAX_LAG_S) or `unavailable`: the
            primary serves them; `primary`: the URL found a server not in recovery, which serves. Example: ok.
        lag_seconds (float | None): How far behind the primary; null when unknown. Example: 0.2.
    """

    status: ReplicaReadyStatus
    lag_seconds: float | None

    def to_dict(self) -> dict[str, Any]:
        status: str = self.status

        lag_seconds: float | None
        lag_seconds = self.lag_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "status": status,
                "lag_seconds": lag_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = check_replica_ready_status(d.pop("status"))

        def _parse_lag_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lag_seconds = _parse_lag_seconds(d.pop("lag_seconds"))

        replica_ready = cls(
            status=status,
            lag_seconds=lag_seconds,
        )

        return replica_ready
