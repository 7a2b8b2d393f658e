"""The service's own secrets kept in the database (`service_secrets`): made once, read by all.

The secret that signs round view links is one, the key of the shown webhook attempt ids another:
every worker and host reads the same value,
and the first to need it makes it (an insert that does nothing when another came first).
"""

from __future__ import annotations

import secrets as _secrets
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from .models import ServiceSecret


def _insert(session: Session, table: Any) -> Any:
    return (postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert)(table)


class SecretRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get_or_create(self, name: str, now: datetime) -> str:
        """The named secret, made once (the first writer wins; everyone reads the same)."""
        conn = self.session.connection()
        conn.execute(
            _insert(self.session, ServiceSecret)
            .values(name=name, value=_secrets.token_hex(32), created_at=now)
            .on_conflict_do_nothing(index_elements=["name"])
        )
        return str(conn.execute(select(ServiceSecret.value).where(ServiceSecret.name == name)).scalar_one())
