"""The audit trail's pure parts: ledger lines of a round or a void, canonical records, the chain.

API.md "Ledger and audit": a record's hash is SHA-256 over the previous hash's 64 hex
characters followed by the record's RFC 8785 (JCS) canonical JSON. Money is strings and
every number an integer, so no float is ever hashed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import rfc8785

from .money import format_money, minor_digits

GENESIS_HASH = "0" * 64
SETTLEMENT, FEE, REVERSAL = "settlement", "fee", "reversal"
HOUSE = "house"


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One booked line: `account` is `player:<id>` or `house`; amount in minor units."""

    account: str
    kind: str
    amount: int

    @property
    def player(self) -> str | None:
        return self.account.removeprefix("player:") if self.account.startswith("player:") else None

    def to_json(self, currency: str) -> dict[str, str]:
        return {"account": self.account, "kind": self.kind, "amount": format_money(self.amount, currency)}


def round_lines(players: Iterable[tuple[str, int, int]], house_fee: int) -> tuple[LedgerLine, ...]:
    """Lines of a round from `(player id, result, fee)` in request order (API.md order).

    Per player a settlement line, then a fee line only when it paid one; last the
    house's fee line, only when there is a fee. The lines sum to zero.
    """
    lines: list[LedgerLine] = []
    for pid, result, fee in players:
        lines.append(LedgerLine(f"player:{pid}", SETTLEMENT, result))
        if fee > 0:
            lines.append(LedgerLine(f"player:{pid}", FEE, -fee))
    if house_fee > 0:
        lines.append(LedgerLine(HOUSE, FEE, house_fee))
    return tuple(lines)


def reversal_lines(lines: Sequence[LedgerLine]) -> tuple[LedgerLine, ...]:
    """A void books the round's lines negated, kind `reversal`, in the same order."""
    return tuple(LedgerLine(line.account, REVERSAL, -line.amount) for line in lines)


def timestamp(moment: datetime) -> str:
    """RFC 3339 UTC with milliseconds and Z, as hashed: `2026-11-29T10:00:00.000Z`."""
    moment = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def record(
    *,
    sequence: int,
    kind: str,
    round_id: str,
    request: Mapping[str, Any] | None,
    result: Mapping[str, Any],
    lines: Sequence[LedgerLine],
    currency: str,
    engine_version: str,
    created_at: datetime,
) -> dict[str, Any]:
    """The record of API.md whose canonical JSON is hashed."""
    return {
        "sequence": sequence,
        "kind": kind,
        "round": round_id,
        "request": request,
        "result": result,
        "ledger_lines": [line.to_json(currency) for line in lines],
        "engine_version": engine_version,
        "created_at": timestamp(created_at),
    }


_MAX_SAFE_INTEGER = 2**53 - 1


def _jcs_equals_sorted_json(value: Any) -> bool:
    """True when sorted compact `json.dumps` of `value` is exactly its RFC 8785 form.

    That holds for objects with ASCII keys (code-point order is then UTF-16 order), strings,
    booleans, null and integers within +/-(2**53 - 1): JSON.stringify and Python escape
    strings alike (quote, backslash and the short control escapes; other control characters
    as lowercase u00xx escapes; everything else raw UTF-8). Floats, other keys or types
    take the full encoder.
    """
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
    """RFC 8785 canonical JSON bytes.

    Records are hashed on every write, and the pure-Python encoder cost a third of a stored
    round's CPU: documents of the shape we store go through the C JSON encoder, which gives
    the same bytes (`_jcs_equals_sorted_json`; a property test compares both encoders).
    """
    if _jcs_equals_sorted_json(doc):
        try:
            return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        except UnicodeEncodeError:  # a lone surrogate: let the full encoder decide
            pass
    return bytes(rfc8785.dumps(doc))


def chain_hash(previous_hash: str, canonical_bytes: bytes) -> str:
    """Lowercase hex SHA-256 of the previous hash's hex followed by the canonical bytes.

    >>> chain_hash(GENESIS_HASH, canonical({"sequence": 1, "kind": "round", "round": "rnd_x",
    ...     "created_at": "2026-11-29T10:00:00.000Z"}))[:16]
    '394bfd0230762dbd'
    """
    return hashlib.sha256(previous_hash.encode("ascii") + canonical_bytes).hexdigest()


@dataclass(frozen=True, slots=True)
class StoredLink:
    """One stored chain record as an auditor reads it back."""

    sequence: int
    previous_hash: str
    hash: str
    canonical: bytes
    rebuilt: bytes | None  # the canonical bytes rebuilt from the live rows, None if missing
    hash_checked: bool = False  # the caller already found chain_hash(previous, canonical) == hash


@dataclass(frozen=True, slots=True)
class ChainCheck:
    """The result of checking a run of records: the first bad sequence and why."""

    ok: bool
    records_checked: int
    first_bad_sequence: int | None
    reason: str | None


def verify_chain(links: Iterable[StoredLink], expected_first: int, previous_hash: str) -> ChainCheck:
    """Check sequences are gap-free from `expected_first`, each link's previous hash and
    hash, and that the rows still rebuild the stored bytes. Stops at the first problem."""
    checked = 0
    expected = expected_first
    for link in links:
        checked += 1
        if link.sequence != expected:
            return ChainCheck(False, checked, expected, f"sequence {expected} is missing (found {link.sequence})")
        if link.previous_hash != previous_hash:
            return ChainCheck(False, checked, expected, "previous_hash does not match the hash of the record before")
        if not link.hash_checked and chain_hash(previous_hash, link.canonical) != link.hash:
            return ChainCheck(False, checked, expected, "hash does not match the stored canonical bytes")
        if link.rebuilt is None:
            return ChainCheck(False, checked, expected, "the round or its ledger lines are missing")
        if link.rebuilt != link.canonical:
            return ChainCheck(False, checked, expected, "the stored rows no longer match the hashed record")
        previous_hash = link.hash
        expected += 1
    return ChainCheck(True, checked, None, None)


def differences(stored: Any, recomputed: Any, path: str = "") -> list[dict[str, Any]]:
    """Every leaf where two JSON documents differ, as `{"field", "stored", "recomputed"}`."""
    if isinstance(stored, Mapping) and isinstance(recomputed, Mapping):
        out: list[dict[str, Any]] = []
        for key in list(stored) + [k for k in recomputed if k not in stored]:
            sub = f"{path}.{key}" if path else str(key)
            out += differences(stored.get(key), recomputed.get(key), sub)
        return out
    if isinstance(stored, list) and isinstance(recomputed, list) and len(stored) == len(recomputed):
        out = []
        for i, (a, b) in enumerate(zip(stored, recomputed)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    if stored != recomputed or type(stored) is not type(recomputed):
        return [{"field": path, "stored": stored, "recomputed": recomputed}]
    return []


_DIGITS: dict[str, int] = {}


def money_text(amount: int, currency: str) -> str:
    """`format_money` by integer arithmetic (the verifier formats every line it rebuilds).

    >>> money_text(-5, "USD"), money_text(1250, "USD"), money_text(-11000, "IDR")
    ('-0.05', '12.50', '-11000')
    """
    digits = _DIGITS.get(currency)
    if digits is None:
        digits = _DIGITS[currency] = minor_digits(currency)
    if digits == 0:
        return str(amount)
    sign = "-" if amount < 0 else ""
    whole, part = divmod(abs(amount), 10**digits)
    return f"{sign}{whole}.{part:0{digits}d}"


def rebuilt_bytes(doc: Mapping[str, Any], stored: bytes) -> bytes:
    """The canonical bytes of a record rebuilt from live rows, cheaply when it matches.

    For our records (integer numbers, ASCII keys) sorted compact JSON is the JCS form; when
    those bytes equal the stored ones the rows rebuild the hashed record exactly. Anything
    else goes through the full RFC 8785 encoder, so the answer never depends on the shortcut.
    """
    try:
        fast = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    except (TypeError, ValueError, UnicodeError):
        fast = b""
    return stored if fast == stored else canonical(doc)
