"""Clients and their API keys (stored as SHA-256 only)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import ApiKey, Client


class ClientRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, client: Client) -> None:
        self.session.add(client)

    def add_key(self, key: ApiKey) -> None:
        self.session.add(key)

    def by_name(self, name: str) -> Client | None:
        return self.session.scalar(select(Client).where(Client.name == name))

    def credentials(self, prefix: str) -> tuple[str, str, str, datetime | None] | None:
        """(key hash, client id, scope, revoked_at) of a key: columns only, no entity."""
        row = self.session.execute(
            select(ApiKey.key_hash, ApiKey.client_id, ApiKey.scope, ApiKey.revoked_at).where(
                ApiKey.prefix == prefix
            )
        ).first()
        return None if row is None else (row[0], row[1], row[2], row[3])

    def key_by_prefix(self, prefix: str) -> ApiKey | None:
        return self.session.scalar(select(ApiKey).where(ApiKey.prefix == prefix))

    def all(self) -> Sequence[Client]:
        return self.session.scalars(select(Client).order_by(Client.created_at, Client.name)).all()

    def names(self) -> list[tuple[str, str]]:
        """(id, name) of every client, oldest first: plain values, no entity."""
        rows = self.session.execute(select(Client.id, Client.name).order_by(Client.created_at, Client.name)).all()
        return [(str(r[0]), str(r[1])) for r in rows]

    def keys_of(self, client_id: str) -> Sequence[ApiKey]:
        return self.session.scalars(
            select(ApiKey).where(ApiKey.client_id == client_id).order_by(ApiKey.id)
        ).all()
