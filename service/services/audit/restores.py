"""A restored database against the signed heads auditors kept (`capsa audit verify-restore`).

A backup restored is the database that was backed up only if every client's chain verifies
(as `capsa audit verify` checks it) and the chain still reaches every head the service
signed before the backup was taken. A chain that verifies but stops short of a kept head
lost its newest records: the restore, or the backup, dropped them. A chain whose record at
a head's sequence has another hash was rewritten or forked.

This module decides each head's outcome from the restored rows; the command reads the
files, verifies the chains and prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from service.adapters.uow import Database
from service.domain import audit as chain
from service.domain.export_check import SignedHead


class HeadOutcome(StrEnum):
    """What the restored chain says about one signed head."""

    REACHED = "reached"  # the record at the head's sequence has the head's hash
    MISSING = "missing"  # the restored chain has no record at the head's sequence
    FORKED = "forked"  # it has one, with another hash
    UNKNOWN_CLIENT = "unknown client"  # the database holds no client with the head's id


@dataclass(frozen=True)
class HeadCheck:
    head: SignedHead
    outcome: HeadOutcome
    client_name: str | None
    stored_hash: str | None = None  # the restored record's hash at the head's sequence
    first_missing: int | None = None  # MISSING: the first sequence the restored chain lacks

    @property
    def ok(self) -> bool:
        return self.outcome is HeadOutcome.REACHED

    def describe(self) -> str:
        h = self.head
        who = f"{self.client_name} ({h.client_id})" if self.client_name else repr(h.client_id)
        if self.outcome is HeadOutcome.REACHED:
            return f"signed head {h.label} of {who} reached: sequence {h.sequence}, hash {h.hash[:16]}..."
        if self.outcome is HeadOutcome.UNKNOWN_CLIENT:
            return (
                f"signed head {h.label} is of client {h.client_id!r}, which this database does not hold "
                "(a head of another service or database?)"
            )
        if self.outcome is HeadOutcome.MISSING:
            return (
                f"client {who}: first missing sequence {self.first_missing}: the restored chain does not "
                f"reach signed head {h.label} at sequence {h.sequence} (records lost in the backup or the restore)"
            )
        return (
            f"client {who}: fork at sequence {h.sequence}: signed head {h.label} has hash {h.hash[:16]}..., "
            f"the restored record there has {str(self.stored_hash)[:16]}... (the chain was rewritten or forked)"
        )


def check_head(db: Database, head: SignedHead, names: dict[str, str]) -> HeadCheck:
    """Whether the restored chain of the head's client passes through the head.

    `names` maps every client id in the database to its name. The head's signature was
    checked when it was read (`export_check.parse_head`)."""
    name = names.get(head.client_id)
    if name is None:
        return HeadCheck(head, HeadOutcome.UNKNOWN_CLIENT, None)
    if head.sequence == 0:
        ok = head.hash == chain.GENESIS_HASH
        return HeadCheck(head, HeadOutcome.REACHED if ok else HeadOutcome.FORKED, name, chain.GENESIS_HASH)
    with db.unit_of_work() as uow:
        stored = uow.chain.hash_before(head.client_id, head.sequence + 1)
        if stored is None:
            return HeadCheck(head, HeadOutcome.MISSING, name, None, uow.chain.first_missing(head.client_id))
    if stored != head.hash:
        return HeadCheck(head, HeadOutcome.FORKED, name, stored)
    return HeadCheck(head, HeadOutcome.REACHED, name, stored)


def client_names(db: Database) -> dict[str, str]:
    """Every client of the database: id -> name, oldest first."""
    with db.unit_of_work() as uow:
        return dict(uow.clients.names())


__all__ = ["HeadCheck", "HeadOutcome", "check_head", "client_names"]
