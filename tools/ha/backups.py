"""pgBackRest for the high-availability formation: continuous archiving, backups, restores.

`make ha-backup HA_DIR=DIR [TYPE=full|diff]` and `make ha-restore HA_DIR=DIR TARGET=... INTO=DIR2`
(docs/operations.md "Point-in-time restore on the formation"). Everything lives under
DIR/backup, owned by `postgres`:

    pgbackrest.conf   the stanza `capsa`: pg1 = node1, pg2 = node2, backup-standby
    archive.conf      the same repository for `archive-push` (no node named: the command
                      passes its own data directory, so one archive_command fits both nodes)
    repo/             the repository (backups and archived WAL)
    log/, lock/       pgBackRest's logs and locks
    restored.json     the restored servers `ha-restore` started (`ha-down` stops them)

Both nodes run with archive_mode=always: a standby archives every segment it receives, so
after a promotion nothing the old primary had not archived yet is missing; the second push of
a segment with the same checksum is accepted by pgBackRest. Standard library only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import formation as ha  # noqa: E402

STANZA = "capsa"
PGBACKREST = "/usr/bin/pgbackrest"
SOCKETS = "/var/run/postgresql"
ARCHIVE_TIMEOUT_S = 60  # how long a segment may take to reach the repository
RESTORED_ADDRESS = "127.0.0.40"
RESTORED_PORTS = range(40, 50)  # HA_PORT_BASE + these; the formation uses +0 .. +31
# What a restored server runs with, after the node's own settings (the last line wins): its
# own address and port, never archiving into the formation's repository, never waiting for a
# standby, and a small cache (the nodes' is sized for the whole machine).
RESTORED_SETTINGS = {
    "archive_mode": "off",
    "synchronous_standby_names": "",
    "shared_buffers": "128MB",
    "effective_cache_size": "512MB",
    "listen_addresses": RESTORED_ADDRESS,
    "hot_standby": "on",
}


class BackupError(ha.FormationError):
    """A backup or restore that cannot be done; the message says why."""


@dataclass(frozen=True)
class Target:
    kind: str  # "time" or "lsn"
    value: str

    @classmethod
    def parse(cls, text: str) -> Target:
        kind, _, value = text.partition(":")
        value = value.strip()
        if kind == "lsn" and re.fullmatch(r"[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}", value):
            return cls("lsn", value.upper())
        if kind == "time" and value:
            return cls("time", value)
        raise BackupError(f"TARGET={text!r}: expected time:TIMESTAMP (e.g. time:2026-12-02 01:02:03.5+00) "
                          "or lsn:X/Y (e.g. lsn:0/3000060)")


def lsn_int(lsn: str) -> int:
    high, low = lsn.split("/")
    return (int(high, 16) << 32) | int(low, 16)


# -- configuration ---------------------------------------------------------------------

def home(f: ha.Formation) -> Path:
    return f.dir / "backup"


def conf(f: ha.Formation) -> Path:
    return home(f) / "pgbackrest.conf"


def archive_conf(f: ha.Formation) -> Path:
    return home(f) / "archive.conf"


def repository_settings(f: ha.Formation, lock: str) -> list[str]:
    h = home(f)
    return [
        f"repo1-path={h / 'repo'}",
        "repo1-retention-full=2",
        "compress-type=zst",
        "compress-level=3",
        f"log-path={h / 'log'}",
        f"lock-path={h / lock}",
        f"spool-path={h / 'spool'}",
        "log-level-console=warn",
        "log-level-file=info",
    ]


def write_config(f: ha.Formation) -> None:
    """Both configuration files and the folders they name, owned by postgres (idempotent)."""
    h = home(f)
    for sub in ("", "repo", "log", "lock", "lock-archive", "spool"):
        (h / sub).mkdir(parents=True, exist_ok=True)
        shutil.chown(h / sub, ha.PG_USER, ha.PG_USER)
    nodes = []
    for n, name in enumerate(ha.NODES, 1):
        nodes += [f"pg{n}-path={f.pgdata(name)}", f"pg{n}-port={f.hosts[name].ports['postgresql']}",
                  f"pg{n}-socket-path={SOCKETS}", f"pg{n}-user={ha.PG_USER}"]
    backup = ["[global]", *repository_settings(f, "lock"), "backup-standby=y", "start-fast=y",
              "process-max=2",
              # pgBackRest refuses archive_mode=always in its own archive check: `backup` waits
              # for the backup's last segment itself (wait_archived)
              "archive-check=n", "",
              f"[{STANZA}]", *nodes, ""]
    archive = ["[global]", *repository_settings(f, "lock-archive"), "", f"[{STANZA}]", ""]
    for path, lines in ((conf(f), backup), (archive_conf(f), archive)):
        path.write_text("\n".join(lines))
        shutil.chown(path, ha.PG_USER, ha.PG_USER)


def archive_command(f: ha.Formation) -> str:
    # run by /bin/sh in the node's data directory: "$PWD" names whichever node runs it
    return (f'{PGBACKREST} --config={archive_conf(f)} --stanza={STANZA} --pg1-path="$PWD" '
            "archive-push %p")


def archive_settings(f: ha.Formation) -> dict[str, str]:
    return {"archive_mode": "always", "archive_command": archive_command(f), "archive_timeout": "60s"}


def pgbackrest(f: ha.Formation, *args: str, config: Path | None = None, check: bool = True,
               timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return f.as_postgres("node1", [PGBACKREST, f"--config={config or conf(f)}", f"--stanza={STANZA}", *args],
                         check=check, timeout=timeout)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def set_archiving(f: ha.Formation, name: str) -> bool:
    """ALTER SYSTEM the archive settings on one node, reload; True if it needs a restart
    (archive_mode is read at start)."""
    wanted = archive_settings(f)
    current = dict(line.split("|", 1) for line in f.psql(
        name, "select name || '|' || setting from pg_settings where name in "
              "('archive_mode', 'archive_command', 'archive_timeout')").splitlines())
    if current.get("archive_command") != wanted["archive_command"] or current.get("archive_timeout") != "60":
        f.psql(name, *(f"alter system set {k} = {_quote(v)}" for k, v in wanted.items()),
               "select pg_reload_conf()")
    elif current.get("archive_mode") != "always":
        f.psql(name, "alter system set archive_mode = 'always'")
    return current.get("archive_mode") != "always"


def restart_postgres(f: ha.Formation, name: str) -> None:
    """Restart a node's PostgreSQL through its keeper (pg_autoctl's own postgres service), so
    the new postmaster stays in the host's session."""
    # `pg_autoctl do` is pg_autoctl's internal command set: shown with PG_AUTOCTL_DEBUG=1. It
    # exits 12 when the service it stopped is not back within its own short wait (under load);
    # the keeper starts it anyway, so the test is the setting the new postmaster runs with.
    f.as_postgres(name, ["env", "PG_AUTOCTL_DEBUG=1", "pg_autoctl", "do", "service", "restart", "postgres",
                         "--pgdata", str(f.pgdata(name))], timeout=120, check=False)
    f.wait_for(f"{name}'s PostgreSQL with archive_mode=always",
               lambda: f.accepts(name, "postgresql") and
               f.psql(name, "show archive_mode", check=False) == "always", 120, [name])


def stanza_ready(f: ha.Formation) -> bool:
    return (home(f) / "repo" / "backup" / STANZA / "backup.info").exists()


def create_stanza(f: ha.Formation, primary: str) -> None:
    if not stanza_ready(f):
        # the primary alone (on a new formation the standby does not exist yet)
        pgbackrest(f, "stanza-create", f"--pg1-path={f.pgdata(primary)}",
                   f"--pg1-port={f.hosts[primary].ports['postgresql']}", f"--pg1-socket-path={SOCKETS}",
                   config=archive_conf(f))


def configure_single(f: ha.Formation, primary: str) -> None:
    """On a new formation, while its first node is alone (no standby to fail over to): the
    archive settings, a restart, the stanza. The second node's base backup copies the
    settings (postgresql.auto.conf); `configure` checks them again."""
    write_config(f)
    if set_archiving(f, primary):
        restart_postgres(f, primary)
    create_stanza(f, primary)


def configure(f: ha.Formation) -> None:
    """Archiving on both nodes of a running, healthy formation (idempotent): a standby that
    needs a restart gets one; a primary that needs one is switched over first, then
    restarted as the standby."""
    write_config(f)
    primary = f.wait_writable(30)
    standby = ha.NODES[1 - ha.NODES.index(primary)]
    if set_archiving(f, standby):
        restart_postgres(f, standby)
        f.wait_for("a healthy formation", f.converge, 240, list(ha.NODES))
    if set_archiving(f, primary):
        f.as_postgres("monitor", ["pg_autoctl", "perform", "switchover", "--monitor", f.monitor_uri,
                                  "--formation", ha.FORMATION], timeout=180)
        f.wait_for(f"{standby} to take writes", lambda: f.writable_primary() == standby, 180, list(ha.NODES))
        restart_postgres(f, primary)
        f.wait_for("a healthy formation", f.converge, 240, list(ha.NODES))
    create_stanza(f, f.wait_writable(30))
    switch_and_wait(f, f.wait_writable(30))


# -- backups ---------------------------------------------------------------------------

def info(f: ha.Formation) -> list[dict[str, Any]]:
    """The stanza's backups, oldest first (`pgbackrest info --output=json`)."""
    out = pgbackrest(f, "info", "--output=json", timeout=60).stdout
    stanzas = json.loads(out)
    return list(stanzas[0].get("backup", [])) if stanzas else []


def describe_backup(b: dict[str, Any]) -> str:
    stop = time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(b["timestamp"]["stop"]))
    return f"{b['label']} ({b['type']}, consistent at {stop}, lsn {b['lsn']['stop']})"


def backup(f: ha.Formation, kind: str) -> dict[str, Any]:
    if kind not in ("full", "diff", "incr"):
        raise BackupError(f"TYPE={kind!r}: one of full, diff, incr")
    if not stanza_ready(f):
        raise BackupError(f"no stanza in {home(f) / 'repo'}: run `make ha-up HA_DIR={f.dir}` first")
    if kind != "full" and not info(f):
        raise BackupError(f"TYPE={kind}: there is no full backup yet to differ from (TYPE=full first)")
    primary = f.writable_primary()
    standby = next((n["nodename"] for n in f.show_state() if n.get("current_group_state") == "secondary"), None)
    started = time.monotonic()
    pgbackrest(f, "backup", f"--type={kind}", timeout=3600)
    b = info(f)[-1]
    wait_archived(f, b["archive"]["stop"])  # the WAL that makes the backup consistent
    seconds = time.monotonic() - started
    return {
        "label": b["label"], "type": b["type"], "seconds": round(seconds, 2),
        "database_bytes": b["info"]["size"], "backup_bytes": b["info"]["delta"],
        "repository_bytes": b["info"]["repository"]["delta"],
        "from": f"standby {standby}" if standby else f"primary {primary}",
        "lsn_start": b["lsn"]["start"], "lsn_stop": b["lsn"]["stop"],
        "consistent_at": describe_backup(b),
    }


# -- restores --------------------------------------------------------------------------

def restored_file(f: ha.Formation) -> Path:
    return home(f) / "restored.json"


def restored(f: ha.Formation) -> list[dict[str, Any]]:
    try:
        return list(json.loads(restored_file(f).read_text()))
    except (OSError, ValueError):
        return []


def _save_restored(f: ha.Formation, servers: list[dict[str, Any]]) -> None:
    tmp = restored_file(f).with_suffix(".tmp")
    tmp.write_text(json.dumps(servers, indent=2) + "\n")
    tmp.replace(restored_file(f))


def segment_archived(f: ha.Formation, segment: str) -> bool:
    pattern = str(home(f) / "repo" / "archive" / STANZA / "*" / segment[:16] / f"{segment}-*")
    return bool(glob.glob(pattern))


def archive_through(f: ha.Formation, target: Target) -> dict[str, Any]:
    """Make the WAL reaching `target` reach the repository: a commit after it (a recovery to a
    time stops at the first commit past it), a WAL switch on the primary, and a wait until the
    switched segment is archived. A target the primary has not reached is not recoverable."""
    primary = f.wait_writable(30)
    if target.kind == "time":
        if target_epoch(f, target) > float(f.psql(primary, "select extract(epoch from now())")):
            raise BackupError(f"TARGET=time:{target.value} is in the future: not yet recoverable")
    else:
        current = f.psql(primary, "select pg_current_wal_lsn()")
        if lsn_int(target.value) > lsn_int(current):
            raise BackupError(f"TARGET=lsn:{target.value} is past the primary's WAL ({current}): "
                              "not yet recoverable")
    f.psql(primary, "select txid_current()")
    return {"primary": primary, "segment": switch_and_wait(f, primary)}


def switch_and_wait(f: ha.Formation, primary: str) -> str:
    """Switch to a new WAL segment on the primary and wait until the one it closed is archived."""
    segment = f.psql(primary, "select pg_walfile_name(pg_switch_wal())")
    wait_archived(f, segment)
    return segment


def wait_archived(f: ha.Formation, segment: str) -> None:
    deadline = time.monotonic() + ARCHIVE_TIMEOUT_S
    while not segment_archived(f, segment):
        if time.monotonic() > deadline:
            raise BackupError(f"segment {segment} is not in the repository after {ARCHIVE_TIMEOUT_S} s: "
                              "not recoverable yet (see the nodes' logs for archive_command)")
        time.sleep(0.2)


def target_epoch(f: ha.Formation, target: Target) -> float:
    """A time target read as PostgreSQL reads recovery_target_time, in seconds since 1970."""
    primary = f.writable_primary() or ha.NODES[0]
    answer = f.psql(primary, f"select extract(epoch from {_quote(target.value)}::timestamptz)", check=False)
    try:
        return float(answer)
    except ValueError:
        raise BackupError(f"TARGET=time:{target.value}: not a timestamp PostgreSQL reads "
                          "(e.g. time:2026-12-02 01:02:03.5+00)") from None


def choose_backup(f: ha.Formation, target: Target) -> dict[str, Any]:
    """The newest backup consistent before the target; none names the ones there are."""
    backups = info(f)
    if not backups:
        raise BackupError("there is no backup yet: `make ha-backup HA_DIR=...` first")
    if target.kind == "time":
        epoch = target_epoch(f, target)
        # pgBackRest keeps the stop time in whole seconds: a backup recorded as stopping at
        # second S may have become consistent as late as S + 0.999, after a target in S.
        fits = [b for b in backups if b["timestamp"]["stop"] + 1 <= epoch]
    else:
        fits = [b for b in backups if lsn_int(b["lsn"]["stop"]) <= lsn_int(target.value)]
    if not fits:
        raise BackupError(f"TARGET={target.kind}:{target.value} is before the first backup; the backups: "
                          + "; ".join(describe_backup(b) for b in backups))
    return fits[-1]


def free_restored_port(f: ha.Formation) -> int:
    taken = {int(s["port"]) for s in restored(f)}
    for offset in RESTORED_PORTS:
        port = f.base + offset
        if port in taken:
            continue
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((RESTORED_ADDRESS, port))
            except OSError:
                continue
        return port
    raise BackupError(f"no free port for a restored server among {f.base + RESTORED_PORTS[0]}.."
                      f"{f.base + RESTORED_PORTS[-1]}: `make ha-down` stops the restored servers")


def restore(f: ha.Formation, target: Target, into: Path, replace: bool) -> dict[str, Any]:
    into = into.resolve()
    if into.exists() and not replace:
        raise BackupError(f"INTO={into} exists: choose a new directory, or REPLACE=1 to replace it")
    if into == f.dir or f.dir.is_relative_to(into) or any(into.is_relative_to(f.home(n)) for n in f.hosts):
        raise BackupError(f"INTO={into} holds the formation's own files")
    chosen = choose_backup(f, target)
    archived = archive_through(f, target)
    if into.exists():
        stop_restored(f, into)
        shutil.rmtree(into)
    pgdata = into / "pgdata"
    into.mkdir(parents=True)
    os.chmod(into, 0o755)
    pgdata.mkdir(mode=0o700)
    shutil.chown(into, ha.PG_USER, ha.PG_USER)
    shutil.chown(pgdata, ha.PG_USER, ha.PG_USER)
    port = free_restored_port(f)
    started = time.monotonic()
    pgbackrest(f, "restore", f"--pg1-path={pgdata}", f"--set={chosen['label']}", f"--type={target.kind}",
               f"--target={target.value}", "--target-action=promote", "--target-timeline=latest",
               "--archive-mode=off", timeout=3600)
    copied = time.monotonic() - started
    settings = {**RESTORED_SETTINGS, "port": str(port), "unix_socket_directories": str(into)}
    with open(pgdata / "postgresql.auto.conf", "a") as auto:
        auto.write("# ha-restore: a separate server, never archiving, never waiting for a standby\n")
        auto.writelines(f"{k} = {_quote(v)}\n" for k, v in settings.items())
    # the node's own address and port stay out of it: the included file is the node's
    (pgdata / "postmaster.pid").unlink(missing_ok=True)
    env = {**f.pg_env("node1"), "HOME": str(into), "PGHOST": RESTORED_ADDRESS, "PGPORT": str(port)}
    log = into / "postgres.log"
    started_pg = subprocess.run(["setpriv", "--reuid", ha.PG_USER, "--regid", ha.PG_USER, "--init-groups", "--",
                                 str(ha.PGBIN / "pg_ctl"), "start", "-D", str(pgdata), "-l", str(log), "-w",
                                 "-t", "600"], env=env, capture_output=True, timeout=660, start_new_session=True)
    if started_pg.returncode != 0:
        raise BackupError(f"the restored server did not start; see {pgdata / 'log'} and {log}")
    server = {"dir": str(into), "pgdata": str(pgdata), "address": RESTORED_ADDRESS, "port": port,
              "url": f"postgresql+psycopg://capsa@{RESTORED_ADDRESS}:{port}/capsa"}
    _save_restored(f, [s for s in restored(f) if s["dir"] != str(into)] + [server])
    psql = ["setpriv", "--reuid", ha.PG_USER, "--regid", ha.PG_USER, "--init-groups", "--", "psql", "-X", "-At",
            "-h", RESTORED_ADDRESS, "-p", str(port), "-U", ha.PG_USER, "-d", "postgres",
            "-c", "select pg_is_in_recovery()"]
    deadline = time.monotonic() + 600
    while True:
        answer = subprocess.run(psql, env=env, capture_output=True, text=True, timeout=30).stdout.strip()
        if answer == "f":
            break
        if time.monotonic() > deadline:
            raise BackupError(f"the restored server at port {port} is still recovering after 600 s; see {log}")
        if not (pgdata / "postmaster.pid").exists():
            raise BackupError(f"the restored server stopped during recovery; see {log} "
                              f"(and {pgdata / 'log'})")
        time.sleep(0.3)
    seconds = time.monotonic() - started
    return {**server, "backup": chosen["label"], "target": f"{target.kind}:{target.value}",
            "archived_segment": archived["segment"], "copy_seconds": round(copied, 2),
            "seconds": round(seconds, 2)}


def stop_restored(f: ha.Formation, into: Path | None = None) -> None:
    """Stop the restored servers (or the one in `into`) and forget them."""
    keep = []
    for server in restored(f):
        if into is not None and Path(server["dir"]) != into:
            keep.append(server)
            continue
        pgdata = Path(server["pgdata"])
        pid_file = pgdata / "postmaster.pid"
        if pid_file.exists():
            try:
                pid = int(pid_file.read_text().split()[0])
                os.kill(pid, signal.SIGINT)  # fast shutdown
                deadline = time.monotonic() + 30
                while ha._stat(pid) is not None and time.monotonic() < deadline:
                    time.sleep(0.2)
                if ha._stat(pid) is not None:
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                pass
    _save_restored(f, keep)


# -- the command line ------------------------------------------------------------------

def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("backup", help="take a backup now (from the standby)")
    b.add_argument("--type", default="full", help="full (default), diff or incr")
    r = sub.add_parser("restore", help="restore into a new, separate PostgreSQL")
    r.add_argument("--target", required=True, help="time:TIMESTAMP or lsn:X/Y")
    r.add_argument("--into", required=True, type=Path, help="a new directory for the restored server")
    r.add_argument("--replace", action="store_true", help="replace INTO if it exists")
    sub.add_parser("info", help="the backups there are")
    for p in (b, r, sub.choices["info"]):
        p.add_argument("--dir", required=True, type=Path, help="the formation's directory")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("backups.py runs as root (pgBackRest runs as postgres)", file=sys.stderr)
        return 2
    f = ha.Formation(args.dir, int(os.environ.get("HA_PORT_BASE") or 17000))
    try:
        if args.command == "backup":
            done = backup(f, args.type)
            print(json.dumps(done, indent=2))
            print(f"backup {done['label']} ({done['type']}, from the {done['from']}): "
                  f"{megabytes(done['backup_bytes'])} of {megabytes(done['database_bytes'])} copied, "
                  f"{megabytes(done['repository_bytes'])} in the repository, {done['seconds']:.1f} s")
        elif args.command == "info":
            for b_ in info(f):
                print(describe_backup(b_))
        else:
            done = restore(f, Target.parse(args.target), args.into, args.replace)
            print(json.dumps(done, indent=2))
            print(f"restored {done['target']} from backup {done['backup']} in {done['seconds']:.1f} s:")
            print(done["url"])
    except ha.FormationError as exc:
        print(f"backups: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
