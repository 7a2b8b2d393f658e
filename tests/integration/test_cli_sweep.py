"""`capsa sweep`: one pass settles the games past their deadline; the loop stops on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app, make_tenant

from service.cli import main
from service.services import susun_games
from service.services.ids import FixedClock, use_clock

CAPSA = str(Path(sys.executable).with_name("capsa"))


def _game(app: Any, tenant: Any, seconds: int) -> str:
    answer = app.test_client().post(
        "/v1/susun/games",
        json={"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": seconds},
        headers=tenant.headers,
    )
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return str(answer.get_json()["id"])


@pytest.fixture
def overdue(tmp_path: Path) -> Any:
    """A database with two games made on 2026-11-29 (long past by the real clock) and one
    whose deadline is a day ahead of the real clock."""
    from service.adapters.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'sweep.db'}"
    upgrade(url)
    app = make_app(url)
    tenant = make_tenant(app)
    previous = use_clock(FixedClock(datetime(2026, 11, 29, 10, 0, tzinfo=UTC)))
    try:
        past = [_game(app, tenant, 60), _game(app, tenant, 60)]
    finally:
        use_clock(previous)
    future = _game(app, tenant, 86_400)
    yield url, app, tenant, past, future
    app.extensions["capsa"].db.dispose()


def _status(app: Any, tenant: Any, game_id: str) -> str:
    db = app.extensions["capsa"].db
    with db.unit_of_work() as uow:
        row = uow.susun_games.get(tenant.id, game_id)
        assert row is not None
        return row.status


def test_one_pass_settles_the_overdue_games_and_leaves_the_others(overdue, monkeypatch, capsys):
    url, app, tenant, past, future = overdue
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["sweep", "--once"]) == 0
    assert "settled 2 games" in capsys.readouterr().err
    assert [_status(app, tenant, g) for g in past] == ["settled", "settled"]
    assert _status(app, tenant, future) == "arranging"
    assert main(["sweep", "--once"]) == 0  # a second pass finds nothing
    assert capsys.readouterr().err == ""


def test_a_pass_settles_in_batches_until_none_is_left(overdue):
    url, app, tenant, past, future = overdue
    assert susun_games.sweep_once(app.extensions["capsa"].db, batch=1) == 2
    assert [_status(app, tenant, g) for g in past] == ["settled", "settled"]


def test_the_sweeper_polls_until_sigterm_and_then_exits_cleanly(overdue):
    url, app, tenant, past, future = overdue
    env = {**os.environ, "DATABASE_URL": url, "SWEEP_INTERVAL_S": "0.05"}
    proc = subprocess.Popen([CAPSA, "sweep"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):  # bounded: at most 10 s for the first pass
            if all(_status(app, tenant, g) == "settled" for g in past):
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the sweeper keeps polling"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.stderr.close()
    assert "settled 2 games" in err
    assert _status(app, tenant, future) == "arranging"


@pytest.mark.parametrize("value", ["soon", "0", "-1"])
def test_a_bad_sweep_interval_is_one_clear_line(value, overdue, monkeypatch):
    url = overdue[0]
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("SWEEP_INTERVAL_S", value)
    with pytest.raises(SystemExit, match=f"SWEEP_INTERVAL_S must be .*{value!r}"):
        main(["sweep", "--once"])


def test_a_failing_big_two_pass_still_settles_and_counts_the_susun_games(overdue, monkeypatch, capsys):
    from service.services import banting

    url, app, tenant, past, future = overdue
    monkeypatch.setenv("DATABASE_URL", url)

    def broken(db: Any) -> int:
        raise RuntimeError("turn table unreadable")

    monkeypatch.setattr(banting, "sweep", broken)
    assert main(["sweep", "--once"]) == 1  # a one-shot run (cron) sees the failure
    err = capsys.readouterr().err
    assert "capsa sweep: the Big Two turns pass failed: RuntimeError: turn table unreadable\n" in err
    assert "settled 2 games, played 0 overdue turns in " in err
    assert [_status(app, tenant, g) for g in past] == ["settled", "settled"]


def test_a_failing_susun_pass_still_plays_the_big_two_turns(overdue, monkeypatch, capsys):
    from service.services import banting

    url, app, tenant, past, future = overdue
    monkeypatch.setenv("DATABASE_URL", url)
    ran = []

    def broken(db: Any) -> int:
        raise RuntimeError("games table unreadable")

    monkeypatch.setattr(susun_games, "sweep_once", broken)
    monkeypatch.setattr(banting, "sweep", lambda db: ran.append(db) or 3)
    assert main(["sweep", "--once"]) == 1
    err = capsys.readouterr().err
    assert "capsa sweep: the Susun games pass failed: RuntimeError: games table unreadable\n" in err
    assert "settled 0 games, played 3 overdue turns in " in err and len(ran) == 1
    assert [_status(app, tenant, g) for g in past] == ["arranging", "arranging"]
