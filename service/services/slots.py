"""The heavy-read slot a request's work may run in, as the services see it: a guard given
by the API (`api.heavy_reads.in_slot`, `in_slot_or_refused`), or none (the sweeper, the CLI,
tests), in which case the work runs at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")


class Guard(Protocol):
    """Runs the work it is given in a slot and answers its result; or answers None without
    running it, when the client has none free (the work is left to the sweeper), or raises
    (429: the answer cannot be right without it)."""

    def __call__(self, work: Callable[[], T]) -> T | None: ...


class RequiredGuard(Protocol):
    """A guard that runs the work or raises: never declines (`in_slot_or_refused`)."""

    def __call__(self, work: Callable[[], T]) -> T: ...


def ran(work: Callable[[], bool], guard: Guard | None) -> bool:
    """Whether `work` ran and answered True: at once without a guard, else as `guard` lets it."""
    return (work() if guard is None else guard(work)) is True
