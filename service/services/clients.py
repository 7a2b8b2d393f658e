"""Clients and API keys: create, add, revoke, list, and authenticate a Bearer key."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from service.adapters.errors import UniqueViolation
from service.adapters.models import ApiKey, Client
from service.adapters.uow import Database

from .errors import InvalidInput, NotFound, Unauthorized
from .ids import new_id, utcnow_ms

READ = "read"
WRITE = "write"
_NAME = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# capsa_<8 hex prefix>_<43 urlsafe chars = 256 random bits>
_KEY = re.compile(r"^capsa_([0-9a-f]{8})_[A-Za-z0-9_-]{43}$")


@dataclass(frozen=True)
class Principal:
    """Who is calling: the client and the key's scope."""

    client_id: str
    scope: str
    key_prefix: str


@dataclass(frozen=True)
class KeyInfo:
    prefix: str
    scope: str
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True)
class ClientInfo:
    id: str
    name: str
    created_at: datetime
    keys: list[KeyInfo]


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _new_key(client_id: str, scope: str, now: datetime) -> tuple[ApiKey, str]:
    prefix = secrets.token_hex(4)
    plain = f"capsa_{prefix}_{secrets.token_urlsafe(32)}"
    key = ApiKey(client_id=client_id, prefix=prefix, key_hash=hash_key(plain), scope=scope, created_at=now)
    return key, plain


def create_client(db: Database, name: str) -> tuple[str, str]:
    """A new client and its first `write` key: `(client id, the key in clear)`."""
    if not _NAME.match(name):
        raise InvalidInput(f"client name {name!r} must match ^[A-Za-z0-9._:-]{{1,64}}$")
    now = utcnow_ms()
    client = Client(id=new_id("cl", now), name=name, created_at=now)
    with db.unit_of_work(write=True) as uow:
        uow.clients.add(client)
        try:
            uow.flush()
        except UniqueViolation as exc:
            raise InvalidInput(f"a client named {name!r} already exists") from exc
        uow.chain.create_head(client.id)
        key, plain = _new_key(client.id, WRITE, now)
        uow.clients.add_key(key)
        uow.commit()
    return client.id, plain


def add_key(db: Database, name: str, scope: str = WRITE) -> str:
    """Another key for the client `name`; returns it in clear (the only time it is seen)."""
    if scope not in (READ, WRITE):
        raise InvalidInput(f"scope {scope!r} must be read or write")
    with db.unit_of_work(write=True) as uow:
        client = uow.clients.by_name(name)
        if client is None:
            raise NotFound(f"no client named {name!r}")
        key, plain = _new_key(client.id, scope, utcnow_ms())
        uow.clients.add_key(key)
        uow.commit()
    return plain


def revoke_key(db: Database, prefix: str) -> None:
    """Revoke the key with this visible prefix (it answers 401 from now on)."""
    with db.unit_of_work(write=True) as uow:
        key = uow.clients.key_by_prefix(prefix)
        if key is None:
            raise NotFound(f"no key with prefix {prefix!r}")
        if key.revoked_at is None:
            key.revoked_at = utcnow_ms()
        uow.commit()


def list_clients(db: Database) -> list[ClientInfo]:
    with db.unit_of_work() as uow:
        return [
            ClientInfo(
                c.id,
                c.name,
                c.created_at,
                [KeyInfo(k.prefix, k.scope, k.created_at, k.revoked_at) for k in uow.clients.keys_of(c.id)],
            )
            for c in uow.clients.all()
        ]


def authenticate(db: Database, authorization: str | None) -> Principal:
    """The principal of an `Authorization: Bearer <key>` header, or Unauthorized."""
    if not authorization:
        raise Unauthorized("an API key is required: Authorization: Bearer <key>")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    match = _KEY.match(token)
    if scheme.lower() != "bearer" or match is None:
        raise Unauthorized("the Authorization header must be 'Bearer <API key>'")
    with db.unit_of_work() as uow:
        found = uow.clients.credentials(match.group(1))
    # Looked up by the public prefix, then compared in constant time on the hash.
    if found is None or not hmac.compare_digest(found[0], hash_key(token)):
        raise Unauthorized("unknown API key")
    key_hash, client_id, scope, revoked_at = found
    if revoked_at is not None:
        raise Unauthorized("this API key has been revoked")
    return Principal(client_id, scope, match.group(1))
