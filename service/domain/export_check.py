"""The offline verifier: an export file, the public keys and signed heads; no database, no server.

`ExportCheck` reads an export (`GET /v1/audit/export`, `capsa audit export`) line by line,
in one pass with bounded memory, and stops at the first bad record, saying its sequence and
why. For every line it checks, in this order:

1. the line is complete (ends with a newline) and is one export object of this client;
2. its sequence follows the one before (nothing dropped, repeated or moved);
3. its previous hash is the hash of the record before, and its hash is SHA-256 over that
   previous hash's hex and the canonical bytes (the chain);
4. its receipt: the key is one of the public keys, and the signature verifies over
   `capsa-audit-v1\\n{client_id}\\n{sequence}\\n{hash}\\n`;
5. the canonical bytes are the record the line says (kind, round, sequence);
6. a round re-scores, with today's engine and the rules stored in it, to the stored result
   (`rescoring.RESCORERS`, the code `GET /v1/rounds/{id}/verify` runs);
7. its ledger lines sum to zero and are the settlement of that result (each player's
   result, its fee, the house's fee, in the documented order); a void's are the negation
   of its round's lines, kind `reversal`, and a round is voided at most once.

Then every signed head given is checked: its signature, its client, and that the export
passes through it (the record at its sequence has its hash). A head past the export's end
means the export does not reach it; two heads that cannot lie on one chain are a fork.

Where the chain starts is part of the check. By default the export is the whole chain: its
first record is sequence 1 and follows the genesis hash. An export that starts at sequence
N > 1 (an auditor's incremental check) is anchored by `from_sequence=N` and the signed head
at N - 1, whose hash the first record's previous hash must be; or checked with
`partial=True`, which trusts the first line's previous hash and says so (`Report.partial`).
An empty export is never ok: it holds no record, so it shows nothing.

Memory stays bounded whatever the file holds: `read_lines` never reads more than
`MAX_LINE` + 1 bytes of a line, and a longer line is refused there (a file of zeros with
no newline is one such line).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

import msgspec
import orjson

from service.domain import audit as chain
from service.domain.audit import RecordKind
from service.domain.errors import CapsaError, quoted
from service.domain.money import minor_units
from service.domain.rescoring import RESCORERS, as_stored_version, record_version_difference
from service.domain.signing import Keyring, head_message, receipt_message, unb64


class _Line(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    client_id: str
    sequence: int
    kind: str
    round: str
    previous_hash: str
    hash: str
    kid: str | None
    signature: str | None
    record: msgspec.Raw


class _Place(msgspec.Struct, forbid_unknown_fields=True):
    """A line without its `record` (the fast path takes that part as a slice)."""

    format: str
    client_id: str
    sequence: int
    kind: str
    round: str
    previous_hash: str
    hash: str
    kid: str | None
    signature: str | None


class _Head(msgspec.Struct):
    client_id: str
    sequence: int
    hash: str
    signed_at: str
    kid: str | None
    signature: str | None
    created_at: str | None = None


# The chain export's format name: the export's writer (services/audit/receipts.py) names it
# from here, so the offline verifier needs nothing of the service's database layer.
EXPORT_FORMAT = "capsa-export-v1"
MAX_LINE = 1 << 20
"""The longest export line read, its newline included (1 MiB). A record holds one request
(at most 64 KiB, the request body cap) or one Big Two game, its result and its ledger
lines: the largest the service writes are a few tens of KiB."""

MAX_DOCUMENT = 1 << 20
"""The largest public-keys or signed-head document read (1 MiB; real ones are under 4 KiB)."""


def read_lines(f: IO[bytes], cap: int = MAX_LINE) -> Iterator[bytes]:
    """The file's lines, each with its newline; a line longer than `cap` comes out as its
    first `cap` + 1 bytes, which `ExportCheck.feed` refuses, so no more of it is read."""
    readline = f.readline
    while raw := readline(cap + 1):
        yield raw


_decode_line = msgspec.json.Decoder(_Line).decode
_decode_place = msgspec.json.Decoder(_Place).decode
_decode_head = msgspec.json.Decoder(_Head).decode
_encode_place = msgspec.json.Encoder().encode
_RECORD = b',"record":'
_END = b"}\n"


def parse_line(raw: bytes) -> tuple[_Place | _Line, bytes | memoryview]:
    """An export line and its record's canonical bytes; msgspec errors when it is not one.

    The export writes the place first and the record's bytes verbatim last (`"record":` up
    to the line's closing brace), and the place's values (ids, hex, base64url) cannot hold
    `,"record":`: so the first one starts the record, and the bytes are a slice of the line.
    Anything else is decoded whole (msgspec keeps a raw value's exact bytes). A slice that is
    not the JSON the service hashed fails the hash check; the content checks parse it."""
    at = raw.find(_RECORD)
    if at > 0 and raw.endswith(_END):
        place_bytes = raw[:at] + b"}"
        place = _decode_place(place_bytes)
        # The place is compared byte for byte with what the export writes for it (compact,
        # its keys in order, each once): a byte changed outside the hashed record is found
        # too, and a reader keeping the first of two keys cannot be shown another line.
        if _encode_place(place) != place_bytes:
            raise msgspec.ValidationError("the line is not written as the export writes it (spacing, key order or escapes)")
        # A view, not a copy: hashing and parsing read it where it is.
        return place, memoryview(raw)[at + len(_RECORD) : -len(_END)]
    line = _decode_line(raw)  # for its error: an export line is never written otherwise
    if raw.endswith(b"}\r\n"):  # a copy through a tool that rewrote the line endings
        raise msgspec.ValidationError(
            f"the line of sequence {line.sequence} ends with CRLF (\\r\\n); an export's lines end with \\n alone, "
            "as the export writes them: verify the file as it was exported"
        )
    raise msgspec.ValidationError(f"the record of sequence {line.sequence} is not last on its line, as the export writes it")


_HASH = re.compile(r"[0-9a-f]{64}")


class BadRecord(Exception):
    """The first bad record: its sequence and why."""

    def __init__(self, sequence: int | None, reason: str) -> None:
        super().__init__(f"sequence {sequence}: {reason}")
        self.sequence = sequence
        self.reason = reason


@dataclass
class Report:
    ok: bool
    records: int = 0
    first_sequence: int | None = None
    last_sequence: int | None = None
    last_hash: str | None = None
    client_id: str | None = None
    first_bad_sequence: int | None = None
    reason: str | None = None
    heads_checked: int = 0
    rescored: int = 0
    partial: bool = False  # ok, but the records before first_sequence were not checked
    unanchored: int | None = None  # refused: the export starts here, after 1, with no anchor
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SignedHead:
    client_id: str
    sequence: int
    hash: str
    signed_at: str
    kid: str
    signature: bytes
    label: str


def parse_head(raw: bytes, keyring: Keyring, label: str) -> SignedHead:
    """A signed head document (`GET /v1/audit/head`), its signature checked; BadRecord if not."""
    try:
        h = _decode_head(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise BadRecord(None, f"head {label} is not a signed head: {exc}") from exc
    except RecursionError as exc:  # msgspec's own bound on nesting
        raise BadRecord(None, f"head {label} is not a signed head: JSON nested too deep") from exc
    if h.kid is None or h.signature is None:
        raise BadRecord(None, f"head {label} is not signed")
    try:
        signature = unb64(h.signature, padded=False)
        message = head_message(h.client_id, h.sequence, h.hash, h.signed_at)
    except ValueError as exc:
        raise BadRecord(None, f"head {label}: {exc}") from exc
    if keyring.get(h.kid) is None:
        raise BadRecord(None, f"head {label} is signed with key {h.kid!r}, which is not among the public keys")
    if not keyring.may_sign(h.kid, h.signed_at):
        raise BadRecord(None, f"head {label} is signed with key {h.kid!r}, which did not sign at {h.signed_at!r}")
    if not keyring.verify(h.kid, message, signature):
        raise BadRecord(None, f"head {label}: the signature does not verify with key {h.kid!r}")
    return SignedHead(h.client_id, h.sequence, h.hash, h.signed_at, h.kid, signature, label)


def forks_between(heads: Iterable[SignedHead]) -> str | None:
    """Why two signed heads cannot lie on one chain without looking at any record (the same
    client and sequence, different hashes), or None."""
    seen: dict[tuple[str, int], SignedHead] = {}
    for h in heads:
        other = seen.setdefault((h.client_id, h.sequence), h)
        if other.hash != h.hash:
            return (
                f"fork: signed heads {other.label} and {h.label} both sign sequence {h.sequence} "
                f"with different hashes ({other.hash[:16]}... and {h.hash[:16]}...)"
            )
    return None


def _expected_lines(result: Mapping[str, Any]) -> tuple[chain.LedgerLine, ...]:
    """The ledger lines of a settled result: the settlement every round's lines must be."""
    players = [
        (str(p["id"]), minor_units(str(p["result"])), minor_units(str(p.get("fee", "0"))))
        for p in result.get("players", [])
    ]
    return chain.round_lines(players, minor_units(str(result.get("house_fee", "0"))))


def _differing(d: Mapping[str, Any]) -> str:
    field = f"result.{d['field']}"
    if d.get("absent") == "stored":
        return f"re-scored, {field} is {_shown(d['recomputed'])}, the record has no such key"
    if d.get("absent") == "recomputed":
        return f"re-scored, {field} is not there, the record says {_shown(d['stored'])}"
    return f"re-scored, {field} is {d['recomputed']!r}, the record says {d['stored']!r}"


def _shown(value: Any) -> str:
    return "null" if value is None else repr(value)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (`differences` also tells 1 from 1.0 and True, so must this)."""
    return bool(a == b) and orjson.dumps(a, option=orjson.OPT_SORT_KEYS) == orjson.dumps(b, option=orjson.OPT_SORT_KEYS)


def _digest(lines: Any) -> bytes:
    return hashlib.blake2b(orjson.dumps(lines, option=orjson.OPT_SORT_KEYS), digest_size=16).digest()


_SEQUENCE = re.compile(rb'"sequence":(\d{1,19})[,}]')


def _first_sequence(raw: bytes) -> int:
    """The sequence a first line that cannot be read says it has (else 1): where to report it.
    The line's own `sequence` comes before its record's, so the first match is the line's."""
    found = _SEQUENCE.search(raw)
    return int(found.group(1)) if found else 1


class MissingAnchor(ValueError):
    """`from_sequence` N > 1 without the signed head at N - 1 among the heads."""


def anchor_of(heads: Iterable[SignedHead], from_sequence: int) -> SignedHead | None:
    """The signed head an export starting at `from_sequence` continues from (None for 1,
    which follows the genesis hash); MissingAnchor when no head given is at N - 1."""
    if from_sequence <= 1:
        return None
    for h in heads:
        if h.sequence == from_sequence - 1:
            return h
    raise MissingAnchor(
        f"an export from sequence {from_sequence} is anchored by the signed head at sequence "
        f"{from_sequence - 1}, and no head given is at {from_sequence - 1}"
    )


class ExportCheck:
    """Feed the export's lines in order (`feed`), then `finish` for the report."""

    def __init__(
        self,
        keyring: Keyring,
        heads: Iterable[SignedHead] = (),
        rescore: bool = True,
        *,
        from_sequence: int | None = None,
        partial: bool = False,
        receipts: bool = True,
        content: bool = True,
    ) -> None:
        """`from_sequence`: the export starts there, anchored by the signed head before it
        (MissingAnchor without one); `partial`: it may start anywhere, unanchored.
        `receipts=False` / `content=False` skip steps 4 / 5-7: only for measuring each
        step's cost (bench/verify_file.py); a verification checks everything."""
        if from_sequence is not None and partial:
            raise ValueError("an export is either anchored (from_sequence) or partial, not both")
        self.keyring = keyring
        self.rescore = rescore
        self.receipts, self.content = receipts, content
        self.heads = sorted(heads, key=lambda h: h.sequence)
        self.from_sequence = from_sequence
        self.partial = partial
        self.anchor = None if from_sequence is None else anchor_of(self.heads, from_sequence)
        self.report = Report(ok=True)
        self.expected: int | None = None
        self.previous: str | None = None
        self.client: str | None = None
        self.at_heads = {h.sequence: h for h in self.heads}
        self.head_hashes: dict[int, str] = {}
        # round id -> digest of the lines its void must book; voided rounds. Bounded by the
        # number of rounds, 16 bytes and an id each.
        self.reversals: dict[str, bytes] = {}
        self.voided: set[str] = set()
        self.voids_unmatched = 0

    # -- per line --------------------------------------------------------------------------

    def feed(self, raw: bytes) -> None:
        """Check one line (with its newline); raises BadRecord at the first bad record."""
        expected = self.expected
        where = expected if expected is not None else _first_sequence(raw)
        if len(raw) > MAX_LINE:
            raise BadRecord(where, f"the line is longer than {MAX_LINE:,} bytes, the verifier's cap: not an export line")
        if not raw.endswith(b"\n"):
            raise BadRecord(where, "the file ends inside this record's line (truncated)")
        try:
            line, body = parse_line(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise BadRecord(where, f"the line is not an export record: {exc}") from exc
        except RecursionError as exc:  # msgspec's own bound on nesting
            raise BadRecord(where, "the line is not an export record: JSON nested too deep") from exc
        if line.format != EXPORT_FORMAT:
            raise BadRecord(where, f"unknown format {line.format!r}")
        seq = line.sequence
        if self.client is None:
            self.client = self.report.client_id = line.client_id
            self.expected = expected = self._start(seq, line.previous_hash)
            self.report.first_sequence = expected
        elif line.client_id != self.client:
            raise BadRecord(expected, f"the line is of client {line.client_id!r}, not {self.client!r}")
        if seq != expected:
            assert expected is not None
            if seq < expected:
                raise BadRecord(expected, f"sequence {seq} again where {expected} should follow (repeated or moved)")
            raise BadRecord(expected, f"sequence {expected} is missing (found {seq})")
        if line.previous_hash != self.previous:
            raise BadRecord(seq, "previous_hash is not the hash of the record before")
        digest = hashlib.sha256(line.previous_hash.encode("ascii"))
        digest.update(body)
        if digest.hexdigest() != line.hash:
            raise BadRecord(seq, "hash does not match the canonical bytes")
        if self.receipts:
            self._receipt(line)
        rec = self._content(line, body) if self.content else None
        if self.receipts:
            self._receipt_time(line, rec, body)
        head = self.at_heads.get(seq)
        if head is not None:
            self.head_hashes[seq] = line.hash
        self.previous = line.hash
        self.expected = seq + 1
        self.report.records += 1
        self.report.last_sequence = seq
        self.report.last_hash = line.hash

    def _start(self, seq: int, previous_hash: str) -> int:
        """Where the chain read starts, from the first line: the sequence it must have, and
        the hash before it (`self.previous`)."""
        if self.from_sequence is not None:
            start = self.from_sequence
            if seq != start:
                raise BadRecord(start, f"the export starts at sequence {seq}, not at {start} as given")
            self.previous = chain.GENESIS_HASH if self.anchor is None else self.anchor.hash
            if previous_hash != self.previous:
                before = "the genesis hash" if self.anchor is None else (
                    f"the hash of signed head {self.anchor.label} (sequence {start - 1})")
                raise BadRecord(seq, f"previous_hash is not {before}, which the export continues from")
            return start
        if previous_hash == chain.GENESIS_HASH or seq == 1:
            self.previous = chain.GENESIS_HASH  # a record after the genesis hash is record 1
            return 1
        if not self.partial:
            self.report.unanchored = seq
            raise BadRecord(
                1,
                f"the export starts at sequence {seq}: records 1-{seq - 1} are not in it, and nothing "
                f"anchors its first record (the signed head at sequence {seq - 1}, or a partial check)",
            )
        if not _HASH.fullmatch(previous_hash):
            raise BadRecord(seq, "previous_hash is not a SHA-256 hash (64 lowercase hex digits)")
        self.previous = previous_hash
        self.report.partial = True
        self.report.notes.append(
            f"partial: the export starts at sequence {seq}; records 1-{seq - 1} were not checked, "
            "and its first previous hash is trusted"
        )
        return seq

    def _receipt(self, line: _Place | _Line) -> None:
        if line.kid is None or line.signature is None:
            raise BadRecord(line.sequence, "the record has no receipt (kid and signature are null)")
        if self.keyring.get(line.kid) is None:
            raise BadRecord(line.sequence, f"the receipt's key {line.kid!r} is not among the public keys")
        try:
            signature = unb64(line.signature, padded=False)
            message = receipt_message(line.client_id, line.sequence, line.hash)
        except ValueError as exc:
            raise BadRecord(line.sequence, f"the receipt cannot be read: {exc}") from exc
        if not self.keyring.verify(line.kid, message, signature):
            raise BadRecord(line.sequence, f"the receipt's signature does not verify with key {line.kid!r}")

    def _receipt_time(self, line: _Place | _Line, rec: Mapping[str, Any] | None, body: bytes | memoryview) -> None:
        """The receipt's key is one the service signed with at the record's time (a retired
        key, leaked, cannot sign records of a later time)."""
        assert line.kid is not None  # pragma: no mutate (checked by `_receipt` first)
        try:
            moment = rec.get("created_at") if rec is not None else orjson.loads(body).get("created_at")
        except (orjson.JSONDecodeError, AttributeError):
            moment = None
        if not isinstance(moment, str) or not self.keyring.may_sign(line.kid, moment):
            key = self.keyring.get(line.kid)
            made = "" if key is None else f" (made {key.created_at}, retired {key.retired_at or 'never'})"
            raise BadRecord(line.sequence, f"the receipt's key {line.kid!r}{made} does not sign records of {moment!r}")

    def _content(self, line: _Place | _Line, body: bytes | memoryview) -> dict[str, Any]:
        seq = line.sequence
        try:
            rec = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise BadRecord(seq, f"the canonical bytes are not JSON: {exc}") from exc
        if not isinstance(rec, dict):
            raise BadRecord(seq, "the canonical bytes are not a record")
        # The bytes hashed are the record's RFC 8785 form, byte for byte: whitespace, keys out
        # of order or given twice (one reader taking the first, another the last), a float
        # or an integer no JSON reader holds exactly are not.
        problem = chain.not_canonical(rec, body)
        if problem is not None:
            raise BadRecord(seq, problem)
        if type(rec.get("sequence")) is not int:
            raise BadRecord(seq, f"the record's sequence is {rec.get('sequence')!r}, not an integer")
        for name, want in (("sequence", seq), ("kind", line.kind), ("round", line.round)):
            if rec.get(name) != want:
                raise BadRecord(seq, f"the record's {name} is {rec.get(name)!r}, the line says {want!r}")
        lines = rec.get("ledger_lines")
        if not isinstance(lines, list):
            raise BadRecord(seq, "the record has no ledger lines")
        try:
            total = sum(minor_units(str(x["amount"])) for x in lines)
        except (KeyError, TypeError, ValueError) as exc:
            raise BadRecord(seq, f"a ledger line cannot be read: {exc!r}") from exc
        if total != 0:
            raise BadRecord(seq, f"the ledger lines sum to {total} minor units, not 0")
        if line.kind == RecordKind.ROUND:
            self._round(seq, line.round, rec, lines)
        elif line.kind == RecordKind.VOID:
            self._void(seq, line.round, rec, lines)
        else:
            raise BadRecord(seq, f"unknown record kind {line.kind!r}")
        return rec

    def _round(self, seq: int, round_id: str, rec: Mapping[str, Any], lines: list[Any]) -> None:
        result, request = rec.get("result"), rec.get("request")
        if not isinstance(result, dict) or not isinstance(request, dict):
            raise BadRecord(seq, "the round record has no request or result")
        currency = str(request.get("currency"))
        version = record_version_difference(rec)
        if version is not None:
            raise BadRecord(
                seq, f"the record's engine_version {version['stored']!r} is not its result's {version['recomputed']!r}"
            )
        if self.rescore:
            rescore = RESCORERS.get(str(result.get("game")))
            if rescore is None:
                raise BadRecord(seq, f"unknown game {result.get('game')!r}")
            try:
                recomputed = rescore(request)
            except CapsaError as exc:
                raise BadRecord(seq, f"the stored request no longer scores: {exc.message}") from exc
            except Exception as exc:  # a request no version of the service stored: never a traceback
                raise BadRecord(seq, f"the stored request cannot be scored: {type(exc).__name__}: {exc}") from exc
            # Equal documents compare in C; only a difference is walked, to say where.
            recomputed = as_stored_version(recomputed, result)
            if not _same(result, recomputed):
                found = chain.differences(result, recomputed)
                if not found:  # equal leaves, unequal documents: never passed as equal
                    raise BadRecord(seq, "re-scored, the result differs from the record's")
                raise BadRecord(seq, _differing(found[0]))
            self.report.rescored += 1
        try:
            expected = _expected_lines(result)
            if lines != [x.to_json(currency) for x in expected]:
                raise BadRecord(seq, "the ledger lines are not the settlement of the result")
            reversal = [x.to_json(currency) for x in chain.reversal_lines(expected)]
        except (KeyError, TypeError, ValueError, CapsaError) as exc:
            raise BadRecord(seq, f"the result's settlement cannot be read: {exc!r}") from exc
        if round_id in self.reversals:
            raise BadRecord(seq, f"round {round_id!r} is recorded twice")
        self.reversals[round_id] = _digest(reversal)

    def _void(self, seq: int, round_id: str, rec: Mapping[str, Any], lines: list[Any]) -> None:
        reason = rec.get("request")
        if not (isinstance(reason, dict) and reason.keys() == {"reason"} and isinstance(reason["reason"], str)):
            raise BadRecord(seq, f'the void\'s request is {quoted(reason)}, not {{"reason": ...}}')
        if rec.get("result") != reason:
            raise BadRecord(seq, f"the void's result is {quoted(rec.get('result'))}, not its request {quoted(reason)}")
        if round_id in self.voided:
            raise BadRecord(seq, f"round {round_id!r} is voided a second time")
        self.voided.add(round_id)
        wanted = self.reversals.get(round_id)
        if wanted is None:
            if self.report.first_sequence == 1:
                raise BadRecord(seq, f"the void's round {round_id!r} is not earlier in the chain")
            self.voids_unmatched += 1
            return
        if _digest(lines) != wanted:
            raise BadRecord(seq, "the void's lines are not the negation of its round's lines")

    # -- the end ---------------------------------------------------------------------------

    def finish(self) -> Report:
        """After the last line: the signed heads against what was read."""
        report = self.report
        if self.voids_unmatched:
            report.notes.append(
                f"{self.voids_unmatched} voids of rounds before the export were not matched to their round"
            )
        fork = forks_between(self.heads)
        if fork is not None:
            return self._bad(None, fork)
        for h in self.heads:
            if self.client is not None and h.client_id != self.client:
                return self._bad(None, f"head {h.label} is of client {h.client_id!r}, the export of {self.client!r}")
            last = 0 if report.last_sequence is None else report.last_sequence
            if h.sequence > last:
                return self._bad(
                    last + 1,
                    f"the export ends at sequence {last} and does not reach signed head {h.label} "
                    f"(sequence {h.sequence}; truncated, or records withheld)",
                )
            if h.sequence == 0 and h.hash != chain.GENESIS_HASH:
                return self._bad(None, f"head {h.label} at sequence 0 is not the genesis hash")
            if self.anchor is not None and h.sequence == self.anchor.sequence and h.hash == self.anchor.hash:
                report.heads_checked += 1  # the first record's previous hash is its hash
                continue
            if report.first_sequence is not None and 0 < h.sequence < report.first_sequence:
                report.notes.append(f"head {h.label} (sequence {h.sequence}) is before the export: not checked")
                continue
            got = self.head_hashes.get(h.sequence)
            if h.sequence > 0 and got != h.hash:
                return self._bad(
                    h.sequence,
                    f"fork: signed head {h.label} has hash {h.hash[:16]}... at sequence {h.sequence}, "
                    f"the export's record there has {str(got)[:16]}... (the chain was rewritten or forked)",
                )
            report.heads_checked += 1
        return report

    def _bad(self, sequence: int | None, reason: str) -> Report:
        self.report.ok = False
        self.report.first_bad_sequence = sequence
        self.report.reason = reason
        return self.report


def verify_lines(
    lines: Iterable[bytes],
    keyring: Keyring,
    heads: Iterable[SignedHead] = (),
    *,
    rescore: bool = True,
    from_sequence: int | None = None,
    partial: bool = False,
    progress: Callable[[int], None] | None = None,
    every: int = 10_000,
    **steps: bool,
) -> Report:
    """Check an export given as its lines (each with its newline); the first bad record stops it."""
    check = ExportCheck(keyring, heads, rescore, from_sequence=from_sequence, partial=partial, **steps)
    n = 0
    for n, raw in enumerate(lines, start=1):
        try:
            check.feed(raw)
        except BadRecord as bad:
            check.report.ok = False
            check.report.first_bad_sequence = bad.sequence
            check.report.reason = bad.reason
            return check.report
        if progress is not None and n % every == 0:
            progress(n)
    if progress is not None and n % every:
        progress(n)  # the last figure: every line read
    if check.expected is None:
        return check._bad(None, "the export is empty: it holds no record, so it shows nothing")
    return check.finish()


__all__ = [
    "MAX_DOCUMENT",
    "MAX_LINE",
    "BadRecord",
    "ExportCheck",
    "MissingAnchor",
    "Report",
    "SignedHead",
    "anchor_of",
    "forks_between",
    "parse_head",
    "read_lines",
    "verify_lines",
]
