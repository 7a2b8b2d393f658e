"""`capsa sweep`: one pass settles the games past their deadline; the loop stops on SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app, make_tenant, migrated_sqlite

from service.cli import main
from service.services.clock import FixedClock, use_clock
from service.services.susun import games as susun_games

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

    url = migrated_sqlite(tmp_path / "sweep.db")
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
    out, err = capsys.readouterr()
    lines = out.splitlines()
    # one line per game it settled (in deadline order, then by id: theirs are equal), then the summary
    assert lines[:2] == [f"settled Susun game {g} of client {tenant.id}" for g in sorted(past)] and err == ""
    assert re.fullmatch(r"settled 2 games, played 0 overdue turns in \d+ ms", lines[2]) and len(lines) == 3
    assert [_status(app, tenant, g) for g in past] == ["settled", "settled"]
    assert _status(app, tenant, future) == "arranging"
    assert main(["sweep", "--once"]) == 0  # a second pass finds nothing, and says so
    out, err = capsys.readouterr()
    assert re.fullmatch(r"settled 0 games, played 0 overdue turns in \d+ ms\n", out) and err == ""


def test_one_pass_says_which_big_two_games_it_played_overdue_turns_in(overdue, monkeypatch, capsys):
    from service.services.banting import timers

    url, app, tenant, past, future = overdue
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setattr(susun_games, "settle_overdue", lambda db: [])
    monkeypatch.setattr(timers, "play_overdue", lambda db: [("cl_1", "bg_1", 1), ("cl_2", "bg_2", 3)])
    assert main(["sweep", "--once"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["played 1 overdue turn in Big Two game bg_1 of client cl_1",
                         "played 3 overdue turns in Big Two game bg_2 of client cl_2"]
    assert re.fullmatch(r"settled 0 games, played 4 overdue turns in \d+ ms", lines[2]) and len(lines) == 3


def test_quiet_prints_nothing(overdue, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", overdue[0])
    assert main(["sweep", "--once", "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_a_pass_settles_in_batches_until_none_is_left(overdue):
    url, app, tenant, past, future = overdue
    assert len(susun_games.settle_overdue(app.extensions["capsa"].db, batch=1)) == 2
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
    assert f"settled Susun game {past[0]} of client {tenant.id}\n" in err and "settled 2 games" in err
    assert _status(app, tenant, future) == "arranging"


@pytest.mark.parametrize("value", ["soon", "0", "-1"])
def test_a_bad_sweep_interval_is_one_clear_line_and_a_usage_error(value, overdue, monkeypatch, capsys):
    url = overdue[0]
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("SWEEP_INTERVAL_S", value)
    with pytest.raises(SystemExit) as stop:
        main(["sweep", "--once"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        f"capsa sweep: SWEEP_INTERVAL_S must be a number of seconds from 0.01 to 3600, not {value!r}\n")


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "x"])
def test_a_bad_interval_option_is_a_usage_error(value, overdue, capsys):
    """--interval 0 (or -5, nan) spun a core; inf was a traceback: SWEEP_INTERVAL_S was
    checked, the option not."""
    with pytest.raises(SystemExit) as stop:
        main(["sweep", "--interval", value, "--database-url", overdue[0]])
    assert stop.value.code == 2
    assert f"must be a number of seconds from 0.01 to 3600, not {value!r}" in capsys.readouterr().err


def test_a_database_never_migrated_or_behind_is_one_line_and_exit_3(tmp_path, capsys):
    """It ran each pass and said each part failed (a missing table or column), exit 1 with
    a summary on stdout that read as success; every other command says it once, exit 3."""
    from service.adapters.migrate import shipped_revisions, upgrade

    never = tmp_path / "never.db"
    never.touch()
    behind = f"sqlite:///{tmp_path / 'behind.db'}"
    upgrade(behind, shipped_revisions()[-2])
    for url, said in ((f"sqlite:///{never}", "no capsa tables"), (behind, f"at migration {shipped_revisions()[-2]}")):
        assert main(["sweep", "--once", "--database-url", url]) == 3
        out, err = capsys.readouterr()
        assert out == "" and said in err and err.count("\n") == 1 and "capsa db upgrade" in err


def test_a_failing_big_two_pass_still_settles_and_counts_the_susun_games(overdue, monkeypatch, capsys):
    from service.services.banting import timers

    url, app, tenant, past, future = overdue
    monkeypatch.setenv("DATABASE_URL", url)

    def broken(db: Any) -> list[Any]:
        raise RuntimeError("turn table unreadable")

    monkeypatch.setattr(timers, "play_overdue", broken)
    assert main(["sweep", "--once"]) == 1  # a one-shot run (cron) sees the failure
    out, err = capsys.readouterr()
    assert err == "capsa sweep: the Big Two turns pass failed: RuntimeError: turn table unreadable\n"
    assert "settled 2 games, played 0 overdue turns in " in out
    assert [_status(app, tenant, g) for g in past] == ["settled", "settled"]


def test_a_failing_susun_pass_still_plays_the_big_two_turns(overdue, monkeypatch, capsys):
    from service.services.banting import timers

    url, app, tenant, past, future = overdue
    monkeypatch.setenv("DATABASE_URL", url)
    ran = []

    def broken(db: Any) -> list[Any]:
        raise RuntimeError("games table unreadable")

    monkeypatch.setattr(susun_games, "settle_overdue", broken)
    monkeypatch.setattr(timers, "play_overdue", lambda db: ran.append(db) or [("cl_x", "bg_x", 3)])
    assert main(["sweep", "--once"]) == 1
    out, err = capsys.readouterr()
    assert err == "capsa sweep: the Susun games pass failed: RuntimeError: games table unreadable\n"
    assert "settled 0 games, played 3 overdue turns in " in out and len(ran) == 1
    assert [_status(app, tenant, g) for g in past] == ["arranging", "arranging"]


def test_the_sweeper_signs_the_rounds_it_stores_with_the_apps_keyring(overdue, monkeypatch, tmp_path):
    """The sweeper stores rounds (a game settled at its deadline, a Big Two turn played out):
    with SIGNING_KEY_FILE, as the app has, each has its receipt from the start, so a webhook
    event of it carries the receipt GET answers (the dispatcher holds no key to make one)."""
    from sqlalchemy import select

    from service.adapters import keyfile
    from service.adapters.models import ChainSignature
    from service.domain.signing import Keyring
    from service.services.clock import utcnow_ms

    url, app, tenant, past, _ = overdue
    path = tmp_path / "keys.json"
    keyfile.save(path, Keyring().rotated(utcnow_ms())[0])
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("SIGNING_KEY_FILE", str(path))
    assert main(["sweep", "--once", "--quiet"]) == 0
    with app.extensions["capsa"].db.unit_of_work() as uow:
        signed = uow.session.execute(select(ChainSignature.sequence).where(ChainSignature.client_id == tenant.id)).all()
    assert len(signed) == len(past)  # each settled game's round, signed as it was stored


def test_a_command_on_a_sqlite_file_that_does_not_exist_says_so_and_makes_no_file(tmp_path, capsys):
    """`capsa clients list` with a mistyped path made an empty database file there, then
    said it had no capsa tables; only `capsa db upgrade` makes a database."""
    from service import cli

    missing = tmp_path / "typo.db"
    for argv in (["clients", "list"], ["sweep", "--once"], ["idempotency", "purge"]):
        assert cli.main([*argv[:1], "--database-url", f"sqlite:///{missing}", *argv[1:]]
                        if argv[0] == "clients" else [*argv, "--database-url", f"sqlite:///{missing}"]) == 3
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "does not exist" in err and "capsa db upgrade" in err, err
        assert not missing.exists()
