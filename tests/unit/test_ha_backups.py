"""tools/ha/backups.py's pure parts: the restore target as ha-restore reads it, LSN order, and
the one archive_command both nodes run (no pgBackRest or formation needed here)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "ha"))

import backups as bk  # noqa: E402
import formation as ha  # noqa: E402


def test_a_target_is_a_time_or_an_lsn():
    assert bk.Target.parse("time:2026-12-02 01:02:03.5+00") == bk.Target("time", "2026-12-02 01:02:03.5+00")
    assert bk.Target.parse("lsn:0/3000060") == bk.Target("lsn", "0/3000060")
    assert bk.Target.parse("lsn:a/ff") == bk.Target("lsn", "A/FF")


@pytest.mark.parametrize("text", ["yesterday", "time:", "lsn:3000060", "lsn:0/xyz", "xid:12", ""])
def test_another_target_is_refused_naming_it_and_both_forms(text):
    with pytest.raises(bk.BackupError) as refused:
        bk.Target.parse(text)
    assert str(refused.value) == (f"TARGET={text!r}: expected time:TIMESTAMP (e.g. time:2026-12-02 01:02:03.5+00) "
                                  "or lsn:X/Y (e.g. lsn:0/3000060)")


def test_lsns_compare_by_their_high_then_low_half():
    assert bk.lsn_int("0/3000060") == 0x3000060
    assert bk.lsn_int("1/0") == 1 << 32
    assert bk.lsn_int("0/FFFFFFFF") < bk.lsn_int("1/0")


def test_one_archive_command_names_whichever_node_runs_it(tmp_path):
    f = ha.Formation(tmp_path, 17900)
    assert bk.archive_command(f) == (f'/usr/bin/pgbackrest --config={tmp_path.resolve()}/backup/archive.conf '
                                     '--stanza=capsa --pg1-path="$PWD" archive-push %p')
    assert bk.archive_settings(f)["archive_mode"] == "always"


def test_a_restored_server_never_archives_nor_waits_for_a_standby():
    assert bk.RESTORED_SETTINGS["archive_mode"] == "off"
    assert bk.RESTORED_SETTINGS["synchronous_standby_names"] == ""
    ports = {17900 + offset for offset in bk.RESTORED_PORTS}
    used = {p for h in ha.hosts(17900).values() for p in h.ports.values()}
    assert not ports & used


def test_a_backup_that_stopped_in_the_targets_second_is_not_restored_to_it(tmp_path, monkeypatch):
    """Stop times are whole seconds: a backup recorded as stopping at 20 may be consistent
    only at 20.9, after a target of 20.5 (PostgreSQL then refuses to start the restore)."""
    made = [{"label": f"b{stop}", "timestamp": {"start": stop - 5, "stop": stop}, "lsn": {"stop": "0/1"}}
            for stop in (10, 20)]
    monkeypatch.setattr(bk, "info", lambda f: made)
    f = ha.Formation(tmp_path, 17900)
    for target, chosen in ((20.5, "b10"), (21.0, "b20"), (11.0, "b10")):
        monkeypatch.setattr(bk, "target_epoch", lambda f, t, at=target: at)
        assert bk.choose_backup(f, bk.Target("time", "x"))["label"] == chosen, target


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(("replace", "replaces"), [("1", True), ("0", False), ("", False), ("no", False)])
def test_ha_restore_replaces_into_only_with_replace_1(replace, replaces):
    """The docs say INTO is refused unless REPLACE=1; any value (0 too) replaced it."""
    root = Path(__file__).resolve().parents[2]
    planned = subprocess.run(["make", "-n", "-s", "ha-restore", "HA_DIR=/nonexistent/ha", "TARGET=time:1",
                              "INTO=/nonexistent/into", f"REPLACE={replace}"],
                             cwd=root, capture_output=True, text=True, timeout=60, check=True).stdout
    assert "backups.py restore" in planned and ("--replace" in planned) == replaces
