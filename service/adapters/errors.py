"""Storage failures as the service layer sees them, free of SQLAlchemy types."""

from __future__ import annotations


class StorageError(Exception):
    """Base of the adapter errors."""


class DatabaseUnavailable(StorageError):
    """The database cannot be reached or refused the connection; retry later."""


class UniqueViolation(StorageError):
    """A unique constraint refused a row; `constraint` names it when the driver says."""

    def __init__(self, constraint: str | None, message: str) -> None:
        super().__init__(message)
        self.constraint = constraint
