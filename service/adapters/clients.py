"""Clients and their API keys (stored as SHA-256 only).

The repository takes plain values and hands back frozen records (`ClientRecord`,
`KeyRecord`, `Credentials`): no ORM row leaves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from .models import ApiKey, Client
from .translate import translated


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """A key as listed: its visible prefix, scope and times (never its hash)."""

    prefix: str
    scope: str
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class ClientRecord:
    id: str
    name: str
    created_at: datetime
    keys: tuple[KeyRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class Credentials:
    """What authenticating a key needs: its stored hash, client, scope and revocation."""

    key_hash: str
    client_id: str
    scope: str
    revoked_at: datetime | None


class ClientRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, client_id: str, name: str, created_at: datetime) -> None:
        """A new client; UniqueViolation when the name is taken (checked now, not at commit)."""
        with translated(), self.session.begin_nested():
            self.session.execute(insert(Client).values(id=client_id, name=name, created_at=created_at))

    def add_key(self, client_id: str, prefix: str, key_hash: str, scope: str, created_at: datetime) -> None:
        with translated(), self.session.begin_nested():
            self.session.execute(
                insert(ApiKey).values(
                    client_id=client_id, prefix=prefix, key_hash=key_hash, scope=scope, created_at=created_at
                )
            )

    def lock(self, client_id: str) -> None:
        """Hold the client's row to commit (FOR NO KEY UPDATE: rows referring to it may still
        be written), so that a check across the client's rows and the write it allows take
        their turns with the client's other such requests."""
        self.session.execute(select(Client.id).where(Client.id == client_id).with_for_update(key_share=True))

    def id_by_name(self, name: str) -> str | None:
        found = self.session.scalar(select(Client.id).where(Client.name == name))
        return None if found is None else str(found)

    def credentials(self, prefix: str) -> Credentials | None:
        """The key with this prefix, as authentication needs it: columns only, no entity."""
        row = self.session.execute(
            select(ApiKey.key_hash, ApiKey.client_id, ApiKey.scope, ApiKey.revoked_at).where(
                ApiKey.prefix == prefix
            )
        ).first()
        return None if row is None else Credentials(row[0], row[1], row[2], row[3])

    def key(self, prefix: str) -> KeyRecord | None:
        row = self.session.execute(
            select(ApiKey.prefix, ApiKey.scope, ApiKey.created_at, ApiKey.revoked_at).where(ApiKey.prefix == prefix)
        ).first()
        return None if row is None else KeyRecord(row[0], row[1], row[2], row[3])

    def revoke(self, prefix: str, at: datetime) -> bool:
        """Revoke the key with this prefix at `at` unless it is revoked already (its first
        revocation stands); False when no key has that prefix."""
        if self.key(prefix) is None:
            return False
        self.session.execute(
            update(ApiKey).where(ApiKey.prefix == prefix, ApiKey.revoked_at.is_(None)).values(revoked_at=at)
        )
        return True

    def all(self) -> list[ClientRecord]:
        """Every client, oldest first, with its keys in the order they were made."""
        keys: dict[str, list[KeyRecord]] = {}
        for client_id, prefix, scope, created, revoked in self.session.execute(
            select(ApiKey.client_id, ApiKey.prefix, ApiKey.scope, ApiKey.created_at, ApiKey.revoked_at).order_by(
                ApiKey.id
            )
        ):
            keys.setdefault(client_id, []).append(KeyRecord(prefix, scope, created, revoked))
        rows = self.session.execute(
            select(Client.id, Client.name, Client.created_at).order_by(Client.created_at, Client.name)
        ).all()
        return [ClientRecord(r[0], r[1], r[2], tuple(keys.get(r[0], ()))) for r in rows]

    def names(self) -> list[tuple[str, str]]:
        """(id, name) of every client, oldest first: plain values, no entity."""
        rows = self.session.execute(select(Client.id, Client.name).order_by(Client.created_at, Client.name)).all()
        return [(str(r[0]), str(r[1])) for r in rows]
