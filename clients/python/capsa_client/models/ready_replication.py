from typing import Literal

ReadyReplication = Literal["asynchronous", "synchronous", "unknown", "waiting"]

READY_REPLICATION_VALUES: set[ReadyReplication] = {
    "asynchronous",
    "synchronous",
    "unknown",
    "waiting",
}


def check_ready_replication(value: str) -> ReadyReplication:
    if value in READY_REPLICATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {READY_REPLICATION_VALUES!r}")
