"""Clients and API keys: create, add, revoke, list, and authenticate a Bearer key."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from service.adapters.clients import ClientRecord, KeyRecord
from service.adapters.errors import UniqueViolation
from service.adapters.uow import Database
from service.services.clock import new_id, utcnow_ms
from service.services.errors import InvalidInput, NotFound, Unauthorized


class Scope(StrEnum):
    """What a key may do: read, or read and write."""

    READ = "read"
    WRITE = "write"


_NAME = re.compile(r"[A-Za-z0-9._:-]{1,64}")
# capsa_<8 hex prefix>_<43 urlsafe chars = 256 random bits>
UNKNOWN = "unknown API key"
_KEY = re.compile(r"capsa_([0-9a-f]{8})_[A-Za-z0-9_-]{43}")
_SPACE = re.compile(r"\s")  # the characters str.isspace() names, found in C
# Keys are looked up at most this often per worker: revoking a key takes effect on every
# worker within this many seconds (API_KEY_CACHE_SECONDS).
CACHE_SECONDS = 5.0
CACHE_SIZE = 10_000


@dataclass(frozen=True)
class Principal:
    """Who is calling: the client and the key's scope."""

    client_id: str
    scope: Scope
    key_prefix: str


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class NewKey:
    """A key as made: what is stored (its prefix and hash) and the key in clear, shown once."""

    prefix: str
    key_hash: str
    plain: str


def _new_key() -> NewKey:
    prefix = secrets.token_hex(4)
    plain = f"capsa_{prefix}_{secrets.token_urlsafe(32)}"
    return NewKey(prefix, hash_key(plain), plain)


def create_client(db: Database, name: str, hand_over: Callable[[str, str], None] | None = None) -> tuple[str, str]:
    """A new client and its first `write` key: `(client id, the key in clear)`. The key is
    seen once: `hand_over(client id, key)` shows it before the commit, and if it cannot
    (it raises), nothing is made."""
    if not _NAME.fullmatch(name):
        raise InvalidInput(f"client name {name!r} must match ^[A-Za-z0-9._:-]{{1,64}}$")
    now = utcnow_ms()
    client_id = new_id("cl", now)
    key = _new_key()
    with db.unit_of_work(write=True) as uow:
        try:
            uow.clients.add(client_id, name, now)
        except UniqueViolation as exc:
            raise InvalidInput(f"a client named {name!r} already exists") from exc
        uow.chain.create_head(client_id)
        uow.clients.add_key(client_id, key.prefix, key.key_hash, Scope.WRITE, now)
        if hand_over is not None:
            hand_over(client_id, key.plain)
        uow.commit()
    return client_id, key.plain


def add_key(db: Database, name: str, scope: str = Scope.WRITE, hand_over: Callable[[str], None] | None = None) -> str:
    """Another key for the client `name`; returns it in clear (the only time it is seen),
    shown first by `hand_over(key)` before the commit, as `create_client` does."""
    if scope not in (Scope.READ, Scope.WRITE):
        raise InvalidInput(f"scope {scope!r} must be read or write")
    key = _new_key()
    with db.unit_of_work(write=True) as uow:
        client_id = uow.clients.id_by_name(name)
        if client_id is None:
            raise NotFound(f"no client named {name!r}")
        uow.clients.add_key(client_id, key.prefix, key.key_hash, scope, utcnow_ms())
        if hand_over is not None:
            hand_over(key.plain)
        uow.commit()
    return key.plain


def revoke_key(db: Database, prefix: str) -> None:
    """Revoke the key with this visible prefix (it answers 401 from now on)."""
    with db.unit_of_work(write=True) as uow:
        if not uow.clients.revoke(prefix, utcnow_ms()):
            raise NotFound(f"no key with prefix {prefix!r}")
        uow.commit()


def client_id(db: Database, name: str) -> str | None:
    """The id of the client named `name`; None when there is none."""
    with db.unit_of_work() as uow:
        return uow.clients.id_by_name(name)


def key(db: Database, prefix: str) -> KeyRecord | None:
    """The key with this visible prefix (scope and times; never its hash), or None."""
    with db.unit_of_work() as uow:
        return uow.clients.key(prefix)


def list_clients(db: Database) -> list[ClientRecord]:
    """Every client, oldest first, each with its keys in the order they were made."""
    with db.unit_of_work() as uow:
        return uow.clients.all()


class KeyCache:
    """What each key (by its hash) was found to be, per worker, for `CACHE_SECONDS`.

    Unknown and revoked keys are remembered too, so a wrong key does not cost a database
    query on every request. Bounded: the least recently used entries go first.
    """

    def __init__(
        self, seconds: float = CACHE_SECONDS, size: int = CACHE_SIZE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self.size = size
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float, Principal | str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key_hash: str) -> Principal | str | None:
        """The principal, or the reason the key is refused; None when not known (any more)."""
        with self._lock:
            found = self._entries.get(key_hash)
            if found is None:
                return None
            if found[0] <= self.clock():
                del self._entries[key_hash]
                return None
            self._entries.move_to_end(key_hash)
            return found[1]

    def put(self, key_hash: str, value: Principal | str) -> None:
        if self.seconds <= 0:
            return
        with self._lock:
            self._entries[key_hash] = (self.clock() + self.seconds, value)
            self._entries.move_to_end(key_hash)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def authenticate(db: Database, authorization: str | None, cache: KeyCache | None = None) -> Principal:
    """The principal of an `Authorization: Bearer <key>` header, or Unauthorized."""
    if not authorization:
        raise Unauthorized("an API key is required: Authorization: Bearer <key>")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or _SPACE.search(token):
        raise Unauthorized("the Authorization header must be 'Bearer <API key>'")
    match = _KEY.fullmatch(token)
    if match is None:
        # A well-formed header whose token is no key this service could have issued.
        raise Unauthorized(UNKNOWN)
    digest = hash_key(token)
    known = None if cache is None else cache.get(digest)
    if known is None:
        known = _look_up(db, match.group(1), digest)
        if cache is not None:
            cache.put(digest, known)
    if isinstance(known, str):
        raise Unauthorized(known)
    return known


def _look_up(db: Database, prefix: str, digest: str) -> Principal | str:
    with db.unit_of_work() as uow:
        found = uow.clients.credentials(prefix)
    # Looked up by the public prefix, then compared in constant time on the hash.
    if found is None or not hmac.compare_digest(found.key_hash, digest):
        return UNKNOWN
    if found.revoked_at is not None:
        return "this API key has been revoked"
    return Principal(found.client_id, Scope(found.scope), prefix)
