"""The dispatcher's settings from WEBHOOK_* variables: each variable reaches its own field,
and an absent or empty one leaves that field's default."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain import webhooks as hooks
from service.domain.errors import SettingError
from service.services.webhooks.dispatcher import Settings

EVERY_VARIABLE = {
    "WEBHOOK_RETRY_SCHEDULE": "1s,2m",
    "WEBHOOK_TIMEOUT_S": "2.5",
    "WEBHOOK_CONCURRENCY": "7",
    "WEBHOOK_ENDPOINT_CONCURRENCY": "3",
    "WEBHOOK_CLIENT_CONCURRENCY": "5",
    "WEBHOOK_DISABLE_AFTER": "2d",
    "WEBHOOK_POLL_S": "0.7",
    "WEBHOOK_LINGER_S": "0.04",
    "WEBHOOK_LEASE_S": "11",
    "WEBHOOK_CLAIM_BATCH": "123",
    "WEBHOOK_DEPTH": "3",
    "WEBHOOK_ATTEMPTS_KEEP": "7d",
}


def test_every_variable_sets_its_own_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "yes")
    s = Settings.from_env(EVERY_VARIABLE)
    assert (s.schedule, s.timeout_s, s.allow_private) == ((1.0, 120.0), 2.5, True)
    assert (s.concurrency, s.endpoint_concurrency, s.client_concurrency) == (7, 3, 5)
    assert (s.disable_after_s, s.poll_s, s.lease_s, s.claim_batch, s.depth) == (172_800.0, 0.7, 11.0, 123, 3)
    assert (s.linger_s, s.attempts_keep_s) == (0.04, 604_800.0)


@pytest.mark.parametrize("env", [{}, {name: "" for name in EVERY_VARIABLE}], ids=["absent", "empty"])
def test_absent_or_empty_variables_leave_the_defaults(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBHOOK_ALLOW_PRIVATE", raising=False)
    assert Settings.from_env(env) == Settings()
    assert Settings().schedule == hooks.parse_schedule(hooks.DEFAULT_SCHEDULE)
    assert (Settings().timeout_s, Settings().concurrency, Settings().endpoint_concurrency) == (5.0, 16, 4)
    assert (Settings().client_concurrency, Settings().disable_after_s, Settings().claim_batch) == (8, 259_200.0, 256)
    assert (Settings().poll_s, Settings().linger_s, Settings().attempts_keep_s) == (0.2, 0.05, 2_592_000.0)


def test_the_process_environment_is_read_when_none_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOK_CONCURRENCY", "9")
    assert Settings.from_env().concurrency == 9


def test_a_bad_schedule_is_refused_naming_the_variable_and_the_step() -> None:
    with pytest.raises(SettingError, match="WEBHOOK_RETRY_SCHEDULE '5s,soon': retry step 'soon'"):
        Settings.from_env({"WEBHOOK_RETRY_SCHEDULE": "5s,soon"})


def test_attempts_are_kept_for_ever_only_when_asked_with_off() -> None:
    assert Settings.from_env({"WEBHOOK_ATTEMPTS_KEEP": "off"}).attempts_keep_s is None
    assert Settings.from_env({"WEBHOOK_ATTEMPTS_KEEP": "OFF"}).attempts_keep_s is None
    assert Settings.from_env({"WEBHOOK_ATTEMPTS_KEEP": " 12h "}).attempts_keep_s == 43_200.0
    with pytest.raises(SettingError, match=r"^WEBHOOK_ATTEMPTS_KEEP must be one duration .*\(such as 3d or 12h\), or off, not 'never'$"):
        Settings.from_env({"WEBHOOK_ATTEMPTS_KEEP": "never"})


@pytest.mark.parametrize(("name", "value"), [
    ("WEBHOOK_CONCURRENCY", "0"), ("WEBHOOK_CONCURRENCY", "-3"), ("WEBHOOK_CONCURRENCY", "x"),
    ("WEBHOOK_ENDPOINT_CONCURRENCY", "0"), ("WEBHOOK_CLIENT_CONCURRENCY", "0"), ("WEBHOOK_CLAIM_BATCH", "0"),
    ("WEBHOOK_DEPTH", "1.5"), ("WEBHOOK_TIMEOUT_S", "0"), ("WEBHOOK_TIMEOUT_S", "-1"), ("WEBHOOK_TIMEOUT_S", "5s"),
    ("WEBHOOK_POLL_S", "0"), ("WEBHOOK_POLL_S", "nan"), ("WEBHOOK_LINGER_S", "-0.1"), ("WEBHOOK_LEASE_S", "inf"),
    ("WEBHOOK_DISABLE_AFTER", "3d,5s"), ("WEBHOOK_DISABLE_AFTER", "0"), ("WEBHOOK_ATTEMPTS_KEEP", "0"),
    # longer than ten years: each pass's date arithmetic overflowed (a failed step, logged, forever)
    ("WEBHOOK_DISABLE_AFTER", "99999999999d"), ("WEBHOOK_ATTEMPTS_KEEP", "3651d"), ("WEBHOOK_LEASE_S", "1e12"),
    ("WEBHOOK_RETRY_SCHEDULE", "5s,1000000000000"), ("WEBHOOK_TIMEOUT_S", "315360001"),
    # shorter than the least attempt made (MIN_ATTEMPT_S): every attempt failed until the
    # endpoint was disabled
    ("WEBHOOK_TIMEOUT_S", "1e-9"), ("WEBHOOK_TIMEOUT_S", "0.05"),
])
def test_a_value_that_would_deliver_nothing_or_spin_is_refused_naming_it(name: str, value: str) -> None:
    """Each made the dispatcher start (and exit 0) delivering nothing, loop without pause,
    or read one of two durations: counts of 0, a deadline or a poll of 0."""
    with pytest.raises(SettingError, match=f"^{name} .*{value!r}"):
        Settings.from_env({name: value})


@pytest.mark.parametrize(("name", "off"), [("WEBHOOK_DISABLE_AFTER", ""), ("WEBHOOK_ATTEMPTS_KEEP", ", or off")])
def test_a_duration_that_is_none_is_refused_as_a_duration_not_a_retry_step(name: str, off: str) -> None:
    """`1d2h` was refused with "retry step '1d2h' is not a number ...": the words of the
    retry schedule's parser, for a setting that is one duration."""
    with pytest.raises(SettingError) as refused:
        Settings.from_env({name: "1d2h"})
    assert str(refused.value) == (
        f"{name} must be one duration above 0, at most ten years (such as 3d or 12h){off}, not '1d2h'")


def test_a_bare_number_is_seconds_and_a_unit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.from_env({"WEBHOOK_DISABLE_AFTER": "90"}).disable_after_s == 90.0
    assert Settings.from_env({"WEBHOOK_DISABLE_AFTER": "90m"}).disable_after_s == 5400.0


def test_the_command_says_which_setting_in_one_line_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from service import cli

    monkeypatch.setenv("WEBHOOK_CONCURRENCY", "0")
    assert cli.main(["webhooks", "dispatch", "--once", "--database-url", "sqlite://"]) == 2
    assert capsys.readouterr().err == (
        "capsa webhooks dispatch: WEBHOOK_CONCURRENCY must be a whole number of 1 or more, not '0'\n")
    monkeypatch.delenv("WEBHOOK_CONCURRENCY")
    with pytest.raises(SystemExit) as stopped:  # --concurrency 0 silently meant 16
        cli.main(["webhooks", "dispatch", "--once", "--concurrency", "0", "--database-url", "sqlite://"])
    assert stopped.value.code == 2 and "must be a whole number of 1 or more, not '0'" in capsys.readouterr().err


def test_a_database_never_migrated_is_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    """It started and failed every pass on a missing table (a column, behind), saying
    'check that its server is running'."""
    from service import cli

    monkeypatch.setenv("WEBHOOK_METRICS_BIND", "off")
    (tmp_path / "never.db").touch()
    assert cli.main(["webhooks", "dispatch", "--once", "--database-url", f"sqlite:///{tmp_path / 'never.db'}"]) == 3
    err = capsys.readouterr().err
    assert "no capsa tables: run `capsa db upgrade`" in err and err.count("\n") == 1
