"""Provably fair deals (docs/api.md#deals): commit, make, show, reveal, and use once by a
round or a game.

The shuffle itself is `service.domain.deals`; this module adds the random server seed, the
per-client nonce, storage, and the checks that a round's or a game's cards are the dealt ones.
A commitment draws the seed and takes the nonce before the client's seed exists; a deal made
from it shuffles with them.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from service.adapters.deals import CommitmentRecord, DealRecord
from service.adapters.uow import Database, UnitOfWork
from service.domain.cards import Card, canonical, parse_cards
from service.domain.deals import DealStatus, DealUse, commitment, deal, discloses_hands, status_of
from service.domain.errors import CapsaError, FieldError, InvalidCard, InvalidRound, raise_collected
from service.services.clock import new_id, rfc3339, utcnow_ms
from service.services.cursors import decode_cursor, encode_cursor
from service.services.errors import Conflict, DealInPlay, InvalidInput, NotFound

SEED_BYTES = 32


def new_server_seed() -> bytes:
    """32 bytes from the OS CSPRNG (a test may patch this to reproduce a known deal)."""
    return secrets.token_bytes(SEED_BYTES)


@dataclass(frozen=True)
class DealtHands:
    """A deal as a round or game checks cards against it: ids in deal order, their hands."""

    id: str
    players: tuple[str, ...]
    hands: tuple[tuple[Card, ...], ...]
    shown: bool = True  # whether the caller may see the hands: errors list cards only then

    def hand_of(self, player: str) -> frozenset[Card] | None:
        try:
            return frozenset(self.hands[self.players.index(player)])
        except ValueError:
            return None


def create(db: Database, client_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /v1/deals`: a new deal with the client's next nonce; the seed stays secret."""
    players = list(body["players"])
    errors = [
        FieldError(f"players[{i}]", f"{pid!r} is also players[{players.index(pid)}]")
        for i, pid in enumerate(players)
        if players.index(pid) != i
    ]
    raise_collected(errors, InvalidRound)
    client_seed = str(body["client_seed"])
    commitment_id = body.get("commitment_id")
    with db.unit_of_work(write=True) as uow:
        drawn = None if commitment_id is None else _unused_commitment(uow, client_id, str(commitment_id))
        made = insert_new(uow, client_id, players, client_seed, drawn)
        uow.commit()
    return document(made, DealUse.UNUSED, writer=True)  # the fields GET answers, from the deal as inserted


def insert_new(
    uow: UnitOfWork, client_id: str, players: Sequence[str], client_seed: str, drawn: CommitmentRecord | None = None
) -> DealRecord:
    """Make and insert a deal in the caller's transaction (`POST /v1/deals`, and a Capsa
    Susun game started without a deal): the deal stored. Its server seed and nonce are the
    commitment's (`drawn`, which it uses up: 409 when a deal was made from it meanwhile),
    else drawn now, with the client's next nonce."""
    now = utcnow_ms()
    deal_id = new_id("dl", now)
    if drawn is None:
        server_seed, nonce, committed_at = new_server_seed(), uow.deals.next_nonce(client_id), now
    else:
        if not uow.deals.use_commitment(client_id, drawn.id, deal_id):
            # Another deal took it since it was read: its statement committed (a write
            # transaction reads what has committed), so this names it.
            taken = uow.deals.commitment(client_id, drawn.id)
            raise _commitment_used(drawn.id, None if taken is None else taken.used_by)
        server_seed, nonce, committed_at = drawn.server_seed, drawn.nonce, drawn.created_at
    hands = deal(server_seed, client_seed, nonce, len(players))
    made = DealRecord(
        id=deal_id,
        client_id=client_id,
        nonce=nonce,
        server_seed=server_seed,
        commitment=commitment(server_seed),
        client_seed=client_seed,
        players=tuple(players),
        hands=tuple(tuple(canonical(h)) for h in hands),
        used_at=None,
        used_by=None,
        revealed_at=None,
        created_at=now,
        commitment_id=None if drawn is None else drawn.id,
        committed_at=committed_at,
    )
    uow.deals.insert(made)
    return made


# -- commitments ----------------------------------------------------------------------------


def commit(db: Database, client_id: str) -> dict[str, Any]:
    """`POST /v1/deals/commitments`: draw a server seed and take the client's next nonce now,
    before the client chooses its seed; answer the seed's SHA-256 only."""
    now = utcnow_ms()
    server_seed = new_server_seed()
    with db.unit_of_work(write=True) as uow:
        made = CommitmentRecord(
            id=new_id("dc", now),
            client_id=client_id,
            nonce=uow.deals.next_nonce(client_id),  # its row lock orders the client's deals and commitments
            server_seed=server_seed,
            commitment=commitment(server_seed),
            created_at=now,
            used_by=None,
        )
        uow.deals.insert_commitment(made)
        uow.commit()
    return commitment_document(made)


def get_commitment(db: Database, client_id: str, commitment_id: str) -> dict[str, Any]:
    """`GET /v1/deals/commitments/{id}`."""
    with db.unit_of_work() as uow:
        found = uow.deals.commitment(client_id, commitment_id)
    if found is None:
        raise NotFound(f"no commitment {commitment_id!r}")
    return commitment_document(found)


def commitment_document(made: CommitmentRecord) -> dict[str, Any]:
    """A commitment as answered: never its seed (the deal made from it shows that, once
    used or revealed)."""
    return {
        "id": made.id,
        "commitment": made.commitment,
        "nonce": made.nonce,
        "created_at": rfc3339(made.created_at),
        "used_by": made.used_by,
    }


def _unused_commitment(uow: UnitOfWork, client_id: str, commitment_id: str) -> CommitmentRecord:
    """The commitment a deal's body names: 422 on `commitment_id` when this client has none
    by that id, 409 when a deal was made from it."""
    found = uow.deals.commitment(client_id, commitment_id)
    if found is None:
        raise InvalidInput(
            f"no commitment {commitment_id!r} for this client",
            errors=[FieldError("commitment_id", "no such commitment; make one with POST /v1/deals/commitments")],
        )
    if found.used_by is not None:
        raise _commitment_used(commitment_id, found.used_by)
    return found


def _commitment_used(commitment_id: str, deal_id: str | None = None) -> Conflict:
    by = "" if deal_id is None else f" by deal {deal_id!r}"
    return Conflict(
        f"commitment {commitment_id!r} has already been used{by}",
        errors=[FieldError("commitment_id", "already used; a commitment makes one deal")],
    )


def document(row: DealRecord, use: DealUse, *, writer: bool) -> dict[str, Any]:
    """`GET /v1/deals/{id}`: `server_seed` (hex) only once the deal is used or revealed, and
    neither `hands` nor `server_seed` while the game that used it is in play (`use`, which
    every answer about a deal must pass: `uses` finds it); an unused deal's hands, while its
    seed is secret, only to a write key (`writer`)."""
    doc: dict[str, Any] = {
        "id": row.id,
        "status": status_of(row.used_at is not None, row.revealed_at is not None).value,
        "commitment": row.commitment,
        "commitment_id": row.commitment_id,
        "committed_at": rfc3339(row.committed_at or row.created_at),
        "nonce": row.nonce,
        "client_seed": row.client_seed,
        "players": list(row.players),
        "hands": {p: list(h) for p, h in zip(row.players, row.hands, strict=True)},
        "created_at": rfc3339(row.created_at),
        "used_at": _stamp(row.used_at),
        "used_by": row.used_by,
        "revealed_at": _stamp(row.revealed_at),
    }
    if row.used_at is not None or row.revealed_at is not None:
        doc["server_seed"] = row.server_seed.hex()
    if not discloses_hands(use, public=row.revealed_at is not None, writer=writer):
        del doc["hands"]
        doc.pop("server_seed", None)
    return doc


def uses(uow: UnitOfWork, client_id: str, rows: Sequence[DealRecord]) -> list[DealUse]:
    """Where each of these deals stands (one query for all of them): unused, used by a game
    still in play, or used by a round or a game that has ended."""
    in_play = uow.deals.in_play(client_id, [r.id for r in rows if r.used_by is not None])
    return [
        DealUse.UNUSED if r.used_by is None else DealUse.IN_PLAY if r.id in in_play else DealUse.ENDED
        for r in rows
    ]


def in_play_conflict(deal_id: str, used_by: str | None, field: str = "deal") -> DealInPlay:
    """409 `deal-in-play`, on `field`: the body's `deal`, or the path's `deal_id` (reveal)."""
    return DealInPlay(
        f"deal {deal_id!r} is used by game {used_by!r}, still in play: "
        "its seed and hands are shown once the game has ended",
        errors=[FieldError(field, "used by a game in play")],
    )


def _stamp(at: datetime | None) -> str | None:
    return None if at is None else rfc3339(at)


def list_(
    db: Database,
    client_id: str,
    *,
    writer: bool,
    status: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> dict[str, Any]:
    """`GET /v1/deals`: a page of the client's deals, newest first by (created_at, id), of
    this status (one of `DealStatus`: the schema checked it), as a key of this scope sees
    them (`writer`: `document`)."""
    after = None if cursor is None else cast(tuple[datetime, str], decode_cursor(cursor, str))
    wanted = None if status is None else DealStatus(status)
    with db.unit_of_work() as uow:
        rows, next_after = uow.deals.page(client_id, wanted, limit, after)
        items = [document(r, use, writer=writer) for r, use in zip(rows, uses(uow, client_id, rows), strict=True)]
    return {"items": items, "next_cursor": None if next_after is None else encode_cursor(*next_after)}


def get(db: Database, client_id: str, deal_id: str, *, writer: bool) -> dict[str, Any]:
    with db.unit_of_work() as uow:
        row = _found(uow, client_id, deal_id)
        return document(row, uses(uow, client_id, [row])[0], writer=writer)


def reveal(db: Database, client_id: str, deal_id: str) -> dict[str, Any]:
    """`POST /v1/deals/{id}/reveal`: publish the server seed (revealing twice is harmless);
    409 `deal-in-play` while the game that used the deal is in play."""
    with db.unit_of_work(write=True) as uow:
        # Locked: a game starting on it meanwhile has committed (and is seen in play) or
        # waits for this reveal (and is refused: revealed).
        row = _found(uow, client_id, deal_id, lock=True)
        if uses(uow, client_id, [row])[0] is DealUse.IN_PLAY:
            raise in_play_conflict(deal_id, row.used_by, "path.deal_id")
        uow.deals.mark_revealed(client_id, deal_id, utcnow_ms())  # the row is held: as read above
        uow.commit()
    return get(db, client_id, deal_id, writer=True)


def _found(uow: UnitOfWork, client_id: str, deal_id: str, lock: bool = False) -> DealRecord:
    row = uow.deals.get(client_id, deal_id, lock=lock)
    if row is None:
        raise NotFound(f"no deal {deal_id!r}")
    return row


# -- using a deal ---------------------------------------------------------------------------


def dealt(uow: UnitOfWork, client_id: str, deal_id: str, *, writer: bool = True, lock: bool = False) -> DealtHands:
    """The deal named in a body (422 on `deal` when this client has none by that id; 409
    `deal-in-play` when a game in play used it, before any card is compared with its hands,
    so no error detail lists them). For a read key (`writer` false: `POST /v1/score`), an
    error about a deal whose hands it may not see names no card. `lock`: a game about to
    use it locks its row first, so requests on one deal take their turns in one order
    (taken after the game's own rows, two games and a reveal deadlocked)."""
    row = uow.deals.get(client_id, deal_id, lock=lock)
    if row is None:
        raise InvalidInput(
            f"no deal {deal_id!r} for this client",
            errors=[FieldError("deal", "no such deal; make one with POST /v1/deals")],
        )
    use = uses(uow, client_id, [row])[0]
    if use is DealUse.IN_PLAY:
        raise in_play_conflict(deal_id, row.used_by)
    return _dealt_hands(row, discloses_hands(use, public=row.revealed_at is not None, writer=writer))


def _dealt_hands(row: DealRecord, shown: bool = True) -> DealtHands:
    return DealtHands(row.id, row.players, tuple(tuple(parse_cards(h, "hands")) for h in row.hands), shown)


def used_conflict(deal_id: str) -> Conflict:
    return Conflict(
        f"deal {deal_id!r} has already been used",
        errors=[FieldError("deal", "already used; a deal is used at most once")],
    )


def conflict_now(db: Database, client_id: str, deal_id: str) -> Conflict | DealInPlay:
    """The 409 for a deal a write found used (a round's, after its own check passed): 409
    `deal-in-play` while the game that took it meanwhile is in play, as the check would
    have said a moment later, else `conflict`."""
    with db.unit_of_work() as uow:
        row = uow.deals.get(client_id, deal_id)
        if row is not None and uses(uow, client_id, [row])[0] is DealUse.IN_PLAY:
            return in_play_conflict(deal_id, row.used_by)
    return used_conflict(deal_id)


def use(uow: UnitOfWork, client_id: str, deal_id: str, used_by: str) -> None:
    """Mark the deal used by a game (its seed is shown once the game has ended); 409 when
    it was used before, or revealed: a game on a published seed would be played with its
    hands known. (A round uses its deal in the statement that stores it.)"""
    row = uow.deals.get(client_id, deal_id)
    if row is not None and row.used_at is None and row.revealed_at is not None:
        raise _revealed_conflict(deal_id, row.revealed_at)
    if not uow.deals.mark_used(client_id, deal_id, used_by, utcnow_ms()):
        # Used, or revealed since it was read above (a reveal racing the game's start).
        now = uow.deals.get(client_id, deal_id, lock=True)
        if now is not None and now.used_at is None and now.revealed_at is not None:
            raise _revealed_conflict(deal_id, now.revealed_at)
        raise used_conflict(deal_id)


def ended(uow: UnitOfWork, client_id: str, deal_id: str | None, at: datetime) -> None:
    """The game that used this deal (if it used one) has ended at `at`: the deal's seed is
    published from then (`revealed_at`), as its answers show it from then."""
    if deal_id is not None:
        uow.deals.mark_revealed(client_id, deal_id, at)


def _revealed_conflict(deal_id: str, revealed_at: datetime) -> Conflict:
    return Conflict(
        f"deal {deal_id!r} was revealed at {rfc3339(revealed_at)}: its hands are public",
        errors=[FieldError("deal", "revealed; a game needs a deal whose seed is still secret")],
    )


def check_players(dealt_hands: DealtHands, ids: Sequence[str], ordered: bool) -> None:
    """The body's players are the deal's (in deal order for a game, any order for a round)."""
    same = list(ids) == list(dealt_hands.players) if ordered else sorted(ids) == sorted(dealt_hands.players)
    if not same:
        order = " in this order" if ordered else ""
        raise InvalidRound(
            f"the players must be the deal's players{order}: {list(dealt_hands.players)!r}",
            field="players",
        )


def check_round_cards(dealt_hands: DealtHands, request: Mapping[str, Any]) -> None:
    """Every player's cards in a normalised round request are exactly its dealt hand.

    A player's cards are its rows, or its `hand` when it surrenders; a surrendering player
    without a hand shows no cards to check.
    """
    players = request["players"]
    check_players(dealt_hands, [p["id"] for p in players], ordered=False)
    errors: list[FieldError] = []
    for i, player in enumerate(players):
        arrangement = player.get("arrangement")
        if arrangement is not None:
            texts = [c for row in ("front", "middle", "back") for c in arrangement[row]]
            where = f"players[{i}].arrangement"
        elif player.get("hand") is not None:
            texts, where = player["hand"], f"players[{i}].hand"
        else:
            continue
        mismatch = _mismatch(dealt_hands, player["id"], texts, where)
        if mismatch is not None:
            errors.append(FieldError(where, mismatch))
    raise_collected(errors, InvalidCard)


def check_hand(dealt_hands: DealtHands, player: str, texts: Sequence[str], where: str) -> None:
    mismatch = _mismatch(dealt_hands, player, texts, where)
    if mismatch is not None:
        raise InvalidCard(mismatch, field=where)


def _mismatch(dealt_hands: DealtHands, player: str, texts: Sequence[str], where: str) -> str | None:
    hand = dealt_hands.hand_of(player)
    assert hand is not None
    cards = frozenset(parse_cards(texts, where))
    if cards == hand:
        return None
    if not dealt_hands.shown:  # which cards differ would tell a read key the hand, a guess at a time
        return f"these are not the cards deal {dealt_hands.id} dealt to {player!r}"
    extra = " ".join(canonical(sorted(cards - hand, key=_order)))
    missing = " ".join(canonical(sorted(hand - cards, key=_order)))
    return (
        f"{player!r} was not dealt these cards by deal {dealt_hands.id}: "
        f"not dealt {extra or '-'}; dealt but missing {missing or '-'}"
    )


def _order(card: Card) -> int:
    return card.index


def round_differences(uow: UnitOfWork, client_id: str, round_id: str, request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What a stored round's verify finds wrong with the deal its request names (none when it
    names none), as `{"field", "stored", "recomputed"}`: the deal must exist, its seed hash
    to its commitment, the seeds shuffle to its hands, it be used by this round (or by the
    game the round settled), and the round's cards be its hands."""
    deal_id = request.get("deal")
    if deal_id is None:
        return []
    row = uow.deals.get(client_id, str(deal_id))
    if row is None:
        return [{"field": "request.deal", "stored": deal_id, "recomputed": None}]
    out: list[dict[str, Any]] = []
    made = commitment(row.server_seed)
    if made != row.commitment:
        out.append({"field": "deal.commitment", "stored": row.commitment, "recomputed": made})
    if row.commitment_id is not None:  # made from a commitment: that commitment, with this seed and nonce
        drawn = uow.deals.commitment(client_id, row.commitment_id)
        held = None if drawn is None else {
            "commitment": drawn.commitment, "nonce": drawn.nonce, "used_by": drawn.used_by,
            "created_at": rfc3339(drawn.created_at),
        }
        committed = None if row.committed_at is None else rfc3339(row.committed_at)
        wanted = {"commitment": made, "nonce": row.nonce, "used_by": row.id, "created_at": committed}
        if held != wanted:
            out.append({"field": "deal.commitment_id", "stored": held, "recomputed": wanted})
    try:
        shuffled: list[list[str]] | str = [
            [str(c) for c in hand] for hand in deal(row.server_seed, row.client_seed, row.nonce, len(row.players))
        ]
    except CapsaError as exc:  # a row no deal was made with (its players changed): a difference
        shuffled = exc.message
    stored_hands = [list(hand) for hand in row.hands]
    if shuffled != stored_hands:
        out.append({"field": "deal.hands", "stored": stored_hands, "recomputed": shuffled})
    # A round of a server-run game used its game's deal: Capsa Susun's names it `game_id`,
    # Big Two's `game`.
    user = request.get("game_id") or request.get("game") or round_id
    if row.used_by != user:
        out.append({"field": "deal.used_by", "stored": row.used_by, "recomputed": user})
    try:
        check_round_cards(_dealt_hands(row), request)
    except CapsaError as exc:
        out.append({"field": "deal", "stored": deal_id, "recomputed": f"the round's cards are not the deal's hands: {exc.message}"})
    return out
