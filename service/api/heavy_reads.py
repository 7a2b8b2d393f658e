"""Heavy reads in flight per client, on this server: a bound on the workers one client holds.

A verify of up to 100,000 records, an audit export, a ledger CSV or statement, and a
summary or a player's totals over a period (its lines summed in full) each hold a sync
worker for seconds; so can a suggestion (`POST /v1/arrangements/suggest`) under rules whose
many distinct bonuses with `max_one_royalty` make its search slow (0.3 s, measured).
Without a bound one client asking for several at once held every worker of a server, and
every other client's requests (writes included) waited behind them. A heavy read
takes one of its client's `HEAVY_READS_PER_CLIENT` slots (2 by default) for as long as its
answer is being produced and sent, or is refused: 429 `rate-limited` with `Retry-After: 1`.

A slot is an exclusive `flock` on a file of `HEAVY_READS_DIR` (a directory every worker of
the server shares: gunicorn.conf.py makes one before the workers start), so the bound holds
across the server's workers, and the kernel lets a slot go when its worker dies. Each server
counts its own: behind a load balancer a client holds at most that many of each server's
workers.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from flask import Flask, Response, current_app

from service.domain.errors import SettingError

from .problems import Problem
from .state import principal

DEFAULT_PER_CLIENT = 2
ENV_DIR = "HEAVY_READS_DIR"
EXTENSION = "capsa.heavy_reads"  # the app's HeavyReads (None: no bound), in `app.extensions`
RETRY_AFTER_S = 1
_OFF = frozenset({"", "0", "off", "none", "false", "disabled"})

F = TypeVar("F", bound=Callable[..., Response])
T = TypeVar("T")


def per_client(setting: str) -> int | None:
    """`HEAVY_READS_PER_CLIENT` as a count (None: no bound); ValueError when it is neither."""
    if setting.strip().lower() in _OFF:
        return None
    try:
        count = int(setting)
    except ValueError:
        count = 0
    if count < 1:
        raise SettingError(f"HEAVY_READS_PER_CLIENT must be a count of 1 or more, or off: {setting!r}")
    return count


class Slot:
    """A slot held: let it go once (the answer sent, or the read failed)."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the file lets the lock go

    # A slot whose answer was dropped unsent (never closed) goes with it.
    __del__ = release


class HeavyReads:
    """The slots of every client on this server: `per_client` lock files each in `directory`."""

    @classmethod
    def from_config(cls, setting: str, directory: str) -> HeavyReads | None:
        """None when the setting is off. Without a directory, one of this process's own is
        made at its first heavy read (one process serving alone: a test, a script);
        gunicorn.conf.py names one for all the workers of a server."""
        count = per_client(setting)
        if count is None:
            return None
        return cls(Path(directory) if directory else None, count)

    def __init__(self, directory: Path | None, per_client: int) -> None:
        self._directory = directory
        self.per_client = per_client

    @property
    def directory(self) -> Path:
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="capsa-heavy-reads-"))
            # Gone with the process that made it (not with a child forked from it): each
            # test session, script or `capsa serve` left one behind in the temporary directory.
            atexit.register(_remove_own, self._directory, os.getpid())
        return self._directory

    def take(self, client_id: str) -> Slot | None:
        """A free slot of the client's, now held; None when all are held."""
        name = hashlib.sha256(client_id.encode()).hexdigest()[:32]
        directory = self.directory
        directory.mkdir(parents=True, exist_ok=True)
        for n in range(self.per_client):
            fd = os.open(directory / f"{name}.{n}", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            except BaseException:
                os.close(fd)
                raise
            return Slot(fd)
        return None


def _remove_own(directory: Path, owner: int) -> None:
    if os.getpid() == owner:
        shutil.rmtree(directory, ignore_errors=True)


def answer_heavy(make: Callable[[], Response]) -> Response:
    """`make()`'s answer, produced and sent in a slot of the client's (`HeavyReads`), held
    until the answer is sent (a streamed answer's end); or 429 when none is free."""
    reads: HeavyReads | None = current_app.extensions[EXTENSION]
    if reads is None:
        return make()
    slot = reads.take(principal().client_id)
    if slot is None:
        raise _refused(reads)
    try:
        response = make()
    except BaseException:
        slot.release()
        raise
    response.call_on_close(slot.release)
    return response


def _refused(reads: HeavyReads) -> Problem:
    return Problem(
        429,
        "rate-limited",
        f"this client already has {reads.per_client} heavy reads (verify, exports, CSV, reports over a period, "
        "suggestions, pages of over 100 events, overdue games or turns a list page settles) in flight "
        "on this server; retry after Retry-After seconds",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


def in_slot(work: Callable[[], T]) -> T | None:
    """`work()` run in one of the client's slots, let go when it returns; None, without
    running it, when none is free (the bound off: it just runs). For work a request may
    leave to another process: settling an overdue Capsa Susun game, which the sweeper
    does too."""
    return _in_slot(work, refuse=False)


def in_slot_or_refused(work: Callable[[], T]) -> T:
    """`in_slot`, but 429 when no slot is free: for work an answer cannot be right
    without (a list of the games that work finishes, a summary's days gathered)."""
    return cast(T, _in_slot(work, refuse=True))


def _in_slot(work: Callable[[], T], *, refuse: bool) -> T | None:
    reads: HeavyReads | None = current_app.extensions[EXTENSION]
    if reads is None:
        return work()
    slot = reads.take(principal().client_id)
    if slot is None:
        if refuse:
            raise _refused(reads)
        return None
    try:
        return work()
    finally:
        slot.release()


def heavy(view: F) -> F:
    """A view whose answer may hold its worker for seconds (`answer_heavy`)."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Response:
        return answer_heavy(lambda: view(*args, **kwargs))

    return wrapper  # type: ignore[return-value]


def install(app: Flask) -> None:
    """The app's slots, from its config (`HEAVY_READS_PER_CLIENT`, `HEAVY_READS_DIR`)."""
    app.extensions[EXTENSION] = HeavyReads.from_config(
        str(app.config["HEAVY_READS_PER_CLIENT"]), str(app.config["HEAVY_READS_DIR"])
    )


def of(app: Flask) -> HeavyReads | None:
    found: HeavyReads | None = app.extensions[EXTENSION]
    return found


__all__ = [
    "DEFAULT_PER_CLIENT", "ENV_DIR", "HeavyReads", "Slot", "answer_heavy", "heavy", "in_slot", "in_slot_or_refused",
    "install", "of", "per_client",
]
