"""A server-run Susun game's phase and deadline (service/domain/susun/game.py), at its edges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from service.domain.susun.game import (
    MAX_ARRANGE_SECONDS,
    MIN_ARRANGE_SECONDS,
    GameStatus,
    Submission,
    arrange_seconds_problem,
    deadline_of,
    is_due,
    player_view,
    takes_submissions,
)

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
MS = timedelta(milliseconds=1)
ROWS = {"front": ["Qh", "Qd", "5c"], "middle": ["8s", "8h", "8d", "Kc", "Kd"], "back": ["3s", "4s", "5s", "6s", "7s"]}


def test_the_statuses_are_the_apis_words():
    assert [s.value for s in GameStatus] == ["arranging", "settled"]
    assert GameStatus("settled") is GameStatus.SETTLED and str(GameStatus.ARRANGING) == "arranging"


def test_the_deadline_is_the_creation_time_plus_the_phase():
    assert deadline_of(T0, 60) == T0 + timedelta(seconds=60)
    assert deadline_of(T0, MIN_ARRANGE_SECONDS) == T0 + timedelta(seconds=1)


@pytest.mark.parametrize(
    ("seconds", "problem"),
    [(1, None), (60, None), (86_400, None), (0, "must be 1 to 86400, not 0"), (-1, "must be 1 to 86400, not -1"),
     (86_401, "must be 1 to 86400, not 86401")],
)
def test_a_phase_is_one_second_to_a_day(seconds, problem):
    assert (MIN_ARRANGE_SECONDS, MAX_ARRANGE_SECONDS) == (1, 86_400)
    assert arrange_seconds_problem(seconds) == problem


@pytest.mark.parametrize(
    ("status", "now", "due", "open_"),
    [
        ("arranging", T0 - MS, False, True),  # just before the deadline: still open
        ("arranging", T0, True, False),  # at the deadline itself: closed, and due
        ("arranging", T0 + MS, True, False),
        ("settled", T0 - MS, False, False),  # settled early by the last submission
        ("settled", T0, False, False),
        ("settled", T0 + timedelta(days=1), False, False),
        (GameStatus.ARRANGING, T0, True, False),
    ],
)
def test_a_game_takes_rows_until_its_deadline_and_is_due_from_it(status, now, due, open_):
    assert is_due(status, T0, now) is due
    assert takes_submissions(status, T0, now) is open_


def test_a_submission_keeps_what_the_player_sent():
    sent = Submission(ROWS, surrender=False, auto_arranged=False, at="2026-11-29T10:00:05.000Z")
    assert sent.to_json() == {"arrangement": ROWS, "surrender": False, "auto_arranged": False,
                              "at": "2026-11-29T10:00:05.000Z"}
    assert Submission(None, surrender=True, auto_arranged=False, at="x").to_json()["arrangement"] is None


def test_before_settlement_a_player_shows_only_whether_and_when_it_submitted():
    sent = Submission(ROWS, surrender=False, auto_arranged=False, at="2026-11-29T10:00:05.000Z").to_json()
    assert player_view(sent, settled=False) == {"submitted": True, "submitted_at": "2026-11-29T10:00:05.000Z"}
    assert player_view(None, settled=False) == {"submitted": False, "submitted_at": None}
    surrendered = Submission(None, surrender=True, auto_arranged=False, at="2026-11-29T10:00:07.000Z").to_json()
    assert player_view(surrendered, settled=False) == {"submitted": True, "submitted_at": "2026-11-29T10:00:07.000Z"}


def test_once_settled_every_player_shows_its_rows_and_whether_the_service_arranged_them():
    sent = Submission(ROWS, surrender=False, auto_arranged=False, at="2026-11-29T10:00:05.000Z").to_json()
    auto = Submission(ROWS, surrender=False, auto_arranged=True, at="2026-11-29T10:01:00.000Z").to_json()
    gave_up = Submission(None, surrender=True, auto_arranged=False, at="2026-11-29T10:00:07.000Z").to_json()
    assert player_view(sent, settled=True) == {
        "submitted": True, "submitted_at": "2026-11-29T10:00:05.000Z", "arrangement": ROWS,
        "surrender": False, "auto_arranged": False}
    # an auto-arranged hand is not a submission: no time, and marked
    assert player_view(auto, settled=True) == {
        "submitted": False, "submitted_at": None, "arrangement": ROWS, "surrender": False, "auto_arranged": True}
    assert player_view(gave_up, settled=True) == {
        "submitted": True, "submitted_at": "2026-11-29T10:00:07.000Z", "arrangement": None,
        "surrender": True, "auto_arranged": False}
    assert player_view(None, settled=True) == {
        "submitted": False, "submitted_at": None, "arrangement": None, "surrender": False, "auto_arranged": False}


def test_the_rows_shown_are_the_three_rows_only_in_their_order():
    stored = {**ROWS, "extra": ["As"]}
    view = player_view({"arrangement": {"back": stored["back"], "front": stored["front"], "middle": stored["middle"],
                                        "extra": ["As"]}, "surrender": False, "auto_arranged": False, "at": "t"},
                       settled=True)
    assert list(view["arrangement"]) == ["front", "middle", "back"]
