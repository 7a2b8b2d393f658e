"""The audit trail's pure parts: ledger lines, canonical records, the hash chain and its checks.

A record's hash is SHA-256 over the previous hash's 64 hex characters followed by the
record's RFC 8785 (JCS) canonical JSON. Money is strings and every number an integer, so no
float is ever hashed. The first record of a chain follows the genesis hash, 64 zeros.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import orjson
import rfc8785

from .money import format_money

GENESIS_HASH = "0" * 64
MAX_SEQUENCE = 2**62  # beyond any chain, and within every engine's integer
SETTLEMENT, FEE, REVERSAL = "settlement", "fee", "reversal"


class RecordKind(StrEnum):
    """What a chain record holds: a scored round, or the void of one (its reversal)."""

    ROUND = "round"
    VOID = "void"


HOUSE = "house"
PLAYER_PREFIX = "player:"


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One booked line: `account` is `player:<id>` or `house`; amount in minor units."""

    account: str
    kind: str
    amount: int

    @property
    def player(self) -> str | None:
        return self.account.removeprefix(PLAYER_PREFIX) if self.account.startswith(PLAYER_PREFIX) else None

    def to_json(self, currency: str) -> dict[str, str]:
        return {"account": self.account, "kind": self.kind, "amount": format_money(self.amount, currency)}


def account_of(player: str | None) -> str:
    """`player:<id>`, or `house` for a line without a player."""
    return HOUSE if player is None else PLAYER_PREFIX + player


def round_lines(players: Iterable[tuple[str, int, int]], house_fee: int) -> tuple[LedgerLine, ...]:
    """Lines of a round from `(player id, result, fee)` in request order.

    Per player a settlement line, then a fee line only when it paid one; last the
    house's fee line, only when there is a fee. The lines sum to zero.
    """
    lines: list[LedgerLine] = []
    for pid, result, fee in players:
        lines.append(LedgerLine(PLAYER_PREFIX + pid, SETTLEMENT, result))
        if fee > 0:
            lines.append(LedgerLine(PLAYER_PREFIX + pid, FEE, -fee))
    if house_fee > 0:
        lines.append(LedgerLine(HOUSE, FEE, house_fee))
    return tuple(lines)


def reversal_lines(lines: Sequence[LedgerLine]) -> tuple[LedgerLine, ...]:
    """A void books the round's lines negated, kind `reversal`, in the same order."""
    return tuple(LedgerLine(line.account, REVERSAL, -line.amount) for line in lines)


def timestamp(moment: datetime) -> str:
    """RFC 3339 UTC with milliseconds and Z, as hashed: `2026-11-29T10:00:00.000Z`."""
    if moment.tzinfo is not None:  # a naive moment is read as UTC already
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="milliseconds") + "Z"  # four-digit years, as RFC 3339 wants


def record_time(canonical_bytes: bytes) -> datetime:
    """The time a record's bytes carry (`created_at`, as `timestamp` writes it), aware UTC;
    KeyError, TypeError or ValueError when they carry none."""
    return datetime.fromisoformat(str(orjson.loads(canonical_bytes)["created_at"]).replace("Z", "+00:00"))


def known_record_time(canonical_bytes: bytes) -> datetime | None:
    """`record_time` where the bytes carry an aware time; None where they carry none, or one
    without an offset (a record changed in the database, which the verifier reports): its
    time is unknown, not naive."""
    try:
        at = record_time(canonical_bytes)
    except (KeyError, TypeError, ValueError):
        return None
    return at if at.tzinfo is not None else None


def record(
    *,
    sequence: int | None,
    kind: str,
    round_id: str,
    request: Mapping[str, Any] | None,
    result: Mapping[str, Any],
    lines: Sequence[LedgerLine],
    currency: str,
    engine_version: str,
    created_at: datetime,
) -> dict[str, Any]:
    """The record whose canonical JSON is hashed; without `sequence` while it is unknown."""
    doc: dict[str, Any] = {
        "kind": kind,
        "round": round_id,
        "request": request,
        "result": result,
        "ledger_lines": [line.to_json(currency) for line in lines],
        "engine_version": engine_version,
        "created_at": timestamp(created_at),
    }
    if sequence is not None:
        doc["sequence"] = sequence
    return doc


_JCS_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER
_MAX_SAFE_INTEGER = 2**53 - 1


def _jcs_safe(value: Any) -> bool:
    """True when sorted compact JSON of `value` is exactly its RFC 8785 form: objects with
    ASCII keys (code-point order is then UTF-16 order), strings, booleans, null and
    integers within +/-(2**53 - 1). Floats, other keys or types need the full encoder."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is str or kind is bool or node is None:
            continue
        if kind is int:
            if -_MAX_SAFE_INTEGER <= node <= _MAX_SAFE_INTEGER:
                continue
            return False
        if kind is dict:
            for key in node:
                if type(key) is not str or not key.isascii():
                    return False
            stack.extend(node.values())
        elif kind is list or kind is tuple:
            stack.extend(node)
        else:
            return False
    return True


def canonical(doc: Mapping[str, Any]) -> bytes:
    """RFC 8785 canonical JSON bytes of any JSON value (the fast encoder where it is exact)."""
    if _jcs_safe(doc):
        try:
            return orjson.dumps(doc, option=_JCS_OPTIONS)
        except orjson.JSONEncodeError:  # a lone surrogate: let the full encoder decide
            pass
    return bytes(rfc8785.dumps(doc))


def canonical_record(doc: Mapping[str, Any]) -> bytes:
    """RFC 8785 bytes of a record this service built, without walking it first.

    orjson with sorted keys gives exactly the RFC 8785 bytes for what records hold, by
    construction: objects whose keys are field names, player ids and parameter names (all
    ASCII, so code-point order is UTF-16 order), strings (both encoders escape only the
    quote, the backslash and control characters, the same way), booleans, null and
    integers, which OPT_STRICT_INTEGER holds within +/-(2**53 - 1). Records never hold a
    float: money is strings and every parameter is an integer or a string. Tests check
    every kind of record the engine makes against the reference encoder. Anything orjson
    refuses (a larger integer, a lone surrogate) goes through `canonical`.
    """
    try:
        return orjson.dumps(doc, option=_JCS_OPTIONS)
    except orjson.JSONEncodeError:
        return canonical(doc)


def not_canonical(doc: Mapping[str, Any], body: bytes | memoryview) -> str | None:
    """Why `body`, the bytes `doc` was read from, is not a record's RFC 8785 form; None when
    it is. A record holds no float and no integer beyond +/-(2**53 - 1) (`canonical_record`):
    either is named, though RFC 8785 could write a float (`0.5`) and the fast encoder a
    larger integer. Keys that are not ASCII are ordered by UTF-16, as RFC 8785 says."""
    if _jcs_safe(doc):
        return None if orjson.dumps(doc, option=_JCS_OPTIONS) == body else _NOT_CANONICAL
    number = _not_an_integer(doc)
    if number is not None:
        return f"the record holds the number {number!r}: its numbers are integers within +/-(2**53 - 1)"
    try:
        return None if rfc8785.dumps(doc) == body else _NOT_CANONICAL
    except ValueError:  # what RFC 8785 cannot write (a lone surrogate)
        return _NOT_CANONICAL


_NOT_CANONICAL = "the record's bytes are not its canonical JSON (RFC 8785)"


def _not_an_integer(value: Any) -> float | int | None:
    """The first float, or integer beyond +/-(2**53 - 1), in a JSON value; None without one."""
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) is float or (type(node) is int and not -_MAX_SAFE_INTEGER <= node <= _MAX_SAFE_INTEGER):
            return node
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


_SEQUENCE_KEY = b',"sequence":'


def unsealed(doc: Mapping[str, Any]) -> bytes:
    """The canonical bytes of a record without its sequence, open where the sequence goes.

    `sequence` sorts after every other key of a record, so the canonical bytes of the
    sealed record are these bytes, the sequence in decimal, and `}` (`seal`). The write
    path fixes everything but the sequence before it takes the chain head; PostgreSQL can
    then seal and hash the record inside the statement that advances the head.
    """
    if "sequence" in doc:
        raise ValueError("an unsealed record has no sequence yet")
    body = canonical_record(doc)
    if not body.startswith(b"{") or body == b"{}":
        raise ValueError("a record is a non-empty JSON object")
    return body[:-1] + _SEQUENCE_KEY


def seal(unsealed_bytes: bytes, sequence: int) -> bytes:
    """The canonical bytes of the record once its sequence is known."""
    return unsealed_bytes + str(sequence).encode() + b"}"  # digits: ASCII is UTF-8


def chain_hash(previous_hash: str, canonical_bytes: bytes) -> str:
    """Lowercase hex SHA-256 of the previous hash's hex followed by the canonical bytes.

    >>> chain_hash(GENESIS_HASH, canonical({"sequence": 1, "kind": "round", "round": "rnd_x",
    ...     "created_at": "2026-11-29T10:00:00.000Z"}))[:16]
    '394bfd0230762dbd'
    """
    return hashlib.sha256(previous_hash.encode() + canonical_bytes).hexdigest()  # hex: ASCII is UTF-8


class LinkChecker:
    """Checks records one by one, in order: gap-free sequences, each previous hash, each hash.

    `check` returns the reason the record breaks the chain, or None; the caller stops at
    the first reason.
    """

    __slots__ = ("expected", "previous_hash")

    def __init__(self, expected_first: int, previous_hash: str) -> None:
        self.expected = expected_first
        self.previous_hash = previous_hash

    def check(self, sequence: int, previous_hash: str, hash_: str, body: bytes) -> str | None:
        # `chain_hash`, inline: this runs once per record of a chain being verified.
        if (
            sequence == self.expected
            and previous_hash == self.previous_hash
            and hashlib.sha256(previous_hash.encode() + body).hexdigest() == hash_
        ):
            self.previous_hash = hash_
            self.expected += 1
            return None
        if sequence != self.expected:
            return f"sequence {self.expected} is missing (found {sequence})"
        if previous_hash != self.previous_hash:
            return "previous_hash does not match the hash of the record before"
        return "hash does not match the stored canonical bytes"


def differences(stored: Any, recomputed: Any, path: str = "") -> list[dict[str, Any]]:
    """Every leaf where two JSON documents differ, as `{"field", "stored", "recomputed"}`;
    a key one side lacks is a difference whatever the other holds (null included), with
    `"absent"` naming the side that lacks it (`stored` or `recomputed`; its value is null)."""
    if isinstance(stored, Mapping) and isinstance(recomputed, Mapping):
        out: list[dict[str, Any]] = []
        for key in list(stored) + [k for k in recomputed if k not in stored]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in recomputed or key not in stored:
                absent = "recomputed" if key not in recomputed else "stored"
                out.append({"field": sub, "stored": stored.get(key), "recomputed": recomputed.get(key), "absent": absent})
                continue
            out += differences(stored[key], recomputed[key], sub)
        return out
    if isinstance(stored, list) and isinstance(recomputed, list) and len(stored) == len(recomputed):
        out = []
        for i, (a, b) in enumerate(zip(stored, recomputed)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    if stored != recomputed or type(stored) is not type(recomputed):
        return [{"field": path, "stored": stored, "recomputed": recomputed}]
    return []
