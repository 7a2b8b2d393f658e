"""Server-run Capsa Susun games: deal, collect arrangements until a deadline, settle once.

A game row holds the dealt hands and what each player has submitted. Every write runs in
one transaction that locks the game row (`SELECT ... FOR UPDATE` on PostgreSQL; SQLite's
`BEGIN IMMEDIATE` already serializes writers) and writes back under a version check, so
two requests never both apply, and a game settles once however many requests race for it.

Settling (when the last player submits, or at the deadline: on the first access after it,
or through the sweeper, `capsa sweep`) gives every player who did not submit the service's
best suggested arrangement, marked `auto_arranged`, scores the round as `POST /v1/rounds`
would score its body, and records it as a round (its chain record and ledger lines) in the
transaction that marks the game settled. The stored request is that round body plus
`game_id` and `auto_arranged` per player, so re-verification re-scores it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from service.adapters.errors import ReferenceUsed, UniqueViolation
from service.adapters.rounds import RoundFilter
from service.adapters.susun_games import SusunGameRecord
from service.adapters.uow import Database, UnitOfWork
from service.domain.cards import Card, parse_cards
from service.domain.errors import FieldError, InvalidMoney, InvalidRound, raise_collected
from service.domain.money import MAX_AMOUNT, format_money, parse_currency_and_stake
from service.domain.rules import RuleSet, resolve_rules
from service.domain.susun.game import (
    GameStatus,
    Submission,
    arrange_seconds_problem,
    deadline_of,
    is_due,
    player_view,
    takes_submissions,
)
from service.domain.susun.round import check_identifier, evaluate_arrangement_request, score_round_request
from service.domain.susun.rules import SUSUN, SusunParams
from service.domain.susun.scoring import amounts_bound
from service.domain.susun.suggest.search import refuse_slow_rules, suggest
from service.services import deals
from service.services.clock import new_id, rfc3339, utcnow_ms
from service.services.cursors import decode_cursor, encode_cursor, page_with_work, worked_page
from service.services.errors import Conflict, NotFound
from service.services.idempotency import StoredResponse, run_once
from service.services.jsondoc import dump
from service.services.preconditions import refuse_stale
from service.services.rounds.documents import rules_document
from service.services.rounds.records import scored_round_record
from service.services.slots import Guard, ran

GAMES_PATH = "/v1/susun/games"
SWEEP_BATCH = 10  # a client's games per turn of the sweeper's pass
# Overdue games one list page settles at most (each is a suggestion search, a scoring and a
# write: about 9 ms); a page holding more ends before the next one, and its cursor resumes
# there, so every game listed is shown settled and no page's work grows with the backlog.
SETTLE_PER_PAGE = 10
log = logging.getLogger(__name__)


def _params(rules: RuleSet) -> SusunParams:
    params = rules.params
    assert isinstance(params, SusunParams)
    return params


# -- starting a game ------------------------------------------------------------------------


def create(
    db: Database, client_id: str, body: Mapping[str, Any], idempotency_key: str | None
) -> StoredResponse:
    """`POST /v1/susun/games`: deal (or take the given deal) and open the arrangement phase."""
    rules = resolve_rules(body.get("rules"), SUSUN)
    errors: list[FieldError] = []
    currency, stake = parse_currency_and_stake(body, errors)
    ids = [str(p) for p in body["players"]]
    for i, pid in enumerate(ids):
        if check_identifier(pid, f"players[{i}]", errors) is not None and ids.index(pid) != i:
            errors.append(FieldError(f"players[{i}]", f"{pid!r} is also players[{ids.index(pid)}]"))
    for name in ("table", "reference"):
        if body.get(name) is not None:
            check_identifier(body[name], name, errors)
    seconds = body["arrange_seconds"]
    if (why := arrange_seconds_problem(seconds)) is not None:
        errors.append(FieldError("arrange_seconds", why))
    raise_collected(errors, InvalidRound)
    refuse_slow_rules(rules)  # its absent players get a suggestion each at the deadline
    # The round is scored only at the deadline, from arrangements not made yet: a stake at
    # which some round under these rules could book past the amount limit is refused now,
    # not found at settlement, when the game could never be stored (nor stop being tried).
    most = amounts_bound(_params(rules), len(ids)) * stake
    if most > MAX_AMOUNT:
        raise InvalidMoney(
            f"stake {body['stake']!r}: under these rules a round of {len(ids)} players can book up to "
            f"{most} minor units at this stake, beyond the limit of 10^18: lower the stake",
            field="stake",
        )
    reference = body.get("reference")

    def action(uow: UnitOfWork) -> StoredResponse:
        now = utcnow_ms()
        game_id = new_id("sg", now)
        if reference is not None:  # before the deal's row: the order a round takes them in
            _take_reference(uow, client_id, reference)
        deal_id = body.get("deal")
        if deal_id is None:
            made = deals.insert_new(uow, client_id, ids, str(body.get("client_seed") or game_id))
            deal_id, hands = made.id, made.hands
        else:
            dealt = deals.dealt(uow, client_id, deal_id, lock=True)
            deals.check_players(dealt, ids, ordered=True)
            hands = tuple(tuple(c.text for c in h) for h in dealt.hands)
        game = SusunGameRecord(
            id=game_id,
            client_id=client_id,
            rules_json=rules.to_json(),
            currency=currency,
            stake=stake,
            table_ref=body.get("table"),
            reference=reference,
            players=tuple(ids),
            hands=hands,
            deal_id=deal_id,
            submissions={},
            arrange_seconds=seconds,
            deadline=deadline_of(now, seconds),
            version=1,
            status=GameStatus.ARRANGING,
            round_id=None,
            settled_at=None,
            created_at=now,
            updated_at=now,
        )
        try:
            uow.susun_games.insert(game)
        except UniqueViolation as exc:
            raise _reference_conflict(str(reference)) from exc
        deals.use(uow, client_id, deal_id, game_id)
        return StoredResponse(201, dump(_document(game)), location=f"{GAMES_PATH}/{game_id}")

    return run_once(db, client_id, "POST", GAMES_PATH, idempotency_key, body, action)


def _take_reference(uow: UnitOfWork, client_id: str, reference: str) -> None:
    """A game's reference becomes its round's: no round nor other game may hold it. Taken
    first (a round or game taking it at the same moment waits for this transaction, or
    this for theirs), then looked for among the rounds stored before references were."""
    if not uow.susun_games.take_reference(client_id, reference):
        raise _reference_conflict(reference)
    rows, _ = uow.rounds.list(client_id, RoundFilter(reference=reference), 1, None)
    if rows:
        raise _reference_conflict(reference)


def _reference_conflict(reference: str) -> Conflict:
    return Conflict(
        f"reference {reference!r} is already used by a round or a game of this client",
        errors=[FieldError("reference", "already used; a game's reference becomes its round's")],
    )


# -- reading --------------------------------------------------------------------------------


def _settle_for_read(db: Database, client_id: str, game_id: str, guard: Guard | None = None) -> None:
    """A read settles an overdue game first (if `guard` lets it); one that cannot settle is
    shown as it is: its reference taken meanwhile (Conflict), or its round's amounts past
    the limit of 10^18 minor units (InvalidMoney: the stake and the rules allow more than a
    round can book)."""
    try:
        settle_if_due(db, client_id, game_id, guard)
    except (Conflict, InvalidMoney):
        log.warning("game %s is past its deadline but cannot settle", game_id, exc_info=True)


def get(db: Database, client_id: str, game_id: str, guard: Guard | None = None) -> dict[str, Any]:
    """`GET /v1/susun/games/{id}`: who has submitted; cards only once settled."""
    _settle_for_read(db, client_id, game_id, guard)
    with db.unit_of_work() as uow:
        return _document(_found(uow, client_id, game_id))


def require(db: Database, client_id: str, game_id: str) -> bool:
    """404 unless the client has this game; whether its deadline has passed unsettled (one
    look-up, which the view passes on to `submit`)."""
    with db.unit_of_work() as uow:
        found = uow.susun_games.state(client_id, game_id)
    if found is None:
        raise NotFound(f"no game {game_id!r}")
    status, deadline = found
    return is_due(status, deadline, utcnow_ms())


def hand(db: Database, client_id: str, game_id: str, player: str, guard: Guard | None = None) -> dict[str, Any]:
    """`GET /v1/susun/games/{id}/hands/{player}`: the 13 cards dealt to one player."""
    _settle_for_read(db, client_id, game_id, guard)
    with db.unit_of_work() as uow:
        row = _found(uow, client_id, game_id)
        seat = _seat(row, player)
        return {
            "game": row.id,
            "player": player,
            "hand": list(row.hands[seat]),
            "status": str(row.status),
            "deadline": rfc3339(row.deadline),
        }


def list_(
    db: Database,
    client_id: str,
    *,
    status: str | None = None,
    table: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
    guard: Guard | None = None,
) -> dict[str, Any]:
    """A page of the client's games, newest first; overdue games on it settle first, at most
    `SETTLE_PER_PAGE`, and no further one once `PAGE_WORK_CPU_S` of CPU has gone on them: a
    page holding more ends before the next one (fewer items than `limit`, its cursor
    resuming there). With `guard`, they settle only if it lets them,
    all in one run of it (a suggestion per absent player: under slow rules 0.1 s a game);
    else they are shown as stored, and the sweeper settles them."""
    after = None
    if cursor is not None:
        when, game_id = decode_cursor(cursor, str)
        after = (when, game_id)
    now = utcnow_ms()
    # Settled games include those past their deadline that no read or sweep has settled yet.
    due_by = now if status == GameStatus.SETTLED else None
    with db.unit_of_work() as uow:
        found, next_after = uow.susun_games.page(
            client_id, status=status, table=table, limit=limit, after=after, or_due_by=due_by
        )
    rows, due, next_after = page_with_work(found, lambda r: is_due(r.status, r.deadline, now), SETTLE_PER_PAGE, next_after)

    def settle_all() -> bool:
        nonlocal rows, due, next_after
        rows, due, next_after = worked_page(rows, due, next_after, lambda g: _settle_for_read(db, client_id, g))
        return True

    if due and ran(settle_all, guard):
        with db.unit_of_work() as uow:
            fresh = {g: r for g in due if (r := uow.susun_games.get(client_id, g)) is not None}
        rows = [fresh.get(r.id, r) for r in rows]
    if status is not None:  # settled on this read (or not settled, though due): as the filter asks
        rows = [r for r in rows if r.status == status]
    return {
        "items": [_document(r) for r in rows],
        "next_cursor": None if next_after is None else encode_cursor(next_after[0], next_after[1]),
    }


def _found(uow: UnitOfWork, client_id: str, game_id: str, lock: bool = False) -> SusunGameRecord:
    row = uow.susun_games.get(client_id, game_id, lock=lock)
    if row is None:
        raise NotFound(f"no game {game_id!r}")
    return row


def _seat(row: SusunGameRecord, player: str) -> int:
    try:
        return row.players.index(player)
    except ValueError:
        raise NotFound(f"game {row.id!r} has no player {player!r}") from None


def _document(row: SusunGameRecord) -> dict[str, Any]:
    """The game as the API shows it. Before settlement a player shows only whether and when
    it submitted; once settled, every player's rows, surrender and `auto_arranged`."""
    settled = row.status == GameStatus.SETTLED
    players = [{"id": pid, **player_view(row.submissions.get(pid), settled)} for pid in row.players]
    return {
        "id": row.id,
        "status": str(row.status),
        "version": row.version,
        "rules": rules_document("susun", row.rules_json),
        "currency": row.currency,
        "stake": format_money(row.stake, row.currency),
        "table": row.table_ref,
        "reference": row.reference,
        "deal": row.deal_id,
        "arrange_seconds": row.arrange_seconds,
        "created_at": rfc3339(row.created_at),
        "deadline": rfc3339(row.deadline),
        "settled_at": None if row.settled_at is None else rfc3339(row.settled_at),
        "players": players,
        "round": row.round_id,
    }


# -- submitting -----------------------------------------------------------------------------


def submit(
    db: Database,
    client_id: str,
    game_id: str,
    player: str,
    body: Mapping[str, Any],
    expected_versions: frozenset[int] | None,
    idempotency_key: str | None,
    due: bool | None = None,
    guard: Guard | None = None,
) -> StoredResponse:
    """`PUT /v1/susun/games/{id}/arrangements/{player}`: set (or replace) a player's rows, or
    surrender; the answer is the evaluation. The last player's submission settles the game.
    `due`: what `require` found (None: look again)."""
    if due is None or due:  # a deadline that passed settles before anything else
        settle_if_due(db, client_id, game_id, guard)
    path = f"{GAMES_PATH}/{game_id}/arrangements/{player}"

    def action(uow: UnitOfWork) -> StoredResponse:
        row = _found(uow, client_id, game_id, lock=True)
        seat = _seat(row, player)
        now = utcnow_ms()
        # Closed first: a deadline this request settled moved the version, and a 412 would
        # tell a client holding the version it read to decide again.
        if not takes_submissions(row.status, row.deadline, now):
            raise _closed(row)
        refuse_stale(expected_versions, row.version, "game")
        rules = RuleSet.from_json(rules_document("susun", row.rules_json))  # in the documented order
        submission, evaluation = _submission(body, rules, row.hands[seat], now)
        new = replace(row, submissions={**row.submissions, player: submission.to_json()}, updated_at=now)
        if len(new.submissions) == len(row.players):
            new = _settle(uow, client_id, new, now)
        if not uow.susun_games.replace_if_version(row, new):
            raise Conflict("the game changed while this arrangement was stored; fetch it and retry")
        doc = {
            "game": row.id,
            "player": player,
            "status": str(new.status),
            "version": row.version + 1,
            "surrender": submission.surrender,
            "evaluation": evaluation,
            "round": new.round_id,
        }
        return StoredResponse(200, dump(doc))

    return run_once(db, client_id, "PUT", path, idempotency_key, body, action)


def _submission(
    body: Mapping[str, Any], rules: RuleSet, hand_texts: Sequence[str], now: datetime
) -> tuple[Submission, dict[str, Any] | None]:
    """The stored submission and its evaluation (None for a surrender)."""
    arrangement, surrender = body.get("arrangement"), body.get("surrender", False)
    if surrender and arrangement is not None:
        raise InvalidRound("a player either surrenders or sends an arrangement, not both", field="surrender")
    if surrender:
        if not _params(rules).surrender_allowed:
            raise InvalidRound(f"the rules {rules.preset!r} do not allow surrender", field="surrender")
        return Submission(None, surrender=True, auto_arranged=False, at=rfc3339(now)), None
    if arrangement is None:
        field = "surrender" if "surrender" in body else "arrangement"
        raise InvalidRound('send "arrangement": {front, middle, back} or "surrender": true', field=field)
    # The evaluate endpoint's own code; `hand` makes the rows use exactly the dealt cards.
    evaluation = evaluate_arrangement_request(
        {"rules": rules.to_json(), "arrangement": arrangement, "hand": list(hand_texts)}
    )
    rows = evaluation["rows"]
    stored = {name: list(rows[name]["cards"]) for name in ("front", "middle", "back")}
    return Submission(stored, surrender=False, auto_arranged=False, at=rfc3339(now)), evaluation


def _closed(row: SusunGameRecord) -> Conflict:
    if row.settled_at is None:  # its deadline passed; the game settles on its next read
        return Conflict(
            f"game {row.id!r} is past its deadline; arrangements are closed",
            errors=[FieldError("path.game_id", f"the deadline passed at {rfc3339(row.deadline)}")],
        )
    return Conflict(
        f"game {row.id!r} is settled; arrangements are closed",
        errors=[FieldError("path.game_id", f"settled at {rfc3339(row.settled_at)}")],
    )


# -- settling -------------------------------------------------------------------------------


def settle_if_due(db: Database, client_id: str, game_id: str, guard: Guard | None = None) -> bool:
    """Settle the game if its deadline has passed and it is still arranging: True when this
    call settled it. Cheap when there is nothing to do (one read, no write transaction).
    With `guard`, the settling (a suggestion per absent player, under some rules 0.2 s
    each) runs only if the guard lets it."""
    now = utcnow_ms()
    with db.unit_of_work() as uow:
        found = uow.susun_games.state(client_id, game_id)
    if found is None or not is_due(found[0], found[1], now):
        return False

    def settle() -> bool:
        # The absent players' suggestions are searched before the write transaction, which
        # on SQLite holds the whole database: every client's writes waited on the searches.
        with db.unit_of_work() as uow:
            seen = _found(uow, client_id, game_id)
        submissions = with_absent_arranged(seen, now)
        with db.unit_of_work(write=True) as uow:
            row = _found(uow, client_id, game_id, lock=True)
            if not is_due(row.status, row.deadline, now):
                return False  # another request settled it first
            if row.submissions != seen.submissions:  # changed meanwhile: searched again, here
                submissions = with_absent_arranged(row, now)
            settled = _settle(uow, client_id, replace(row, submissions=submissions, updated_at=now), now)
            if not uow.susun_games.replace_if_version(row, settled):
                return False
            uow.commit()
        return True

    return ran(settle, guard)


def settle_overdue(db: Database, batch: int = SWEEP_BATCH) -> list[tuple[str, str]]:
    """Settle every game whose deadline has passed: (client id, game id) of each this pass
    settled. Each overdue game is tried once per pass; one that cannot settle is logged and
    left for the next pass. The clients take turns, `batch` games each (each client's in
    deadline order), so that a client with a thousand games overdue (each one a suggestion
    per absent player, under rules that may make it slow) delays another client's game by
    one turn of its own, not by all of them."""
    settled = []
    now = utcnow_ms()
    with db.unit_of_work() as uow:
        turns: dict[str, tuple[datetime, str] | None] = dict.fromkeys(
            uow.susun_games.overdue_clients(now, GameStatus.ARRANGING)
        )
    while turns:
        for client_id, after in list(turns.items()):
            with db.unit_of_work() as uow:
                due = uow.susun_games.overdue(now, GameStatus.ARRANGING, batch, after, client_id=client_id)
            for _client, game_id, _deadline in due:
                try:
                    if settle_if_due(db, client_id, game_id):
                        settled.append((client_id, game_id))
                except Exception:  # one game that cannot settle must not stop the others
                    log.exception("could not settle game %s", game_id)
            if len(due) < batch:
                del turns[client_id]
            else:
                turns[client_id] = (due[-1][2], due[-1][1])
    return settled


def auto_arrangement(hand_texts: Sequence[str], rules: RuleSet) -> dict[str, list[str]]:
    """The service's best suggested setting of a hand (the first of `POST
    /v1/arrangements/suggest`), given to a player who did not submit."""
    hand_cards: list[Card] = parse_cards(list(hand_texts), "hand")
    return suggest(hand_cards, rules, limit=1).suggestions[0].arrangement.to_json()


def round_body(row: SusunGameRecord, submissions: Mapping[str, Any]) -> dict[str, Any]:
    """The round a game settles into: a `POST /v1/rounds` body with every player's hand and
    rows (or surrender), plus `game_id` and `auto_arranged` per player."""
    return {
        "rules": dict(row.rules_json),
        "table": row.table_ref,
        "reference": row.reference,
        "currency": row.currency,
        "stake": format_money(row.stake, row.currency),
        "deal": row.deal_id,
        "game_id": row.id,
        "players": [
            {
                "id": pid,
                "hand": list(row.hands[i]),
                "arrangement": submissions[pid]["arrangement"],
                "surrender": submissions[pid]["surrender"],
                "auto_arranged": submissions[pid]["auto_arranged"],
            }
            for i, pid in enumerate(row.players)
        ],
    }


def with_absent_arranged(row: SusunGameRecord, now: datetime) -> dict[str, Any]:
    """The game's submissions, with the service's suggestion for each player who made none
    (a search each: under some rules 0.2 s)."""
    submissions = dict(row.submissions)
    if len(submissions) < len(row.players):
        rules = RuleSet.from_json(row.rules_json)
        for i, pid in enumerate(row.players):
            if pid not in submissions:
                made = Submission(auto_arrangement(row.hands[i], rules), surrender=False, auto_arranged=True,
                                  at=rfc3339(now))
                submissions[pid] = made.to_json()
    return submissions


def _settle(uow: UnitOfWork, client_id: str, row: SusunGameRecord, now: datetime) -> SusunGameRecord:
    """Auto-arrange the missing players (none are, where the caller did it before its write
    transaction), record the round in this transaction; the game as it is once settled."""
    submissions = with_absent_arranged(row, now)
    scored = score_round_request(round_body(row, submissions), game_round=True)
    built = scored_round_record(client_id, scored, round_id=new_id("rnd", now), created_at=now)
    round_id = built.new.round_id
    try:
        uow.chain.append(built.new)
    except ReferenceUsed as exc:
        raise Conflict(
            f"game {row.id!r} cannot settle: a round took its reference {row.reference!r} meanwhile",
            errors=[FieldError("reference", "used by another round since the game started")],
        ) from exc
    deals.ended(uow, client_id, row.deal_id, now)
    return replace(row, submissions=submissions, status=GameStatus.SETTLED, round_id=round_id, settled_at=now)

