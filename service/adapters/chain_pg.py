"""The PostgreSQL write path: a record, its round, lines, key claim and deal in one statement.

One round trip stores a round: a single data-modifying CTE, run as its own transaction
(autocommit) or inside the unit of work's transaction when it already holds one. In order:

1. `claim` inserts the Idempotency-Key row. A row of another request still running is its
   uncommitted insert, so this waits for that request to end (at most `lock_timeout`, 2 s)
   and then finds the committed key (or, if it rolled back, takes the key itself). A key
   older than the retention is taken over in place.
2. `reference` (a round with a reference) inserts it into `client_references`, where a
   Capsa Susun game takes its own (migration 0029): an insert meeting an uncommitted one
   of the same key (a game or a round in flight) waits for its transaction, so of two at
   once the second fails on the key (`pk_client_references`: ReferenceUsed). A plain
   insert: ON CONFLICT would write a second WAL record per round to confirm it.
3. `deal` marks the deal used, if the round names one.
4. `gate` aborts the statement (`capsa_refuse`) when the key or the deal was taken, or a
   game stored before that table holds the reference, so no row of a refused request is
   written. It asks in the order the rows are locked in: the key, the reference, the deal
   (a game takes its reference before its deal).
5. `head` advances the client's chain head: it locks the head row, and computes the new
   hash from the old one with `sha256()` over the previous hash's hex and the record's
   canonical bytes, sealed with the new sequence. The lock is held from here to commit,
   that is for the rest of this one statement. It also says whether this writer signs
   (`signing`): the webhook dispatcher then waits for the receipt of a young record.
6. `record`, `round` and `lines` insert the chain record, the round's query columns and
   the ledger lines. A statement-level trigger checks, once per record, that the lines
   sum to zero.
7. `receipts` (when some wait, `pending_receipts`) stores the receipts this process signed
   after its previous writes: a receipt is made once PostgreSQL has returned the hash, so
   it rides in the next statement instead of a transaction of its own.
"""

from __future__ import annotations

from typing import Any

from .pending_receipts import Receipt
from .pending_receipts import parameters as receipt_parameters
from .pg_literals import int_array, text_array
from .records import Claim, NewRecord

# Custom SQLSTATEs raised by capsa_refuse() (migration 0005).
KEY_TAKEN = "CP001"
DEAL_USED = "CP002"
REFERENCE_HELD = "CP003"

_CLAIM = """
claim AS (
  INSERT INTO idempotency_records
         (client_id, method, path, key, request_hash, status_code, resource, created_at)
  VALUES (%(client)s, %(method)s, %(path)s, %(key)s, %(digest)s, %(status)s, %(resource)s, %(now)s)
  ON CONFLICT (client_id, method, path, key) DO UPDATE
     SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
         resource = EXCLUDED.resource, created_at = EXCLUDED.created_at,
         content_type = NULL, location = NULL, response_body = NULL
   WHERE idempotency_records.created_at < %(expired)s
  RETURNING 1
),"""
_REFERENCE = """
reference AS (
  INSERT INTO client_references (client_id, reference) VALUES (%(client)s, %(reference)s)
  RETURNING 1
),"""
_DEAL = """
deal AS (
  UPDATE deals SET used_at = %(now)s, used_by = %(round)s, revealed_at = COALESCE(revealed_at, %(now)s)
   WHERE id = %(deal)s AND client_id = %(client)s AND used_at IS NULL
  RETURNING 1
),"""
_HEAD = """
head AS (
  UPDATE chain_heads h
     SET previous_hash = h.hash,
         sequence = h.sequence + 1,
         hash = encode(sha256(convert_to(h.hash, 'UTF8') || %(unsealed)s::bytea
                              || convert_to((h.sequence + 1)::text, 'UTF8') || '\\x7d'::bytea), 'hex'),
         created_at = %(now)s,
         signing = %(signing)s
    {gate_from}
   WHERE h.client_id = %(client)s {gate_where}
  RETURNING h.sequence, h.hash, h.previous_hash
),
record AS (
  INSERT INTO chain_records (client_id, sequence, kind, round_id, previous_hash, hash, canonical)
  SELECT %(client)s, sequence, %(kind)s, %(round)s, previous_hash, hash,
         %(unsealed)s::bytea || convert_to(sequence::text, 'UTF8') || '\\x7d'::bytea
    FROM head
),{round_cte}
lines AS (
  INSERT INTO ledger_lines (client_id, sequence, line_no, created_at, player_id, kind, basis,
                            amount, currency, table_ref, points, winnings)
  SELECT %(client)s, head.sequence, l.n - 1, %(now)s, l.player_id, l.kind, l.basis,
         l.amount, %(currency)s, %(table)s, l.points, l.winnings
    FROM head,
         unnest(%(players)s::text[], %(kinds)s::text[], %(bases)s::text[], %(amounts)s::int8[],
                %(points)s::int8[], %(winnings)s::int8[])
           WITH ORDINALITY AS l(player_id, kind, basis, amount, points, winnings, n)
)
SELECT sequence, hash, previous_hash FROM head
"""
_RECEIPTS = """
receipts AS (
  INSERT INTO chain_signatures (client_id, sequence, kid, signature)
  SELECT r.client_id, r.sequence, r.kid, decode(r.signature, 'hex')
    FROM unnest(%(r_clients)s::text[], %(r_sequences)s::int8[], %(r_kids)s::text[], %(r_signatures)s::text[])
           AS r(client_id, sequence, kid, signature)
  ON CONFLICT DO NOTHING
),"""
_ROUND = """
round AS (
  INSERT INTO rounds (id, client_id, sequence, game, preset, table_ref, reference, currency, created_at)
  SELECT %(round)s, %(client)s, head.sequence, %(game)s, %(preset)s, %(table)s, %(reference)s, %(currency)s, %(now)s
    FROM head
),"""


# A game stored before `client_references` (or by a server of the release before it).
_GAMES_REFERENCE = """EXISTS (SELECT FROM susun_games
                WHERE client_id = %(client)s AND reference = %(reference)s)"""


def _statement(claim: bool, deal: bool, round_: bool, receipts: bool, take_reference: bool = False) -> str:
    gate = ""
    if claim or deal or take_reference:
        checks = []
        if claim:
            checks.append(f"WHEN NOT EXISTS (SELECT FROM claim) THEN capsa_refuse('{KEY_TAKEN}')")
        if take_reference:  # run before the deal (the row locks' order); a taken key fails the insert
            checks.append(f"WHEN NOT EXISTS (SELECT FROM reference) THEN capsa_refuse('{REFERENCE_HELD}')")
        if deal:
            checks.append(f"WHEN NOT EXISTS (SELECT FROM deal) THEN capsa_refuse('{DEAL_USED}')")
        if take_reference:
            checks.append(f"WHEN {_GAMES_REFERENCE} THEN capsa_refuse('{REFERENCE_HELD}')")
        gate = "\ngate AS (SELECT CASE " + " ".join(checks) + " ELSE 1 END AS ok),"
    head = _HEAD.format(
        gate_from="FROM gate" if gate else "",
        gate_where="AND gate.ok = 1" if gate else "",
        round_cte=(_ROUND if round_ else "") + (_RECEIPTS if receipts else ""),
    )
    return "WITH" + (_CLAIM if claim else "") + (_REFERENCE if take_reference else "") + (_DEAL if deal else "") + gate + head


STATEMENTS = {
    (claim, deal, round_, receipts, take): _statement(claim, deal, round_, receipts, take)
    for claim in (False, True)
    for deal in (False, True)
    for round_ in (False, True)
    for receipts in (False, True)
    for take in ((False, True) if round_ else (False,))
}


def parameters(
    record: NewRecord,
    claim: Claim | None,
    deal: str | None,
    receipts: list[Receipt] | None = None,
    take_reference: bool = False,
    signing: bool = False,
) -> tuple[str, dict[str, Any]]:
    """The statement for this record and its parameters, with `receipts` (of records stored
    before) riding in it. The lines go as array literals (`pg_literals`): one text parameter
    each, which costs a fraction of adapting a Python list. With `take_reference`, the round
    takes its reference: one a game or another round holds is refused (ReferenceUsed;
    ReferenceHeld for a game stored before references were taken). `signing`: the writer
    holds a signing key (its receipt may be stored after the record)."""
    lines = record.lines
    params: dict[str, Any] = {
        "client": record.client_id,
        "round": record.round_id,
        "kind": record.kind,
        "now": record.created_at,
        "unsealed": record.unsealed,
        "currency": record.currency,
        "table": record.table,
        "players": text_array([line.player_id for line in lines]),
        "kinds": text_array([line.kind for line in lines]),
        "bases": text_array([line.basis for line in lines]),
        "amounts": int_array([line.amount for line in lines]),
        "points": int_array([line.points for line in lines]),
        "winnings": int_array([line.winnings for line in lines]),
        "signing": signing,
    }
    take_reference = take_reference and record.round is not None and record.round.reference is not None
    if record.round is not None:
        r = record.round
        params.update(game=r.game, preset=r.preset, reference=r.reference)
    if claim is not None:
        params.update(
            method=claim.method,
            path=claim.path,
            key=claim.key,
            digest=claim.request_hash,
            status=claim.status_code,
            expired=claim.expired_before,
        )
        params["resource"] = claim.resource
    if deal is not None:
        params["deal"] = deal
    if receipts:
        params.update(receipt_parameters(receipts))
    key = (claim is not None, deal is not None, record.round is not None, bool(receipts), take_reference)
    return STATEMENTS[key], params


__all__ = ["DEAL_USED", "KEY_TAKEN", "REFERENCE_HELD", "STATEMENTS", "parameters"]
