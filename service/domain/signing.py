"""Ed25519 receipts and signed heads: the exact messages, the keyring, signing and checking.

A receipt is the service's signature over one record's place in a client's chain; a signed
head over the chain's last record at a moment. Both messages are plain UTF-8 text, so an
auditor can rebuild them with any tool:

    capsa-audit-v1\\n{client_id}\\n{sequence}\\n{hash}\\n
    capsa-head-v1\\n{client_id}\\n{sequence}\\n{hash}\\n{signed_at}\\n

`sequence` in decimal, `hash` as 64 lowercase hex digits, `signed_at` RFC 3339 UTC with
milliseconds (`2026-12-01T10:00:00.000Z`). Signatures, public keys and private keys travel
as unpadded base64url (RFC 4648 section 5). A key's `kid` is the first 16 hex digits of
SHA-256 over its 32 raw public-key bytes, so anyone holding the key can check its name.

Ed25519 signatures are deterministic: the same key and message always give the same bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from .audit import timestamp
from .errors import CapsaError

ALGORITHM = "Ed25519"
RECEIPT_CONTEXT = "capsa-audit-v1"
HEAD_CONTEXT = "capsa-head-v1"
KEYRING_FORMAT = "capsa-keyring-v1"
_HASH = re.compile(r"[0-9a-f]{64}")
_KID = re.compile(r"[0-9a-f]{16}")


class KeyringError(CapsaError):
    """A keyring or public-key document that cannot be used."""


def receipt_message(client_id: str, sequence: int, hash_: str) -> bytes:
    """The bytes a record's receipt signs.

    >>> receipt_message("cli_1", 7, "ab" * 32)[:23]
    b'capsa-audit-v1\\ncli_1\\n7\\n'
    """
    _check(client_id, sequence, hash_)
    return f"{RECEIPT_CONTEXT}\n{client_id}\n{sequence}\n{hash_}\n".encode()


def head_message(client_id: str, sequence: int, hash_: str, signed_at: str) -> bytes:
    """The bytes a signed head signs (`signed_at` as `timestamp` writes it)."""
    _check(client_id, sequence, hash_)
    return f"{HEAD_CONTEXT}\n{client_id}\n{sequence}\n{hash_}\n{signed_at}\n".encode()


def _check(client_id: str, sequence: int, hash_: str) -> None:
    if not client_id or "\n" in client_id:
        raise ValueError(f"bad client id {client_id!r}")
    if type(sequence) is not int or sequence < 0:
        raise ValueError(f"bad sequence {sequence!r}")
    if not _HASH.fullmatch(hash_):
        raise ValueError(f"bad hash {hash_!r}")


def b64(data: bytes) -> str:
    """Unpadded base64url."""
    digits = base64.urlsafe_b64encode(data).rstrip(b"=")
    return digits.decode("ascii")  # pragma: no mutate (codec names ignore case: "ASCII" is this codec)


def unb64(text: str, *, padded: bool = True) -> bytes:
    """The bytes of unpadded (or, with `padded`, padded) base64url; ValueError when it is
    not. A signature in an export line or a signed head is read with `padded=False`: the
    service writes it unpadded, and the same bytes padded would be another document."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_-]*={0,2}" if padded else r"[A-Za-z0-9_-]*", text):
        raise ValueError(f"not {'' if padded else 'unpadded '}base64url: {text!r}")
    try:
        # The decoder ignores "=" beyond what it needs, so +len(text) % 4 (three where one is due)
        # decodes alike; padding made up to another multiple is tested (a ten-digit text).
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))  # pragma: no mutate
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"not base64url: {text!r}") from exc
    if b64(data) != text.rstrip("="):  # unused low bits set: another text for the same bytes
        raise ValueError(f"not canonical base64url: {text!r}")
    return data


def kid_of(public: bytes) -> str:
    """The key id: the first 16 hex digits of SHA-256 over the raw public key."""
    return hashlib.sha256(public).hexdigest()[:16]


CLOCK_SKEW = timedelta(seconds=5)  # a node's clock behind the host that made a key
ROTATION_GRACE = timedelta(minutes=10)  # a retired key still signs until every node restarts onto the new one


def _moment(stamp: str) -> datetime:
    at = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    if at.tzinfo is None:
        raise ValueError(f"{stamp!r} names no instant")
    return at


@dataclass(frozen=True)
class SigningKey:
    """One key of the keyring; `private` is None for a key kept only to check signatures."""

    kid: str
    public: bytes
    created_at: str
    retired_at: str | None = None
    private: bytes | None = None

    def sign(self, message: bytes) -> bytes:
        if self.private is None:
            raise KeyringError(f"key {self.kid!r} has no private part")
        return Ed25519PrivateKey.from_private_bytes(self.private).sign(message)

    def public_json(self) -> dict[str, Any]:
        return {
            "kid": self.kid,
            "algorithm": ALGORITHM,
            "public_key": b64(self.public),
            "created_at": self.created_at,
            "retired_at": self.retired_at,
        }


def new_key(now: datetime) -> SigningKey:
    """A fresh Ed25519 key made at `now`."""
    private = Ed25519PrivateKey.generate()
    raw = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return SigningKey(kid_of(public), public, timestamp(now), None, raw)


class Keyring:
    """The service's keys, oldest first. New signatures use the active key (the newest one
    not retired); every key, retired or not, still checks the signatures it made."""

    def __init__(self, keys: Iterable[SigningKey] = ()) -> None:
        self.keys: tuple[SigningKey, ...] = tuple(sorted(keys, key=lambda k: (k.created_at, k.kid)))
        self._by_kid = {k.kid: k for k in self.keys}
        if len(self._by_kid) != len(self.keys):
            raise KeyringError("two keys share a kid")
        # Keys are immutable and few: their parsed forms are cached once.
        self._signers = {k.kid: Ed25519PrivateKey.from_private_bytes(k.private) for k in self.keys if k.private}
        self._verifiers = {k.kid: Ed25519PublicKey.from_public_bytes(k.public) for k in self.keys}

    def __len__(self) -> int:
        return len(self.keys)

    def get(self, kid: str) -> SigningKey | None:
        return self._by_kid.get(kid)

    @property
    def active(self) -> SigningKey | None:
        live = [k for k in self.keys if k.retired_at is None and k.private is not None]
        return live[-1] if live else None

    def sign(self, message: bytes, kid: str | None = None) -> tuple[str, bytes]:
        """(kid, signature) with the active key, or with `kid`."""
        key = self.active if kid is None else self._by_kid.get(kid)
        if key is None or key.kid not in self._signers:
            raise KeyringError("no key to sign with" if kid is None else f"key {kid!r} cannot sign")
        return key.kid, self._signers[key.kid].sign(message)

    def key_at(self, moment: str) -> SigningKey | None:
        """The key that signed new records at `moment` (an RFC 3339 UTC stamp): the newest
        key made at or before it, else the oldest key (a record older than every key).
        Re-signing a record whose stored signature was lost thus gives the bytes the service
        answered when it was stored. Where that key is kept public only, the newest key with
        a private part that `may_sign` at `moment` stands in (one not yet retired then), else
        None: no key here makes a receipt a verifier would accept."""
        if not self.keys:
            return None
        before = [k for k in self.keys if k.created_at <= moment]
        own = before[-1] if before else self.keys[0]
        if own.private is not None:
            return own
        able = [k for k in reversed(self.keys) if k.private is not None and self.may_sign(k.kid, moment)]
        return able[0] if able else None

    def may_sign(self, kid: str, moment: str) -> bool:
        """Whether key `kid` is one the service signs with at `moment` (a record's or a head's
        RFC 3339 time): made by then (within `CLOCK_SKEW`), or the oldest key (it signs the
        records older than every key), and not retired before it (but for ROTATION_GRACE,
        while every node restarts onto the new key). So a retired key, leaked, cannot sign
        a record or a head of a later time that a verifier accepts."""
        key = self.get(kid)
        if key is None:
            return False
        try:
            # The margins go on the record's side: a key's date at either end of the calendar
            # (0001-01-01, 9999-12-31) is a date, not an overflow.
            at = _moment(moment)
            if at + CLOCK_SKEW < _moment(key.created_at) and key is not self.keys[0]:
                return False
            return key.retired_at is None or at - ROTATION_GRACE < _moment(key.retired_at)
        except (ValueError, OverflowError):  # a record's own time at the calendar's end
            return False

    def verify(self, kid: str, message: bytes, signature: bytes) -> bool:
        verifier = self._verifiers.get(kid)
        if verifier is None:
            return False
        try:
            verifier.verify(signature, message)
        except InvalidSignature:
            return False
        return True

    def rotated(self, now: datetime) -> tuple[Keyring, SigningKey]:
        """This keyring with a new active key, the one before retired at `now`."""
        stamp = timestamp(now)
        key = new_key(now)
        kept = [k if k.retired_at is not None else replace(k, retired_at=stamp) for k in self.keys]
        return Keyring([*kept, key]), key

    # -- documents ------------------------------------------------------------------------------

    def public_json(self) -> dict[str, Any]:
        """The public keys, as `GET /v1/audit/keys` serves them and the offline verifier reads."""
        return {"keys": [k.public_json() for k in self.keys]}

    def private_json(self) -> dict[str, Any]:
        """The keyring file's document (`SIGNING_KEY_FILE`)."""
        out = []
        for k in self.keys:
            entry = k.public_json()
            if k.private is not None:
                entry["private_key"] = b64(k.private)
            out.append(entry)
        return {"format": KEYRING_FORMAT, "keys": out}

    @classmethod
    def from_json(cls, doc: Any, *, public_only: bool = False) -> Keyring:
        """A keyring from its file document or a public-key document (`{"keys": [...]}`);
        KeyringError names the first entry that is wrong."""
        if not isinstance(doc, Mapping) or not isinstance(doc.get("keys"), list):
            raise KeyringError('a key document is an object with a "keys" list')
        keys = []
        for n, entry in enumerate(doc["keys"]):
            try:
                keys.append(_key(entry, public_only))
            except KeyError as exc:  # a field it must have: its repr alone read as nothing
                raise KeyringError(f'keys[{n}]: no "{exc.args[0]}"') from exc
            except (ValueError, TypeError) as exc:
                raise KeyringError(f"keys[{n}]: {exc}") from exc
        return cls(keys)


def _key(entry: Any, public_only: bool) -> SigningKey:
    if not isinstance(entry, Mapping):
        raise ValueError("an entry is an object")
    if entry.get("algorithm", ALGORITHM) != ALGORITHM:
        raise ValueError(f"unsupported algorithm {entry.get('algorithm')!r}")
    public = unb64(entry["public_key"])
    if len(public) != 32:
        raise ValueError("public_key is not 32 bytes")
    kid = entry["kid"]
    if not isinstance(kid, str) or not _KID.fullmatch(kid) or kid != kid_of(public):
        raise ValueError(f"kid {kid!r} is not the public key's ({kid_of(public)})")
    created, retired = entry["created_at"], entry.get("retired_at")
    if not isinstance(created, str) or not (retired is None or isinstance(retired, str)):
        raise ValueError("created_at and retired_at are RFC 3339 strings")
    private = None
    if not public_only and entry.get("private_key") is not None:
        private = _secret(entry["private_key"])
        if len(private) != 32:
            raise ValueError("private_key is not 32 bytes")
        derived = Ed25519PrivateKey.from_private_bytes(private).public_key().public_bytes(
            Encoding.Raw, PublicFormat.Raw
        )
        if derived != public:
            raise ValueError(f"private_key does not belong to key {kid!r}")
    return SigningKey(kid, public, created, retired, private)


def _secret(text: Any) -> bytes:
    """A private key's bytes; a ValueError that holds none of its text (messages reach logs:
    a pasted key with a newline or a "+" must not be written there)."""
    try:
        return unb64(text)
    except ValueError:
        pass  # raised below, outside the handler: a traceback would print the chained error
    size = f" ({len(text)} characters)" if isinstance(text, str) else ""
    raise ValueError(f"private_key is not base64url{size}")


__all__ = [
    "ALGORITHM",
    "Keyring",
    "KeyringError",
    "SigningKey",
    "b64",
    "head_message",
    "kid_of",
    "new_key",
    "receipt_message",
    "unb64",
]
