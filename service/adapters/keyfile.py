"""The signing keyring on disk (`SIGNING_KEY_FILE`): read it, write it only readable by its owner.

The private keys never go into the database: whoever controls the database must not be
able to sign. The file is JSON (`Keyring.private_json`); every worker and host of the
service reads the same file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from service.domain.signing import Keyring, KeyringError

ENV = "SIGNING_KEY_FILE"


def path_from_env() -> Path | None:
    value = os.environ.get(ENV, "").strip()
    return Path(value) if value else None


def load(path: Path) -> Keyring:
    """The keyring at `path`; KeyringError saying what is wrong with it."""
    try:
        # The file is ASCII (json.dump escapes the rest): any ASCII-based codec reads it alike.
        doc = json.loads(path.read_text(encoding="utf-8"))  # pragma: no mutate
    except FileNotFoundError as exc:
        raise KeyringError(f"{ENV} {str(path)!r} does not exist; create it with `capsa keys create`") from exc
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise KeyringError(f"{ENV} {str(path)!r} cannot be read as a keyring: {exc}") from exc
    return Keyring.from_json(doc)


def load_env() -> Keyring | None:
    """The keyring named by SIGNING_KEY_FILE, or None when it is unset."""
    path = path_from_env()
    return None if path is None else load(path)


def save(path: Path, keyring: Keyring) -> None:
    """Write the keyring atomically, mode 0600 (a rename over the old file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    # ASCII only (json.dump escapes the rest): any ASCII-based codec writes the same bytes.
    with os.fdopen(fd, "w", encoding="utf-8") as out:  # pragma: no mutate
        json.dump(keyring.private_json(), out, indent=2)
        out.write("\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
