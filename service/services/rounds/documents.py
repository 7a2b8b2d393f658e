"""A stored round as its API document, rendered from its record's canonical bytes.

One function renders every answer about a round (the 201, a replay, GET, lists, the void
answer), and its output depends only on the document's content, never on the order its
keys arrived in: known keys go in the documented order, anything else after them, sorted.
So `GET /v1/rounds/{id}` is byte for byte the 201 while the round is not voided (a voided
round differs only in `status` and `void`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from service.domain.rules import SPECS
from service.domain.signing import b64
from service.domain.susun.rules import BONUS_KEYS, BY_RANK_RANKS, NATURALS


class RoundStatus(StrEnum):
    """A stored round's `status`: settled when stored, void once voided (docs/api.md#voids)."""

    SETTLED = "settled"
    VOID = "void"


_TOP = ("table", "reference", "game_id", "currency", "stake", "rules", "engine_version")
_AFTER_STATUS = ("players", "pairs", "house_fee", "history")
_PLAYER = ("id", "rows", "foul", "natural", "surrender", "auto_arranged", "cards_left", "points", "result", "winnings", "fee", "net")
_PAIR = ("players", "stake", "rows", "bonus", "outcome", "multiplier", "points", "amount")
_ROWS = ("front", "middle", "back")
_ROW = ("category", "cards", "bonus")
_HISTORY = ("n", "player", "play", "pass", "auto", "at")
_RULES = ("preset", "version", "params")
_PARAM_ORDER: dict[str, tuple[str, ...]] = {game: tuple(spec) for game, spec in SPECS.items()}
_TABLE_ORDER: dict[str, tuple[str, ...]] = {"bonus": BONUS_KEYS, "natural_values": NATURALS}
_BY_RANK_KEYS = tuple(BY_RANK_RANKS)


def ordered(doc: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """`doc` with `keys` first in that order, then any others sorted by name."""
    out = {k: doc[k] for k in keys if k in doc}
    if len(out) != len(doc):
        out.update((k, doc[k]) for k in sorted(doc) if k not in out)
    return out


def _params(game: str, params: Any) -> Any:
    if not isinstance(params, Mapping):
        return params
    out = ordered(params, _PARAM_ORDER.get(game, ()))
    for name, keys in _TABLE_ORDER.items():
        if isinstance(out.get(name), Mapping):
            out[name] = ordered(out[name], keys)
    by_rank = out.get("bonus_by_rank")
    if isinstance(by_rank, Mapping):  # rows and categories in their order, then ranks from 2 to A
        out["bonus_by_rank"] = {
            key: ordered(table, BY_RANK_RANKS.get(key, "")) if isinstance(table, Mapping) else table
            for key, table in ordered(by_rank, _BY_RANK_KEYS).items()
        }
    return out


def rules_document(game: str, rules: Any) -> Any:
    if not isinstance(rules, Mapping):
        return rules
    out = ordered(rules, _RULES)
    if "params" in out:
        out["params"] = _params(game, out["params"])
    return out


def _player(doc: Any) -> Any:
    if not isinstance(doc, Mapping):
        return doc
    out = ordered(doc, _PLAYER)
    rows = out.get("rows")
    if isinstance(rows, Mapping):
        out["rows"] = {k: ordered(v, _ROW) if isinstance(v, Mapping) else v for k, v in ordered(rows, _ROWS).items()}
    return out


def _pair(doc: Any) -> Any:
    if not isinstance(doc, Mapping):
        return doc
    out = ordered(doc, _PAIR)
    if isinstance(out.get("rows"), Mapping):
        out["rows"] = ordered(out["rows"], _ROWS)
    bonus, players = out.get("bonus"), out.get("players")
    if isinstance(bonus, Mapping) and isinstance(players, list):
        out["bonus"] = ordered(bonus, [p for p in players if isinstance(p, str)])
    return out


def _history(entries: Any) -> Any:
    if not isinstance(entries, list):
        return entries
    return [ordered(e, _HISTORY) if isinstance(e, Mapping) else e for e in entries]


def score_document(score: Mapping[str, Any]) -> dict[str, Any]:
    """A `POST /v1/score` document in the documented key order."""
    return _body(score, None)


def _part(name: str, value: Any) -> Any:
    """A part of a score document in the documented order."""
    if name == "players" and isinstance(value, list):
        return [_player(p) for p in value]
    if name == "pairs" and isinstance(value, list):
        return [_pair(p) for p in value]
    if name == "history":
        return _history(value)
    return value


def _body(score: Mapping[str, Any], status: tuple[str, Any] | None, in_order: bool = False) -> dict[str, Any]:
    game = str(score.get("game"))
    doc: dict[str, Any] = {"game": score.get("game")} if "game" in score else {}
    for name in _TOP:
        if name in score:
            doc[name] = rules_document(game, score[name]) if name == "rules" else score[name]
    if status is not None:
        doc["status"], doc["void"] = status
    for name in _AFTER_STATUS:
        if name not in score:
            continue
        doc[name] = score[name] if in_order else _part(name, score[name])
    known = {"game", *_TOP, *_AFTER_STATUS}
    for name in sorted(score):
        if name not in known:
            doc[name] = score[name]
    return doc


def round_document(
    round_id: str,
    record: Mapping[str, Any],
    audit: Mapping[str, Any] | None,
    void: Mapping[str, Any] | None = None,
    *,
    in_order: bool = False,
) -> dict[str, Any]:
    """The API document of a stored round from its parsed record: the score document
    (`result`) plus id, time, status, void and audit. `void` is `{"at", "reason", "audit"}`.

    A record read back has its keys sorted (canonical JSON), so its players, pairs and rules
    are put in the documented order. `in_order`: the record was just built from the
    domain's score document, whose players and pairs are in that order already (the write
    path: 38 -> 9 us a round; a test holds its answer byte for byte equal to the same round
    read back, for every preset). Its rules are ordered still: a client's overrides arrive in
    the client's order."""
    score = record["result"]
    status = RoundStatus.VOID if void is not None else RoundStatus.SETTLED
    body = _body(score, (status.value, void), in_order)
    doc: dict[str, Any] = {"id": round_id}
    if "game" in body:
        doc["game"] = body.pop("game")
    doc["created_at"] = record["created_at"]
    doc.update(body)
    doc["audit"] = None if audit is None else dict(audit)
    return doc


def void_info(void_record: Mapping[str, Any], audit: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`{"at", "reason", "audit"}` of a void from its parsed record and its own receipt."""
    return {
        "at": void_record["created_at"],
        "reason": void_record["request"]["reason"],
        "audit": None if audit is None else dict(audit),
    }


def audit_of(
    sequence: int, hash_: str, previous_hash: str, kid: str | None = None, signature: bytes | None = None
) -> dict[str, Any]:
    """A record's place in the chain and its receipt (`signature`: unpadded base64url of the
    Ed25519 signature over `capsa-audit-v1\\n{client}\\n{sequence}\\n{hash}\\n`; null while unsigned)."""
    return {
        "sequence": sequence,
        "hash": hash_,
        "previous_hash": previous_hash,
        "kid": kid,
        "signature": None if signature is None else b64(signature),
    }


def audit_of_record(record: Any) -> dict[str, Any]:
    """`audit_of` a stored record (`StoredRecord`, or an `Appended` once it has run)."""
    return audit_of(record.sequence, record.hash, record.previous_hash, record.kid, record.signature)


__all__ = [
    "audit_of",
    "audit_of_record",
    "ordered",
    "round_document",
    "rules_document",
    "score_document",
    "void_info",
]
