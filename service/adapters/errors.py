"""Storage failures as the service layer sees them, free of SQLAlchemy and driver types.

Each integrity error is named for what it is, with the constraint the database named, so
a caller (and a test) can tell a used reference from an unbalanced record.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base of the adapter errors."""


class DatabaseUnavailable(StorageError):
    """The database cannot be reached, refused the connection, or cancelled a statement
    that ran past its timeout; retry later."""


class CommitNotReplicated(DatabaseUnavailable):
    """The commit's wait for the synchronous standby was cancelled (at the write deadline,
    or by the server): the rows are stored on the primary only, so the write is not
    acknowledged; its retry with the same Idempotency-Key replays it."""


class LockTimeout(StorageError):
    """A row lock (or another request's uncommitted Idempotency-Key) was not released in time.
    `relation` names the table or index waited on, when the database says."""

    def __init__(self, message: str, relation: str | None = None) -> None:
        super().__init__(message)
        self.relation = relation

    @property
    def on_key(self) -> bool:
        """The wait may have been for another request's Idempotency-Key (it was, or the
        database did not say where it waited)."""
        return self.relation is None or "idempotency" in self.relation

    @property
    def on_reference(self) -> bool:
        """The wait was for a round's or game's uncommitted reference (`client_references`)."""
        return self.relation is not None and "client_references" in self.relation


class IntegrityViolation(StorageError):
    """The database refused a row; `constraint` names the constraint when the driver says."""

    def __init__(self, constraint: str | None, message: str) -> None:
        super().__init__(message)
        self.constraint = constraint


class UniqueViolation(IntegrityViolation):
    """A unique constraint refused a row (a used reference, a second void, a taken nonce)."""


class ReferenceUsed(UniqueViolation):
    """Another round of the client holds the new round's reference."""


class SecondVoid(UniqueViolation):
    """The round is voided already: a round has at most one void record."""


class ForeignKeyViolation(IntegrityViolation):
    """A row names a parent row that does not exist."""


class CheckViolation(IntegrityViolation):
    """A check refused a row; `ledger_lines_balanced`: a record's lines do not sum to zero."""


class NotNullViolation(IntegrityViolation):
    """A required column was left empty."""


class SerializationFailure(DatabaseUnavailable):
    """SQLSTATE 40001: on a standby, a recovery conflict cancelled the read (the primary
    removed rows the snapshot still needed); the same read may pass on a retry. Reports
    retry it once, then read the primary; anywhere else it is a 503 like any outage."""


class NumericOverflow(StorageError):
    """A number beyond the 64-bit integers the database stores or sums: permanent, so never
    answered as `unavailable` (a client would retry it forever)."""


class KeyTaken(StorageError):
    """The Idempotency-Key already answered a committed request; read what it stored."""


class DealUsed(StorageError):
    """The deal was used before (by a round or a game); it is used at most once."""


class ReferenceHeld(StorageError):
    """The new round's reference is taken: by a Capsa Susun game (whose own round will carry
    it) or by another round."""


BALANCED = "ledger_lines_balanced"
