"""Checking a chain record's live copies against its hashed bytes.

A record's canonical bytes are the source of truth; the chain row's kind and round, the
rounds row and the ledger lines are copies kept for look-ups, queries and reports. For
each (hash-checked) record the verifier derives from its bytes what every copy must hold,
and compares: the chain row's kind, round and sequence; the round's game, preset, table,
reference, currency and time; every ledger line's account, kind, basis, amount, currency,
table, round, time, points and winnings.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec

from service.adapters.chain_scan import QUOTES_PER_LINE
from service.adapters.ledger import LineCopy
from service.domain.audit import HOUSE, PLAYER_PREFIX, SETTLEMENT, RecordKind, timestamp
from service.domain.money import minor_units


class _Player(msgspec.Struct, gc=False):
    id: str
    points: int = 0
    winnings: str = "0"


class _Rules(msgspec.Struct, gc=False):
    preset: str | None = None


class _Result(msgspec.Struct, gc=False):
    game: str | None = None
    rules: _Rules | None = None
    players: list[_Player] = []


class _Request(msgspec.Struct, gc=False):
    currency: str | None = None
    table: str | None = None
    reference: str | None = None


class _Line(msgspec.Struct, gc=False):
    account: str
    kind: str
    amount: str


class _Record(msgspec.Struct, gc=False):
    kind: str
    round: str
    sequence: int
    created_at: str
    ledger_lines: list[_Line]
    request: _Request | None = None
    result: _Result | None = None


class _Scanned(msgspec.Struct, gc=False):
    """What the fast path decodes: `ledger_lines` as its bytes, compared whole."""

    kind: str
    round: str
    sequence: int
    created_at: str
    ledger_lines: msgspec.Raw
    request: _Request | None = None
    result: _Result | None = None


# Only the fields the copies hold are decoded; the rest of the record is skipped. The
# order of _Player's fields is the order of their keys in the scan's `players` text.
_decode = msgspec.json.Decoder(_Record).decode
_decode_scanned = msgspec.json.Decoder(_Scanned).decode
_encode = msgspec.json.Encoder().encode

# A live round row: (game, preset, table_ref, reference, currency, created_at).
ROUND_FIELDS = ("game", "preset", "table", "reference", "currency", "created_at")


def _player_of(account: str) -> str | None:
    return None if account == HOUSE else account.removeprefix(PLAYER_PREFIX)


def _stamp(value: Any) -> Any:
    """A live time as records write it; one finer than their milliseconds (`.647999` for a
    record's `.647`) keeps its microseconds, so it differs from every record's time."""
    if not isinstance(value, datetime):
        return value
    written = timestamp(value)
    finer = value.microsecond % 1000
    return written if not finer else f"{written[:-1]}{finer:03d}Z"


def _diff(field: str, stored: Any, recomputed: Any) -> dict[str, Any]:
    return {"field": field, "stored": stored, "recomputed": recomputed}


def _line_numbers(count: int) -> str:
    return ",".join(map(str, range(count)))


_LINE_NUMBERS = [_line_numbers(n) for n in range(64)]


def _same_time(text: str, moment: datetime) -> bool:
    """True when `text` is `moment` as records write it (`audit.timestamp`: UTC, milliseconds,
    `2026-11-29T10:00:00.000Z`). Parsing the text is faster than formatting the moment; the
    shape is checked first, since the parser also reads other forms of the same instant."""
    if len(text) != 24 or text[4:8:3] != "--" or text[10:20:3] != "T::." or text[23] != "Z":
        return False
    try:
        return datetime.fromisoformat(text) == moment
    except ValueError:
        return False


def copies_match(scanned: tuple[Any, ...]) -> bool:
    """True when the live copies of a round record, as the scan gives them
    (`chain_scan.ScannedRecord`), match its (hash-checked) bytes: the common case, kept
    cheap (one decode, and three byte comparisons). False sends the record to
    `copy_differences`, which says where; voids always go there.

    The lines' text is compared whole with the record's `ledger_lines` bytes, once its
    quotes are known to be only its own structure's (a live value holding a quote or a
    backslash could pose as more than itself); the settlement lines are compared with the
    result's players in order, each naming its player: the order the service books them
    in (a record whose players' ids repeat is not one it writes)."""
    (sequence, kind, round_id, _, _, body, game, preset, table, reference, currency, time, round_sequence,
     line_nos, lines, players) = scanned
    if kind != RecordKind.ROUND or lines is None or round_sequence != sequence:
        return False
    count = line_nos.count(",") + 1
    numbers = _LINE_NUMBERS[count] if count < len(_LINE_NUMBERS) else _line_numbers(count)
    if line_nos != numbers or lines.count('"') != QUOTES_PER_LINE * count or "\\" in lines:
        return False
    try:
        rec = _decode_scanned(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    request, result = rec.request, rec.result
    if request is None or result is None:
        return False
    rules = result.rules
    return (
        rec.kind == kind
        and rec.round == round_id
        and rec.sequence == sequence
        and _same_time(rec.created_at, time)
        and (game, preset, table, reference, currency)
        == (result.game, None if rules is None else rules.preset, request.table, request.reference, request.currency)
        and rec.ledger_lines == msgspec.Raw(lines)
        and _encode(result.players) == players.encode()
    )


VOID_LINES = "void.ledger_lines"  # a void's lines are not its round's, negated


def copy_differences(
    body: bytes,
    *,
    sequence: int,
    kind: str,
    round_id: str,
    round_row: tuple[Any, ...] | None,
    lines: Sequence[LineCopy],
    round_sequence: int | None = None,
    original: Sequence[LineCopy] | None = None,
) -> list[dict[str, Any]]:
    """Where the live copies of the record with these (hash-checked) bytes differ from it:
    `{"field", "stored", "recomputed"}` each, the stored value being the live copy's.
    `round_sequence` is the round row's (checked for a round's own record when given). For
    a void, `round_row` is the voided round's row and `original` the round's lines."""
    try:
        rec = _decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return [_diff("canonical", "not a record", None)]
    out: list[dict[str, Any]] = []
    for name, live, want in (("kind", kind, rec.kind), ("round", round_id, rec.round), ("sequence", sequence, rec.sequence)):
        if live != want:
            out.append(_diff(f"chain.{name}", live, want))
    if round_row is None:
        return out + [_diff("round", None, rec.round)]
    # Times are compared as the records write them (UTC, milliseconds).
    created = rec.created_at
    round_row = (*round_row[:5], _stamp(round_row[5]))
    lines = [line._replace(created_at=_stamp(line.created_at)) for line in lines]
    original = None if original is None else [line._replace(created_at=_stamp(line.created_at)) for line in original]
    game, preset, table, reference, currency, round_created = round_row
    if rec.kind == RecordKind.ROUND:
        if round_sequence is not None and round_sequence != rec.sequence:
            out.append(_diff("round.sequence", round_sequence, rec.sequence))
        request, result = rec.request or _Request(), rec.result or _Result()
        wanted = (
            result.game,
            result.rules.preset if result.rules else None,
            request.table,
            request.reference,
            request.currency,
            created,
        )
        if tuple(round_row) != wanted:
            out += [
                _diff(f"round.{name}", live, want)
                for name, live, want in zip(ROUND_FIELDS, round_row, wanted)
                if live != want
            ]
        points = {p.id: (p.points, minor_units(p.winnings)) for p in result.players}
        # The lines as the record says they are, in `LineCopy` order (for a void, None where its
        # round has no such line).
        expected: list[tuple[Any, ...]] = []
        for n, line in enumerate(rec.ledger_lines):
            player = _player_of(line.account)
            earned = points.get(player or "", (0, 0)) if line.kind == SETTLEMENT else (0, 0)
            expected.append(
                (rec.sequence, n, created, player, line.kind, line.kind, minor_units(line.amount),
                 request.currency, request.table, *earned)
            )
    else:
        original = original or ()
        # A void reverses its round: its lines (in its hashed bytes) are the round's lines,
        # each for the same account and negated. Bytes re-hashed with other lines, the
        # head and the live lines rewritten to match, agree with each other but not this.
        reversed_ = [(line.player, -line.amount) for line in original]
        if [(_player_of(line.account), minor_units(line.amount)) for line in rec.ledger_lines] != reversed_:
            out.append(_diff(VOID_LINES, len(rec.ledger_lines), len(original)))
        expected = []
        for n, line in enumerate(rec.ledger_lines):
            orig = original[n] if n < len(original) else None
            expected.append(
                (
                    rec.sequence,
                    n,
                    created,
                    _player_of(line.account),
                    line.kind,
                    None if orig is None else orig.kind,
                    minor_units(line.amount),
                    currency,
                    table,
                    None if orig is None else -orig.points,
                    None if orig is None else -orig.winnings,
                )
            )
    if lines != expected:
        for n in range(max(len(lines), len(expected))):
            live_line = lines[n] if n < len(lines) else None
            want_line = expected[n] if n < len(expected) else None
            if live_line is None or want_line is None:
                out.append(_diff(f"ledger_lines[{n}]", live_line is not None, want_line is not None))
                continue
            out += [
                _diff(f"ledger_lines[{n}].{name}", a, b)
                for name, a, b in zip(LineCopy._fields, live_line, want_line)
                if a != b
            ]
    return out
