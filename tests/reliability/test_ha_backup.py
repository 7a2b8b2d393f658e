"""pgBackRest on the high-availability formation (tools/ha/backups.py, tools/ha/drill.py), not
CI: it needs Debian's pg_auto_failover and pgbackrest, and root.

One formation in a temp dir, on ports of its own: archive_mode=always on both nodes with the
one archive_command; docs/operations.md's `sh ha` blocks run in order (a backup, a restore,
verify-restore against a kept head, the refusals); a restore into an existing directory and a
target before the first backup refused with exact messages; then `tools/ha/drill.py` on the
same formation: backup, failover, a destructive statement and a restore under load, 0 rounds
lost against the target.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_ha_formation import free_base, run, scratch_dir

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.skipif(shutil.which("pg_autoctl") is None, reason="pg_autoctl is not installed"),
    pytest.mark.skipif(shutil.which("pgbackrest") is None, reason="pgbackrest is not installed"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the formation starts pg_autoctl as postgres: needs root"),
]

ROOT = Path(__file__).resolve().parents[2]
HA = ROOT / "tools" / "ha"
sys.path.insert(0, str(HA))

import backups as bk  # noqa: E402
import formation as ha  # noqa: E402


@pytest.fixture(scope="module")
def formation() -> Iterator[ha.Formation]:
    directory = scratch_dir()
    base = int(os.environ.get("HA_PORT_BASE") or free_base())  # a base of one's own, or any free one
    try:
        up = run(directory, "up", base=base, timeout=600)
        assert up.returncode == 0, up.stderr
        yield ha.Formation(directory, base)
    finally:
        down = run(directory, "down")
        assert down.returncode == 0, down.stderr
        shutil.rmtree(directory, ignore_errors=True)


def backups_cli(f: ha.Formation, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HA / "backups.py"), *args, "--dir", str(f.dir)],
                          env={**os.environ, "HA_PORT_BASE": str(f.base)}, capture_output=True, text=True,
                          timeout=900)


def test_both_nodes_archive_always_through_the_one_archive_command(formation):
    for node in ha.NODES:
        assert formation.psql(node, "show archive_mode") == "always"
        assert formation.psql(node, "show archive_command") == bk.archive_command(formation)
    assert bk.stanza_ready(formation)


def ha_blocks() -> list[str]:
    text = (ROOT / "docs" / "operations.md").read_text()
    return re.findall(r"^```sh ha\n(.*?)^```", text, flags=re.S | re.M)


def test_the_documents_ha_blocks_run_in_order(formation):
    blocks = ha_blocks()
    assert len(blocks) == 5
    script = "set -euo pipefail\n" + "\n".join(blocks)
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=1200, env={
        **os.environ, "HA_DIR": str(formation.dir), "HA_PORT_BASE": str(formation.base),
        "PATH": f"{ROOT / '.venv/bin'}:{os.environ['PATH']}"})
    print(done.stdout[-3000:], done.stderr[-3000:])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"^backup \S+F \(full, from the standby node[12]\): ", out, re.M), out
    assert re.search(r"^backup \S+F_\S+D \(diff, from the standby node[12]\): ", out, re.M), out
    assert re.search(r"^ok: the restore holds \d+ clients whose chains verify \(\d+ records\) "
                     r"and reaches 1 of 1 signed heads$", out, re.M), out
    assert f"backups: INTO={formation.dir}/restored-1 exists: choose a new directory, or REPLACE=1 to replace it" \
        in done.stderr
    assert "backups: TARGET=time:2020-01-01 00:00+00 is before the first backup; the backups: " in done.stderr
    assert out.count("exit 2") == 2  # make's status for each refusal
    assert re.search(r"^ha-drill: ok: acknowledged rounds lost 0, restored after the target 0, ", out, re.M), out
    url = (formation.dir / "restore.out").read_text().splitlines()[-1]
    assert re.fullmatch(rf"postgresql\+psycopg://capsa@127\.0\.0\.40:{formation.base + 40}/capsa", url), url
    described = json.loads(run(formation.dir, "status").stdout)
    assert [s["url"] for s in described["backup"]["restored"]
            if s["dir"] == str(formation.dir / "restored-1")] == [url]


def test_refusals_name_the_directory_and_every_backup(formation):
    listed = bk.info(formation)
    assert listed, "the documents' blocks took backups"
    into = formation.dir / "existing"
    into.mkdir(exist_ok=True)
    refused = backups_cli(formation, "restore", "--target", "time:2020-01-01 00:00+00", "--into", str(into))
    assert refused.returncode == 1
    assert refused.stderr == (f"backups: INTO={into} exists: choose a new directory, "
                              "or REPLACE=1 to replace it\n")
    early = backups_cli(formation, "restore", "--target", "lsn:0/1", "--into", str(formation.dir / "new"))
    assert early.returncode == 1
    assert early.stderr == ("backups: TARGET=lsn:0/1 is before the first backup; the backups: "
                            + "; ".join(bk.describe_backup(b) for b in listed) + "\n")
    assert not (formation.dir / "new").exists()
    garbage = backups_cli(formation, "restore", "--target", "yesterday", "--into", str(formation.dir / "new"))
    assert garbage.returncode == 1
    assert garbage.stderr.startswith("backups: TARGET='yesterday': expected time:TIMESTAMP")


def test_the_drill_loses_no_acknowledged_round_against_its_target(formation):
    """The drill the documents' last block ran (or, with that test deselected, a run of its own)."""
    if not (formation.dir / "drill.json").exists():
        done = subprocess.run([sys.executable, str(HA / "drill.py"), "--dir", str(formation.dir),
                               "--settle", "5"], env={**os.environ, "HA_PORT_BASE": str(formation.base)},
                              capture_output=True, text=True, timeout=1800)
        print(done.stdout[-2000:], done.stderr[-2000:])
    report = json.loads((formation.dir / "drill.json").read_text())
    assert report["acknowledged_lost"] == 0
    assert report["after_target_restored"] == 0
    assert report["verify_restore"]["exit"] == 0
    assert report["live_verify_after_mistake"]["ok"] is False
    assert all(v["ok"] for v in report["live_verify_after"].values())
    assert report["lines_put_back"] == report["deleted_lines"] > 0
    assert report["full_backup"]["from"].startswith("standby ")
    assert report["diff_backup"]["from"].startswith("standby ")
    assert report["failover"]["from"] != report["failover"]["to"]
    assert report["ok"] is True
