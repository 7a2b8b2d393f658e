"""The signing keyring on disk (`SIGNING_KEY_FILE`): read it, write it only readable by its owner.

The private keys never go into the database: whoever controls the database must not be
able to sign. The file is JSON (`Keyring.private_json`); every worker and host of the
service reads the same file.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from service.domain.signing import Keyring, KeyringError

ENV = "SIGNING_KEY_FILE"


def path_from_env() -> Path | None:
    value = os.environ.get(ENV, "").strip()
    return Path(value) if value else None


def load(path: Path, named_by: str = ENV) -> Keyring:
    """The keyring at `path`; KeyringError saying what is wrong with it, the path named as
    given (`named_by`: the setting, or a command's --file)."""
    try:
        # The file is ASCII (json.dump escapes the rest): any ASCII-based codec reads it alike.
        doc = json.loads(path.read_text(encoding="utf-8"))  # pragma: no mutate
    except FileNotFoundError as exc:
        raise KeyringError(f"{named_by} {str(path)!r} does not exist; create it with `capsa keys create`") from exc
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise KeyringError(f"{named_by} {str(path)!r} cannot be read as a keyring: {exc}") from exc
    try:
        return Keyring.from_json(doc)
    except KeyringError as exc:
        raise KeyringError(f"{named_by} {str(path)!r} is not a keyring: {exc}") from exc


def load_env() -> Keyring | None:
    """The keyring named by SIGNING_KEY_FILE, or None when it is unset."""
    path = path_from_env()
    return None if path is None else load(path)


@contextmanager
def changing(path: Path) -> Iterator[None]:
    """Hold the keyring's lock (`<file>.lock`, made 0600 beside it) while it is read,
    changed and saved: two rotations at once would each save the keyring it read, and
    the key one of them printed would be lost."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # and the lock with it


def save(path: Path, keyring: Keyring) -> None:
    """Write the keyring atomically, mode 0600: through `<file>.tmp`, renamed over the old
    file. The temporary file has one name, so a write killed before its rename leaves no
    copy of the private keys that the next write does not take over; writers take turns
    (`changing`)."""
    # A link (hosts sharing one keyring) is written through: its target is the keyring.
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    # A leftover of a crashed write is removed, not reused: opened as it was, its mode (or
    # another owner) became the keyring's. O_EXCL makes a file of this write's own, 0600.
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    # ASCII only (json.dump escapes the rest): any ASCII-based codec writes the same bytes.
    with os.fdopen(fd, "w", encoding="utf-8") as out:  # pragma: no mutate
        json.dump(keyring.private_json(), out, indent=2)
        out.write("\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
