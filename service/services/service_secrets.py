"""The service's own secrets, kept in the database (`service_secrets`): made by the first
caller that needs one, then the same for every worker, host and restart."""

from __future__ import annotations

from service.adapters.uow import Database
from service.services.clock import utcnow_ms


def stored(db: Database, name: str) -> str:
    """The named secret (64 hex digits), made once."""
    with db.unit_of_work(write=True) as uow:
        value = uow.secrets.get_or_create(name, utcnow_ms())
        uow.commit()
    return value


__all__ = ["stored"]
