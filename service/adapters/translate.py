"""Driver and SQLAlchemy errors as adapter errors (`errors.py`), named for what they are."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import psycopg
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError

from . import chain_pg
from .db import READ_ONLY
from .errors import (
    BALANCED,
    CheckViolation,
    DatabaseUnavailable,
    DealUsed,
    ForeignKeyViolation,
    IntegrityViolation,
    KeyTaken,
    LockTimeout,
    NotNullViolation,
    NumericOverflow,
    ReferenceHeld,
    ReferenceUsed,
    SecondVoid,
    SerializationFailure,
    StorageError,
    UniqueViolation,
)

# SQLite names columns, not constraints, in its messages.
_SQLITE_CONSTRAINTS = {
    "rounds.client_id, rounds.reference": "uq_rounds_client_reference",
    "client_references.client_id, client_references.reference": "pk_client_references",
    "chain_records.round_id": "uq_chain_records_void",
    "chain_records.client_id, chain_records.sequence": "pk_chain_records",
    "idempotency_records.client_id": "uq_idempotency_client_method_path_key",
    "deals.client_id, deals.nonce": "uq_deals_client_nonce",
    "ledger_lines.client_id, ledger_lines.sequence": "pk_ledger_lines",
    "rounds.id": "pk_rounds",
    "clients.name": "uq_clients_name",
}
# The unique constraints whose refusal the services answer as what it means.
_UNIQUE_CLASSES: dict[str | None, type[UniqueViolation]] = {
    "uq_rounds_client_reference": ReferenceUsed,
    "pk_client_references": ReferenceUsed,  # taken by another round or a game
    "uq_chain_records_void": SecondVoid,
}
_SQLSTATE_CLASSES: dict[str, type[IntegrityViolation]] = {
    "23505": UniqueViolation,
    "23503": ForeignKeyViolation,
    "23514": CheckViolation,
    "23502": NotNullViolation,
}


# Where a lock timeout waited, from PostgreSQL's context: 'while locking tuple (0,1) in
# relation "chain_heads"', 'while inserting index tuple (0,4) in relation "<index>"'.
_RELATION = re.compile(r'in relation "([^"]+)"')


def _driver_error(orig: BaseException) -> StorageError | None:
    """The adapter error for a psycopg or sqlite3 error, or None when it is not one we know."""
    state = getattr(orig, "sqlstate", None)
    if state is not None:  # psycopg
        diag = getattr(orig, "diag", None)
        constraint = getattr(diag, "constraint_name", None)
        message = str(orig).strip()
        if state == "23505":
            return _UNIQUE_CLASSES.get(constraint, UniqueViolation)(constraint, message)
        if state in _SQLSTATE_CLASSES:
            return _SQLSTATE_CLASSES[state](constraint, message)
        if state == chain_pg.KEY_TAKEN:
            return KeyTaken(message)
        if state == chain_pg.DEAL_USED:
            return DealUsed(message)
        if state == chain_pg.REFERENCE_HELD:
            return ReferenceHeld(message)
        if state == "22003":  # numeric_value_out_of_range
            return NumericOverflow(message)
        if state == "40001":  # serialization_failure: a standby's recovery conflict
            return SerializationFailure(message)
        if state == "55P03":  # lock_not_available: lock_timeout
            waited = _RELATION.search(getattr(diag, "context", None) or "")
            return LockTimeout(message, None if waited is None else waited.group(1))
        if state.startswith("08") or state in ("57014", "57P01", "57P02", "57P03", "53300", READ_ONLY):
            # connection lost, statement timeout, server shutting down, too many connections,
            # a read-only node (a standby now, or a pooler pointing at one): retry on the primary
            return DatabaseUnavailable(message)
        return None
    message = str(orig)
    if type(orig).__name__ == "IntegrityError":  # sqlite3
        if message.startswith("UNIQUE constraint failed"):
            name = next((c for needle, c in _SQLITE_CONSTRAINTS.items() if needle in message), None)
            return _UNIQUE_CLASSES.get(name, UniqueViolation)(name, message)
        if "FOREIGN KEY" in message:
            return ForeignKeyViolation(None, message)
        if "NOT NULL" in message:
            return NotNullViolation(None, message)
        if BALANCED in message or "CHECK" in message:
            return CheckViolation(BALANCED if BALANCED in message else None, message)
        return IntegrityViolation(None, message)
    if type(orig).__name__ == "OperationalError":  # sqlite3: locked, disk I/O, cannot open
        if message == "integer overflow":  # sum() past 2^63: the same answer on every retry
            return NumericOverflow(message)
        return DatabaseUnavailable(message)
    return None


def translate(exc: BaseException) -> BaseException | None:
    """The adapter error for a SQLAlchemy or driver error, or None when it is not one."""
    if isinstance(exc, StorageError):
        return None
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        found = _driver_error(exc.orig)
        if found is not None:
            return found
        if isinstance(exc, IntegrityError):
            return IntegrityViolation(None, str(exc.orig))
        if isinstance(exc, (OperationalError, InterfaceError)):
            return DatabaseUnavailable(str(exc.orig))
        return None
    if isinstance(exc, OverflowError):  # sqlite3 binding an int beyond 64 bits
        return NumericOverflow(str(exc))
    if isinstance(exc, psycopg.Error):
        found = _driver_error(exc)
        if found is None and isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
            return DatabaseUnavailable(str(exc))
        return found
    return None


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Re-raise driver and SQLAlchemy errors as adapter errors."""
    try:
        yield
    except Exception as exc:
        found = translate(exc)
        if found is None:
            raise
        raise found from exc
