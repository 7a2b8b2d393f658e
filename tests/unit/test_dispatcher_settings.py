"""The dispatcher's settings from WEBHOOK_* variables: each variable reaches its own field,
and an absent or empty one leaves that field's default."""

from __future__ import annotations

import pytest

from service.domain import webhooks as hooks
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


def test_a_bad_schedule_is_refused_naming_the_step() -> None:
    with pytest.raises(hooks.InvalidWebhook, match="'soon'"):
        Settings.from_env({"WEBHOOK_RETRY_SCHEDULE": "5s,soon"})


def test_attempts_are_kept_for_ever_only_when_asked_with_off() -> None:
    assert Settings.from_env({"WEBHOOK_ATTEMPTS_KEEP": "off"}).attempts_keep_s is None
    assert Settings.from_env({"WEBHOOK_ATTEMPTS_KEEP": " 12h "}).attempts_keep_s == 43_200.0
    with pytest.raises(hooks.InvalidWebhook, match="'never'"):
        Settings.from_env({"WEBHOOK_ATTEMPTS_KEEP": "never"})
