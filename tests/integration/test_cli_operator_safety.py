"""What an operator's command leaves behind when something goes wrong: a database it cannot
use, two runs at once, output it cannot write, Ctrl-C, a path or a number out of range.
Each ends in one clear line and its exit code, with nothing half-done."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from service.adapters import keyfile
from service.adapters.migrate import upgrade
from service.cli import main

CAPSA = str(Path(sys.executable).with_name("capsa"))


def kids(path: Path) -> list[str]:
    return [k.kid for k in keyfile.load(path).keys]


def test_keys_create_with_a_database_it_cannot_use_rotates_nothing(tmp_path, capsys):
    ring = tmp_path / "keys.json"
    assert main(["keys", "create", "--file", str(ring), "--no-sign"]) == 0
    first = kids(ring)
    missing = tmp_path / "missing.db"
    assert main(["keys", "create", "--file", str(ring), "--database-url", f"sqlite:///{missing}"]) == 3
    assert kids(ring) == first and keyfile.load(ring).active.kid == first[0]
    assert not missing.exists()  # and no empty database made on the way
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "does not exist" in err[0], err
    assert main(["keys", "sign", "--file", str(ring), "--database-url", f"sqlite:///{missing}"]) == 3
    assert not missing.exists()


def test_keys_create_on_an_unmigrated_database_rotates_nothing(tmp_path, capsys):
    ring = tmp_path / "keys.json"
    empty = tmp_path / "empty.db"
    empty.touch()
    assert main(["keys", "create", "--file", str(ring), "--database-url", f"sqlite:///{empty}"]) == 3
    assert not ring.exists()
    assert "capsa db upgrade" in capsys.readouterr().err


def test_keys_create_signs_with_the_new_key_and_prints_it_last(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'capsa.db'}"
    upgrade(url)
    ring = tmp_path / "keys.json"
    assert main(["keys", "create", "--file", str(ring), "--database-url", url]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == kids(ring)[0] and out[-2] == "signed 0 records that had no receipt"


def test_four_rotations_at_once_keep_every_key_they_print(tmp_path):
    ring = tmp_path / "keys.json"
    runs = [
        subprocess.Popen([CAPSA, "keys", "create", "--file", str(ring), "--no-sign"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    printed = []
    for run in runs:
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        printed.append(out.splitlines()[-1])
    kept = kids(ring)
    assert sorted(printed) == sorted(kept) and len(set(kept)) == 4
    assert [k.retired_at is None for k in keyfile.load(ring).keys].count(True) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.json", "keys.json.lock"]  # no temp file left
    assert oct(ring.stat().st_mode & 0o777) == "0o600"
