"""The Capsa Susun games' deadline logic (`services.susun.games.settle_if_due` and the
sweeper's `settle_overdue`) over a unit of work in memory (tests/fake_uow.py): which games
settle, in what order, in how many transactions, and what one that cannot settle leaves.
The same paths run over HTTP on both engines in tests/api/test_api_susun_games.py; there
the session's database holds other tests' games too, so a pass's count is only `>= 1`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from inspect import signature

import orjson
import pytest
from fake_uow import FakeChain, FakeDatabase, FakeSusunGames

from service.adapters.chain import ChainRepository
from service.adapters.susun_games import SusunGameRecord, SusunGameRepository
from service.domain.audit import seal
from service.domain.deals import deal
from service.domain.rules import resolve_rules
from service.domain.susun.game import GameStatus, deadline_of
from service.domain.susun.rules import SUSUN
from service.services.susun import games

START = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
RULES = resolve_rules(None, SUSUN).to_json()
CLIENT = "cl_sweep"


def game(n: int, arrange_seconds: int, *, reference: str | None = None, client: str = CLIENT) -> SusunGameRecord:
    """A two-player game started at START, dealt from its own seed, nobody submitted yet."""
    hands = deal(bytes([n]) * 32, f"game-{n}", n, 2)
    return SusunGameRecord(
        id=f"sg_{n:02d}", client_id=client, rules_json=RULES, currency="IDR", stake=1000_00,
        table_ref=None, reference=reference, players=("a", "b"),
        hands=tuple(tuple(c.text for c in h) for h in hands), deal_id=None, submissions={},
        arrange_seconds=arrange_seconds, deadline=deadline_of(START, arrange_seconds), version=1,
        status=GameStatus.ARRANGING, round_id=None, settled_at=None, created_at=START, updated_at=START,
    )


@pytest.fixture
def db() -> FakeDatabase:
    return FakeDatabase()


def test_a_pass_settles_every_overdue_game_once_in_deadline_order_whatever_the_batch(db, clock):
    for n, seconds in [(1, 30), (2, 10), (3, 20), (4, 3600), (5, 20)]:  # 4 is not due
        db.add_susun_game(game(n, seconds))
    db.add_susun_game(game(6, 5, client="cl_other"))
    clock.set(START + timedelta(seconds=30))
    settled = games.settle_overdue(db, batch=2)
    # by (deadline, id): 6 (5 s), 2 (10 s), 3 and 5 (20 s), 1 (30 s: exactly due)
    assert settled == [("cl_other", "sg_06"), (CLIENT, "sg_02"), (CLIENT, "sg_03"), (CLIENT, "sg_05"),
                       (CLIENT, "sg_01")]
    assert [r.round_id for r in db.appended] == [db.susun_games[k].round_id for k in settled]
    assert db.susun_games[CLIENT, "sg_04"] == game(4, 3600)  # untouched
    assert games.settle_overdue(db, batch=2) == []


def test_the_clients_take_turns_so_one_with_many_games_due_does_not_hold_up_another(db, clock):
    """One client's thousand overdue games (each a suggestion per absent player, slow under
    some rules) were all settled before another client's game due a second later: 25-50 s
    late, measured. The clients take turns of `batch` games."""
    for n in range(1, 6):
        db.add_susun_game(game(n, 10))
    db.add_susun_game(game(6, 11, client="cl_other"))
    clock.set(START + timedelta(seconds=30))
    assert games.settle_overdue(db, batch=2) == [
        (CLIENT, "sg_01"), (CLIENT, "sg_02"), ("cl_other", "sg_06"), (CLIENT, "sg_03"), (CLIENT, "sg_04"),
        (CLIENT, "sg_05")]


@pytest.mark.parametrize("batch", [1, 2, 3, 100])
def test_the_batch_size_changes_the_queries_not_what_settles(db, clock, batch):
    for n in range(1, 6):
        db.add_susun_game(game(n, 10 * n))
    clock.set(START + timedelta(seconds=60))
    assert [g for _, g in games.settle_overdue(db, batch=batch)] == [
        "sg_01", "sg_02", "sg_03", "sg_04", "sg_05"]


def test_a_settled_game_is_its_round_with_the_missing_players_auto_arranged(db, clock):
    db.add_susun_game(game(1, 60))
    clock.set(START + timedelta(seconds=61))
    assert games.settle_if_due(db, CLIENT, "sg_01") is True
    after = db.susun_games[CLIENT, "sg_01"]
    (record,) = db.appended
    assert (after.status, after.version, after.settled_at, after.round_id) == (
        GameStatus.SETTLED, 2, START + timedelta(seconds=61), record.round_id)
    assert {p: s["auto_arranged"] for p, s in after.submissions.items()} == {"a": True, "b": True}
    request = orjson.loads(seal(record.unsealed, 1))["request"]
    assert request["game_id"] == "sg_01"
    assert [p["hand"] for p in request["players"]] == [list(h) for h in after.hands]
    # One read finds it due, one reads its hands for the searches (outside the write
    # transaction: on SQLite that holds every client's writes), one write.
    assert db.units == [False, False, True] and db.commits == 1


def test_a_game_not_yet_due_costs_one_read_and_no_write_transaction(db, clock):
    db.add_susun_game(game(1, 60))
    clock.set(START + timedelta(seconds=59, milliseconds=999))
    assert games.settle_if_due(db, CLIENT, "sg_01") is False
    assert games.settle_if_due(db, CLIENT, "sg_missing") is False
    assert db.units == [False, False] and db.commits == 0
    assert db.susun_games[CLIENT, "sg_01"] == game(1, 60)


def test_a_game_that_cannot_settle_is_left_as_it_was_and_does_not_hold_up_the_others(db, clock, caplog):
    db.add_susun_game(game(1, 10, reference="taken"))
    db.add_susun_game(game(2, 20))
    db.references.add((CLIENT, "taken"))  # a round took the game's reference meanwhile
    clock.set(START + timedelta(seconds=20))
    assert games.settle_overdue(db, batch=1) == [(CLIENT, "sg_02")]
    assert db.susun_games[CLIENT, "sg_01"] == game(1, 10, reference="taken")  # rolled back
    assert [r.round_id for r in db.appended] == [db.susun_games[CLIENT, "sg_02"].round_id]
    assert "could not settle game sg_01" in caplog.text
    # The next pass tries it again, and only it.
    caplog.clear()
    assert games.settle_overdue(db, batch=1) == []
    assert caplog.text.count("could not settle game") == 1


@pytest.mark.parametrize(
    "fake, real, name",
    [
        *[(FakeSusunGames, SusunGameRepository, n) for n in ("insert", "get", "state", "replace_if_version", "overdue")],
        (FakeChain, ChainRepository, "append"),
    ],
)
def test_the_fake_repositories_take_what_the_real_ones_take(fake, real, name):
    assert signature(getattr(fake, name)) == signature(getattr(real, name))


@pytest.mark.parametrize(("settled", "played"), [(1, []), (3, [("cl", "gm", 1), ("cl", "gm2", 4)])])
def test_a_passs_summary_line_is_the_one_its_readers_look_for(settled, played):
    """bench/susun_games.py times the sweeper's passes from this line: its pattern went
    stale once when the line changed, and the benchmark counted no pass for days."""
    from service.commands.sweep import SUMMARY, Pass

    done = Pass([("cl", f"sg{i}") for i in range(settled)], played, 0, False)
    (found,) = [m for line in done.lines(412.4) if (m := SUMMARY.fullmatch(line))]
    assert (int(found[1]), int(found[2]), int(found[3])) == (settled, sum(n for *_, n in played), 412)
