from typing import Literal

ReadyReplication = Literal["ASYNCHRONOUS", "SYNCHRONOUS", "UNKNOWN", "WAITING"]

READY_REPLICATION_VALUES: set[ReadyReplication] = {
    "ASYNCHRONOUS",
    "SYNCHRONOUS",
    "UNKNOWN",
    "WAITING",
}


def check_ready_replication(value: str) -> ReadyReplication:
    if value in READY_REPLICATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {READY_REPLICATION_VALUES!r}")
