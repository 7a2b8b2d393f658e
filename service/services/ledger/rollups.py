"""All-time ledger totals kept in the database: rollups folded up to a record sequence.

A client's records take their sequence under the chain head's lock and commit in that
order, and the ledger is append-only (a void books new lines, at its own sequence): once
the head reads N, the lines of records 1..N are all committed and final. So the totals
over all history are the rollups, which hold the lines of records 1..F (F: the client's
fold cursor), plus the lines of records F+1..N, N being the report snapshot's head. Both
are read in that one snapshot (on the standby too), so the answer is the full sums of the
snapshot to the minor unit, whatever F is.

`fold` moves F on, at most `limit` records a call, in one transaction on the primary under
the cursor row's lock (a fold that finds it taken does nothing). `capsa sweep` folds every
client behind each pass, so reads find a short tail; a read that finds a tail longer than
READ_TAIL records folds up to READ_BATCH of them first, then answers (bounded work).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.adapters.errors import StorageError
from service.adapters.ledger import Grouping, Totals, by_key, is_utc
from service.adapters.replicas import AsOf, report
from service.adapters.rollups import TOTALS, added, quarter_start
from service.adapters.uow import Database, UnitOfWork
from service.services.slots import RequiredGuard

T = TypeVar("T")

log = logging.getLogger(__name__)

READ_TAIL = 2_000  # records a read sums from the lines before it folds them first
READ_BATCH = 20_000  # records a read folds at most before it answers
SWEEP_BATCH = 50_000  # records one fold of `capsa sweep` takes (a transaction of about 1 s here)
SWEEP_CLIENTS = 100  # clients one sweep pass folds at most, the furthest behind first
ZONES_KEPT = 8  # zones other than UTC whose days a client's rollups keep, per currency


def fold(db: Database, client_id: str, limit: int = SWEEP_BATCH) -> int:
    """Fold the client's records after its cursor, up to `limit` of them, into its rollups;
    the number folded (0: none pending, or another fold holds the cursor)."""
    with db.unit_of_work(write=True) as uow:
        start = uow.rollups.claim(client_id)
        if start is None:
            return 0
        head = uow.chain.head(client_id).sequence
        if head < start:  # the chain is behind its rollups (a database restored in part)
            log.warning("client %s: chain head %d is behind its rollups (%d): folded again from 1",
                        client_id, head, start)
            uow.rollups.reset(client_id)
            start = 0
        through = min(head, start + limit)
        if through <= start:
            uow.commit()  # a reset, if there was one
            return 0
        deltas = uow.rollups.deltas(client_id, start, through)
        for (currency, grouping), sums in deltas.items():
            uow.rollups.add(client_id, currency, grouping, sums)
        for currency, zones in uow.rollups.zones(client_id).items():
            quarters = deltas.get((currency, Grouping.QUARTER), [])
            for name in zones:
                try:
                    zone = ledger_zone(name)
                except (ZoneInfoNotFoundError, ValueError):
                    # gone from this host's zone database (a link moved out of the default
                    # package), or a name refused since it was kept: forgotten, not left
                    # stale; a read there keeps it again (where it may)
                    log.warning("client %s: zone %s is unknown here: its kept days are dropped", client_id, name)
                    uow.rollups.forget_zone(client_id, currency, name)
                    continue
                uow.rollups.add(client_id, currency, Grouping.ZONE_DAY, _keyed(name, days_in(quarters, zone)))
        uow.rollups.advance(client_id, through)
        uow.commit()
        return through - start


# Files of the zone folder that are not zones of their own: `localtime` is the host's zone
# (two nodes could cut one client's days differently, and keep them so), `posixrules` a
# template, `Factory` a placeholder, and `posix/` and `right/` hold copies of the zones
# under other names (each copy would take one of the zones a client's rollups keep).
NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})
NOT_ZONE_FOLDERS = ("posix/", "right/")


def ledger_zone(name: str) -> ZoneInfo:
    """The zone `name` as reports and kept days read it: ZoneInfoNotFoundError or ValueError
    for a name that is none, or one of the zone folder's files that is not a zone of its own
    (kept before they were refused, such a zone is forgotten by the next fold)."""
    if name in NOT_ZONES or name.startswith(NOT_ZONE_FOLDERS):
        raise ValueError(name)  # pragma: no mutate (caught by every caller, its argument never read)
    return ZoneInfo(name)


def days_in(quarters: list[Totals], zone: ZoneInfo) -> list[Totals]:
    """Quarter-hour totals gathered into `zone`'s days (keys: dates), each quarter by its own
    date there (exact across every transition)."""
    days: dict[str, Totals] = {}
    for q in quarters:
        day = quarter_start(str(q.key)).astimezone(zone).date().isoformat()
        before = days.get(day)
        days[day] = replace(q, key=day) if before is None else added(before, q)
    return list(days.values())


def _quarter_days(uow: UnitOfWork, client_id: str, currency: str, zone: ZoneInfo) -> list[Totals]:
    """The zone's days from the stored quarter hours: gathered by PostgreSQL where it can,
    else here."""
    gathered = uow.rollups.zone_days(client_id, currency, zone)
    return gathered if gathered is not None else days_in(uow.rollups.read(client_id, currency, Grouping.QUARTER), zone)


def _keyed(zone: str, days: list[Totals]) -> list[Totals]:
    return [replace(d, key=f"{zone} {d.key}") for d in days]


def keep_zone(db: Database, client_id: str, currency: str, zone: ZoneInfo) -> bool:
    """From now on, keep `zone`'s days in the client's rollups, so that an all-time summary by
    day there reads a row a day, not the quarter hours (up to 96 a day): the days gathered
    from the quarters up to the cursor, under its lock, and every later fold adds its own.
    At most ZONES_KEPT zones per client and currency; False where the zone is not taken on
    (kept already, too many, another fold holding the cursor, the primary away)."""
    try:
        with db.unit_of_work(write=True) as uow:
            if uow.rollups.claim(client_id) is None:
                return False
            kept = uow.rollups.zones(client_id).get(currency, [])
            if zone.key in kept or len(kept) >= ZONES_KEPT:
                return False
            uow.rollups.add(client_id, currency, Grouping.ZONE_DAY, _keyed(zone.key, _quarter_days(uow, client_id, currency, zone)))
            uow.rollups.add(client_id, currency, Grouping.ZONE, [Totals(zone.key, *(0 for _ in TOTALS))])
            uow.commit()
            return True
    except StorageError as exc:
        log.warning("client %s: keeping the days of %s failed: %s", client_id, zone.key, exc)
        return False


def sweep(db: Database) -> int:
    """One pass of `capsa sweep`: a fold of up to SWEEP_BATCH records for each client whose
    rollups are behind its chain; the records folded."""
    with db.unit_of_work() as uow:
        behind = uow.rollups.behind(SWEEP_CLIENTS)
    return sum(fold(db, client_id, SWEEP_BATCH) for client_id in behind)


def all_time(
    db: Database,
    client_id: str,
    work: Callable[[UnitOfWork, AsOf, int], T],
    min_sequence: int | None = None,
    pinned: AsOf | None = None,
) -> tuple[T, AsOf]:
    """`work(uow, as_of, start)` in one report snapshot, `start` being where the rollups it
    reads end (0: none; the snapshot's head is never before it). Folds first when the tail
    after the rollups is longer than READ_TAIL, on the primary (`pinned`: a cursor's as_of,
as `report` takes it); a fold that fails (the
    primary away while a standby serves) leaves the tail to be summed."""

    def attempt(uow: UnitOfWork, as_of: AsOf, tail: int | None) -> tuple[T, AsOf] | None:
        start = uow.rollups.cursor(client_id)
        if start > as_of.sequence:
            start = 0  # rollups past the snapshot's head: sum every line instead
        if tail is not None and as_of.sequence - start > tail:
            return None
        return work(uow, as_of, start), as_of

    found = report(db, client_id, lambda uow, as_of: attempt(uow, as_of, READ_TAIL), min_sequence=min_sequence,
                   pinned=pinned)
    if found is not None:
        return found
    try:
        fold(db, client_id, READ_BATCH)
    except StorageError as exc:
        log.warning("client %s: the fold before an all-time read failed: %s", client_id, exc)
    answer = report(db, client_id, lambda uow, as_of: attempt(uow, as_of, None), min_sequence=min_sequence,
                    pinned=pinned)
    assert answer is not None
    return answer


def _merged(kept: list[Totals], tail: list[Totals]) -> list[Totals]:
    totals = {g.key: g for g in kept}
    for g in tail:
        before = totals.get(g.key)
        totals[g.key] = g if before is None else added(before, g)
    return sorted(totals.values(), key=by_key)


def summary(
    uow: UnitOfWork, as_of: AsOf, start: int, client_id: str, currency: str, group_by: Grouping, zone: ZoneInfo,
    unkept: set[str] | None = None, guard: RequiredGuard | None = None,
) -> list[Totals]:
    """The all-time summary: the rollups up to `start` plus the lines of the records after.
    By day in a zone whose days are not kept, from the quarter hours, in `guard` if given
    (which runs it, or raises): its name goes into `unkept` (the caller may `keep_zone` it,
    outside this read)."""
    tail = uow.ledger.summary(client_id, currency, None, None, group_by, zone, records=(start, as_of.sequence))
    if not start:
        return tail
    if group_by == Grouping.DAY and not is_utc(zone):
        kept_days = uow.rollups.kept_days(client_id, currency, zone.key)
        if kept_days is not None:
            return _merged(kept_days, tail)
        if unkept is not None:
            unkept.add(zone.key)

        def gather() -> list[Totals]:
            return _quarter_days(uow, client_id, currency, zone)

        kept = gather() if guard is None else guard(gather)
    else:
        kept = uow.rollups.read(client_id, currency, group_by)
    return _merged(kept, tail)


def player(uow: UnitOfWork, as_of: AsOf, start: int, client_id: str, player_id: str, currency: str) -> Totals:
    """A player's all-time totals: the rollup's row plus the lines of the records after it."""
    tail = uow.ledger.player_totals(client_id, player_id, currency, None, None, records=(start, as_of.sequence))
    if not start:
        return tail
    kept = uow.rollups.read(client_id, currency, Grouping.PLAYER, player_id)
    return added(tail, kept[0]) if kept else tail


