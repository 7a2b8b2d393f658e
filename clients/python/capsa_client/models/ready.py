from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.replica_ready import ReplicaReady


T = TypeVar("T", bound="Ready")


@_attrs_define
class Ready:
    """
    Attributes:
        status (str):  Example: ok.
        database (str):  Example: ok.
        replica (ReplicaReady | Unset):
    """

    status: str
    database: str
    replica: ReplicaReady | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        database = self.database

        replica: dict[str, Any] | Unset = UNSET
        if not isinstance(self.replica, Unset):
            replica = self.replica.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "status": status,
                "database": database,
            }
        )
        if replica is not UNSET:
            field_dict["replica"] = replica

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.replica_ready import ReplicaReady

        d = dict(src_dict)
        status = d.pop("status")

        database = d.pop("database")

        _replica = d.pop("replica", UNSET)
        replica: ReplicaReady | Unset
        if isinstance(_replica, Unset):
            replica = UNSET
        else:
            replica = ReplicaReady.from_dict(_replica)

        ready = cls(
            status=status,
            database=database,
            replica=replica,
        )

        return ready
