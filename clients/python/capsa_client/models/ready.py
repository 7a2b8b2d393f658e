from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.ready_replication import ReadyReplication, check_ready_replication
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
        replication (ReadyReplication | Unset): PostgreSQL only: `synchronous` (a standby acknowledges every commit),
            `waiting` (a synchronous standby is named but not streaming: writes answer 503 at the write deadline),
            `asynchronous` (degraded: one node, e.g. pg_auto_failover's wait_primary) or `unknown` (the role cannot read
            pg_stat_replication: grant it pg_monitor). Example: synchronous.
        standbys (int | Unset): PostgreSQL only: streaming standbys of this primary. Example: 1.
        replica (ReplicaReady | Unset):
    """

    status: str
    database: str
    replication: ReadyReplication | Unset = UNSET
    standbys: int | Unset = UNSET
    replica: ReplicaReady | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        database = self.database

        replication: str | Unset = UNSET
        if not isinstance(self.replication, Unset):
            replication = self.replication

        standbys = self.standbys

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
        if replication is not UNSET:
            field_dict["replication"] = replication
        if standbys is not UNSET:
            field_dict["standbys"] = standbys
        if replica is not UNSET:
            field_dict["replica"] = replica

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.replica_ready import ReplicaReady

        d = dict(src_dict)
        status = d.pop("status")

        database = d.pop("database")

        _replication = d.pop("replication", UNSET)
        replication: ReadyReplication | Unset
        if isinstance(_replication, Unset):
            replication = UNSET
        else:
            replication = check_ready_replication(_replication)

        standbys = d.pop("standbys", UNSET)

        _replica = d.pop("replica", UNSET)
        replica: ReplicaReady | Unset
        if isinstance(_replica, Unset):
            replica = UNSET
        else:
            replica = ReplicaReady.from_dict(_replica)

        ready = cls(
            status=status,
            database=database,
            replication=replication,
            standbys=standbys,
            replica=replica,
        )

        return ready
