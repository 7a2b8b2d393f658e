"""`run_once_after`, the one-transaction form of `run_once` a Big Two move uses, on both
engines: `first` runs before the key is read or claimed and what it writes stands when the
action is refused or the key replays; only the claim and the action roll back.

What `first` writes here is a match row (any row of the client would do).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import idempotency_rows as rows
from conftest import make_tenant

from service.adapters.banting import MatchRecord
from service.adapters.errors import LockTimeout
from service.domain.banting.game import GameStatus
from service.services.clock import new_id
from service.services.errors import Conflict, IdempotencyInFlight, IdempotencyKeyReused, NotFound
from service.services.idempotency import StoredResponse, run_once_after

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
OK = StoredResponse(200, b'{"ok":true}')
BODY = {"player": "a", "pass": True}


@pytest.fixture
def db(app: Any) -> Any:
    return app.extensions["capsa"].db


@pytest.fixture
def client_id(app: Any) -> str:
    return make_tenant(app).id


def new_match(uow: Any, client_id: str) -> str:
    match_id = new_id("mt", T0)
    uow.matches.insert(MatchRecord(
        match_id, client_id, {"preset": "capsa-banting-id"}, "IDR", 1000, None, ("a", "b"), 101, 0,
        {"a": 0, "b": 0}, None, 1, GameStatus.PLAYING, T0, T0,
    ))
    return match_id


class First:
    """Writes a match row of the client and hands the action its id, and `key`."""

    def __init__(self, client_id: str, key: str | None) -> None:
        self.client_id, self.key = client_id, key
        self.written: list[str] = []

    def __call__(self, uow: Any) -> tuple[str, str | None]:
        self.written.append(new_match(uow, self.client_id))
        return self.written[-1], self.key


class Action:
    """Writes a second match row, then answers `response` or raises `error`."""

    def __init__(self, client_id: str, response: StoredResponse = OK, error: Exception | None = None) -> None:
        self.client_id, self.response, self.error = client_id, response, error
        self.seen: list[str] = []
        self.written: list[str] = []

    def __call__(self, uow: Any, match_id: str) -> StoredResponse:
        self.seen.append(match_id)
        self.written.append(new_match(uow, self.client_id))
        if self.error is not None:
            raise self.error
        return self.response


def run(db: Any, client_id: str, key: str | None, action: Action, body: Any = BODY) -> tuple[StoredResponse, First]:
    first = First(client_id, key)
    return run_once_after(db, client_id, "POST", "/v1/x/moves", body, first, action), first


def stored(db: Any, client_id: str, match_ids: list[str]) -> list[bool]:
    with db.unit_of_work() as uow:
        return [uow.matches.get(client_id, m) is not None for m in match_ids]


def test_both_parts_are_written_and_the_answer_kept_once(db, client_id):
    action = Action(client_id)
    answer, first = run(db, client_id, "k", action)
    assert answer == OK and stored(db, client_id, first.written + action.written) == [True, True]
    assert action.seen == first.written  # the action gets what first returned
    assert rows(db, client_id) == 1
    again, second = run(db, client_id, "k", action)
    assert again == StoredResponse(200, b'{"ok":true}', replayed=True)
    assert len(action.written) == 1  # not run again
    assert stored(db, client_id, second.written) == [True]  # first's write of the replay stands


def test_without_a_key_nothing_is_kept_and_the_action_runs_every_time(db, client_id):
    action = Action(client_id)
    run(db, client_id, None, action)
    run(db, client_id, None, action)
    assert len(action.written) == 2 and rows(db, client_id) == 0


@pytest.mark.parametrize("key", [None, "refused"])
def test_a_refused_action_rolls_back_alone_and_first_stands(db, client_id, key):
    action = Action(client_id, error=Conflict("no"))
    first = First(client_id, key)
    with pytest.raises(Conflict):
        run_once_after(db, client_id, "POST", "/v1/x/moves", BODY, first, action)
    assert stored(db, client_id, first.written + action.written) == [True, False]
    assert rows(db, client_id) == 0  # the claim rolled back with the action: the key is free
    answer, _ = run(db, client_id, key, Action(client_id))
    assert answer == OK


def test_an_answer_outside_2xx_is_returned_not_kept_and_first_stands(db, client_id):
    teapot = StoredResponse(409, b"{}")
    action = Action(client_id, response=teapot)
    answer, first = run(db, client_id, "k409", action)
    assert answer == teapot
    assert stored(db, client_id, first.written + action.written) == [True, False]
    assert rows(db, client_id) == 0


def test_a_refusal_in_first_writes_nothing_and_claims_no_key(db, client_id):
    def first(uow: Any) -> tuple[str, str | None]:
        raise NotFound("no game")

    action = Action(client_id)
    with pytest.raises(NotFound):
        run_once_after(db, client_id, "POST", "/v1/x/moves", BODY, first, action)
    assert action.seen == [] and rows(db, client_id) == 0


def test_the_same_key_with_another_body_is_refused_and_first_still_stands(db, client_id):
    run(db, client_id, "kb", Action(client_id))
    action = Action(client_id)
    first = First(client_id, "kb")
    with pytest.raises(IdempotencyKeyReused):
        run_once_after(db, client_id, "POST", "/v1/x/moves", {"player": "b", "pass": True}, first, action)
    assert action.seen == [] and stored(db, client_id, first.written) == [True]


def test_a_lock_timeout_is_in_flight_with_a_key_and_itself_without(db, client_id):
    with pytest.raises(IdempotencyInFlight):
        run(db, client_id, "kl", Action(client_id, error=LockTimeout("held")))
    with pytest.raises(LockTimeout):
        run(db, client_id, None, Action(client_id, error=LockTimeout("held")))


def test_a_key_with_nothing_to_replay_is_tried_twice_then_in_flight(db, client_id, monkeypatch):
    from service.services import idempotency

    run(db, client_id, "kr", Action(client_id))
    monkeypatch.setattr(idempotency, "replay", lambda *args, **kw: None)
    firsts: list[str] = []
    action = Action(client_id)

    def first(uow: Any) -> tuple[str, str | None]:
        firsts.append("first")
        return "mt_none", "kr"

    with pytest.raises(IdempotencyInFlight):
        run_once_after(db, client_id, "POST", "/v1/x/moves", BODY, first, action)
    assert firsts == ["first", "first"] and action.seen == []


def test_a_replay_gives_back_every_field_of_the_kept_answer(db, client_id):
    created = StoredResponse(201, b"a,b\n", "text/csv; charset=utf-8", "/v1/x/1")
    run(db, client_id, "kf", Action(client_id, response=created))
    again, _ = run(db, client_id, "kf", Action(client_id))
    assert again == StoredResponse(201, b"a,b\n", "text/csv; charset=utf-8", "/v1/x/1", replayed=True)


@pytest.mark.parametrize("status", [199, 300])
def test_only_2xx_answers_are_kept(db, client_id, status):
    answer, _ = run(db, client_id, f"k{status}", Action(client_id, response=StoredResponse(status, b"{}")))
    assert answer.status == status and rows(db, client_id) == 0


def test_a_lock_timeout_in_first_is_itself_before_any_key_is_known(db, client_id):
    def first(uow: Any) -> tuple[str, str | None]:
        raise LockTimeout("the game row is held")

    with pytest.raises(LockTimeout):
        run_once_after(db, client_id, "POST", "/v1/x/moves", BODY, first, Action(client_id))


def test_it_is_one_write_transaction(db, client_id, monkeypatch):
    opened: list[bool] = []
    original_uow = type(db).unit_of_work

    def spy(self: Any, write: bool = False) -> Any:
        opened.append(write)
        return original_uow(self, write)

    monkeypatch.setattr(type(db), "unit_of_work", spy)
    run(db, client_id, "kw", Action(client_id))
    run(db, client_id, None, Action(client_id))
    assert opened == [True, True]
