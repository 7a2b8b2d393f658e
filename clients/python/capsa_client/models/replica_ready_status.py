from typing import Literal

ReplicaReadyStatus = Literal["lagging", "ok", "primary", "unavailable"]

REPLICA_READY_STATUS_VALUES: set[ReplicaReadyStatus] = {
    "lagging",
    "ok",
    "primary",
    "unavailable",
}


def check_replica_ready_status(value: str) -> ReplicaReadyStatus:
    if value in REPLICA_READY_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REPLICA_READY_STATUS_VALUES!r}")
