"""A unit of work in memory, for service tests that need a database only to hold state
(cosmicpython's FakeUnitOfWork): the repositories a service reaches through
`db.unit_of_work()`, over plain dicts, taking and giving the adapters' frozen records.

Writes are staged and applied at `commit`, dropped when the block ends without one, as a
real transaction's are; reads see what was committed. Only the repositories and methods
written here exist: a service that reaches for another fails with AttributeError, which
names what to add. The HTTP suites keep running on both real engines; this stands in for
the database where a test is about a service's own logic (which game settles, in what
order, how many transactions it opens).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from types import TracebackType

from service.adapters.errors import ReferenceUsed
from service.adapters.records import Appended, Claim, NewRecord
from service.adapters.susun_games import SusunGameRecord
from service.domain.susun.game import GameStatus


@dataclass
class FakeDatabase:
    """What the fake units of work share: the committed state, and what the test reads back."""

    susun_games: dict[tuple[str, str], SusunGameRecord] = field(default_factory=dict)
    # Round references already taken (the chain refuses a second round that names one).
    references: set[tuple[str, str]] = field(default_factory=set)
    appended: list[NewRecord] = field(default_factory=list)  # committed chain records, in order
    units: list[bool] = field(default_factory=list)  # each unit of work opened: write or not
    commits: int = 0

    def unit_of_work(self, write: bool = False) -> FakeUnitOfWork:
        self.units.append(write)
        return FakeUnitOfWork(self, write)

    def add_susun_game(self, game: SusunGameRecord) -> None:
        self.susun_games[game.client_id, game.id] = game


class FakeUnitOfWork:
    def __init__(self, db: FakeDatabase, write: bool) -> None:
        self.db = db
        self.write = write
        self._staged: list[Callable[[], None]] = []
        self.susun_games = FakeSusunGames(self)
        self.chain = FakeChain(self)

    def stage(self, change: Callable[[], None]) -> None:
        if not self.write:
            raise AssertionError("a read unit of work wrote")
        self._staged.append(change)

    def commit(self) -> None:
        staged, self._staged = self._staged, []
        for change in staged:
            change()
        self.db.commits += 1

    def __enter__(self) -> FakeUnitOfWork:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._staged.clear()  # not committed: rolled back


class FakeSusunGames:
    """`service.adapters.susun_games.SusunGameRepository`, in memory."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self.uow = uow
        self.rows = uow.db.susun_games

    def insert(self, game: SusunGameRecord) -> None:
        self.uow.stage(lambda: self.rows.__setitem__((game.client_id, game.id), game))

    def get(self, client_id: str, game_id: str, lock: bool = False) -> SusunGameRecord | None:
        return self.rows.get((client_id, game_id))

    def state(self, client_id: str, game_id: str) -> tuple[GameStatus, datetime] | None:
        found = self.rows.get((client_id, game_id))
        return None if found is None else (found.status, found.deadline)

    def replace_if_version(self, read: SusunGameRecord, new: SusunGameRecord) -> bool:
        stored = self.rows.get((read.client_id, read.id))
        if stored is None or stored.version != read.version:
            return False
        self.uow.stage(lambda: self.rows.__setitem__((new.client_id, new.id), replace(new, version=read.version + 1)))
        return True

    def overdue_clients(self, now: datetime, status: str) -> list[str]:
        oldest: dict[str, datetime] = {}
        for g in self.rows.values():
            if g.status == status and g.deadline <= now:
                oldest[g.client_id] = min(oldest.get(g.client_id, g.deadline), g.deadline)
        return sorted(oldest, key=lambda c: (oldest[c], c))

    def overdue(
        self,
        now: datetime,
        status: str,
        limit: int,
        after: tuple[datetime, str] | None = None,
        client_id: str | None = None,
    ) -> list[tuple[str, str, datetime]]:
        due = sorted(
            (g.deadline, g.id, g.client_id) for g in self.rows.values()
            if g.status == status and g.deadline <= now and client_id in (None, g.client_id)
        )
        return [(c, g, d) for d, g, c in due if after is None or (d, g) > after][:limit]


class FakeChain:
    """`service.adapters.chain.ChainRepository.append`, in memory: a round whose reference
    the client has used already is refused as the database refuses it."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self.uow = uow

    def append(
        self, record: NewRecord, claim: Claim | None = None, deal: str | None = None, take_reference: bool = False
    ) -> Appended:
        db = self.uow.db
        reference = None if record.round is None else record.round.reference
        if reference is not None and (record.client_id, reference) in db.references:
            raise ReferenceUsed("uq_rounds_client_reference", f"reference {reference!r} is taken")

        def apply() -> None:
            db.appended.append(record)
            if reference is not None:
                db.references.add((record.client_id, reference))

        self.uow.stage(apply)
        return Appended()  # where it lands is not the fake's business

