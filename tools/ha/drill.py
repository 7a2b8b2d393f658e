"""A point-in-time restore drill on the high-availability formation: `make ha-drill HA_DIR=DIR`.

Brings the formation (formation.py, with pgBackRest: backups.py) up if it is not running,
then, under keyed, retrying load through nginx (chaos.py's load generator, two clients):

1. a full backup (from the standby), more rounds, one failover (`pg_autoctl perform
   failover`), more rounds, a differential backup (from the new standby), more rounds;
2. the load stopped (every round answered), time T and each client's signed head at T
   (`GET /v1/audit/head`) and the public keys (`GET /v1/audit/keys`) kept in DIR/drill/;
3. the target, the primary's clock; then the mistake: `DELETE FROM ledger_lines` for the
   first client; then a few rounds of the second client, stored after the target;
4. a restore to the target into a separate server (backups.restore), and its checks: every
   round answered 201 before T is there with the id it was answered with, none of the rounds
   stored after the target is, and `capsa audit verify-restore --public-keys ... --head ...`
   with the heads at T exits 0;
5. the rows put back (docs/operations.md "Putting rows back": the client's ledger lines
   copied from the restored server into the primary in one COPY), and `GET /v1/audit/verify`
   through nginx answers ok for each client again.

Figures (backup sizes and times, per million rounds extrapolated, restore time, rounds lost
against the target) go to DIR/drill.json and stdout; exit 0 only if every check holds. A
formation this script started is taken down at the end (with the restored server); one it
found running is left running, the restored server too. Runs as root.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import backups as bk  # noqa: E402
import chaos  # noqa: E402
import formation as ha  # noqa: E402

ROOT = ha.ROOT
CAPSA = str(ROOT / ".venv/bin/capsa")


def get(f: ha.Formation, path: str, key: str) -> tuple[int, Any]:
    conn = chaos.Connection(f.url)
    try:
        status, _, payload = conn.request("GET", path, {"Authorization": f"Bearer {key}"})
    finally:
        conn.close()
    return status, json.loads(payload) if payload else None


def verify_live(f: ha.Formation, client: chaos.Client) -> dict[str, Any]:
    """`GET /v1/audit/verify` through nginx, page after page, to the head."""
    start, checked = 1, 0
    while True:
        status, page = get(f, f"/v1/audit/verify?from_sequence={start}&limit=100000", client.key)
        if status != 200 or not page.get("ok"):
            return {"ok": False, "status": status, "records_checked": checked + int(page.get("records_checked", 0))
                    if isinstance(page, dict) else checked, "first_bad_sequence": (page or {}).get("first_bad_sequence"),
                    "reason": (page or {}).get("reason")}
        checked += int(page["records_checked"])
        if page.get("next_from_sequence") is None:
            return {"ok": True, "records_checked": checked}
        start = int(page["next_from_sequence"])


def count_rounds(f: ha.Formation) -> int:
    return int(f.psql(f.wait_writable(30), "select count(*) from rounds", database="capsa"))


def take_backup(f: ha.Formation, kind: str) -> dict[str, Any]:
    """A backup under the load, with the rounds the database held as it started."""
    rounds = count_rounds(f)
    done = bk.backup(f, kind)
    done.update(rounds_in_database=rounds, loadavg=chaos.loadavg())
    chaos.say(f"{kind} backup {done['label']} from the {done['from']}: {done['repository_bytes']} bytes "
              f"in the repository, {done['seconds']} s")
    return done


def store_after(f: ha.Formation, client: chaos.Client, n: int) -> list[str]:
    """n rounds of `client` stored now (after the target); their references."""
    conn = chaos.Connection(f.url)
    references = []
    try:
        for _ in range(n):
            reference = f"after-target-{secrets.token_hex(6)}"
            status, _, payload = conn.request("POST", "/v1/rounds", {
                "Authorization": f"Bearer {client.key}", "Content-Type": "application/json",
                "Idempotency-Key": secrets.token_hex(16)}, chaos.body(reference))
            if status != 201:
                raise ha.FormationError(f"a round after the target was answered {status}: {payload[:300]!r}")
            references.append(reference)
    finally:
        conn.close()
    return references


def check_restored(url: str, load: chaos.Load, after: dict[int, list[str]]) -> dict[str, Any]:
    import psycopg

    out: dict[str, Any] = {"clients": []}
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        for n, client in enumerate(load.clients):
            stored: dict[str, str] = dict(conn.execute("SELECT reference, id FROM rounds WHERE client_id = %s",
                                       (client.id,)).fetchall())
            acked = {ref: rid for (c, ref), rid in load.stored.items() if c == n}
            lost = sorted(ref for ref, rid in acked.items() if stored.get(ref) != rid)
            late = [ref for ref in after.get(n, []) if ref in stored]
            out["clients"].append({"client": client.name, "acknowledged_before_T": len(acked),
                                   "restored_rounds": len(stored), "lost": len(lost), "lost_examples": lost[:5],
                                   "stored_after_target": len(after.get(n, [])), "after_target_restored": len(late)})
    return out


def put_lines_back(f: ha.Formation, restored_url: str, client: chaos.Client) -> int:
    """The client's ledger lines from the restored server into the primary: one COPY, one
    transaction (a record's lines must arrive together: the sum check is per statement)."""
    import psycopg

    primary = f.wait_writable(30)
    live_url = f.direct_url(primary).replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(restored_url.replace("postgresql+psycopg://", "postgresql://")) as src, \
            psycopg.connect(live_url) as dst:
        dst.execute("SET statement_timeout = 0")
        left = dst.execute("SELECT count(*) FROM ledger_lines WHERE client_id = %s", (client.id,)).fetchone()
        if left is None or left[0] != 0:
            raise ha.FormationError(f"{client.name} still has ledger lines on the primary: copy the missing only")
        copied = 0
        with src.cursor().copy("COPY (SELECT * FROM ledger_lines WHERE client_id = %s ORDER BY sequence, line_no) "
                               "TO STDOUT", (client.id,)) as out, \
                dst.cursor().copy("COPY ledger_lines FROM STDIN") as into:
            for data in out:
                into.write(data)
                copied += bytes(data).count(b"\n")
        dst.commit()
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--port-base", type=int, default=int(os.environ.get("HA_PORT_BASE") or 17000))
    parser.add_argument("--rate", type=float, default=100.0, help="rounds/s offered")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--settle", type=float, default=8.0, help="seconds of load between the steps")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("drill.py runs as root (the formation starts pg_autoctl as postgres)", file=sys.stderr)
        return 2
    started = time.monotonic()
    os.environ["RATE_LIMIT"] = "100000/minute"  # retries during the failover are not refused
    f = ha.Formation(args.dir, args.port_base)
    was_up = bool(f._state()) and all(f.alive(n) for n in ha.ORDER)
    work = f.dir / "drill"
    work.mkdir(exist_ok=True)
    report: dict[str, Any] = {"rate": args.rate, "started_loadavg": chaos.loadavg()}
    ok = False
    try:
        if was_up:
            chaos.say("the formation is running: its apps restarted with RATE_LIMIT=100000/minute")
            chaos.restart_apps(f)
            bk.configure(f)
        else:
            chaos.say("bringing the formation up")
            f.up()
        chaos.wait_healthy(f)
        tag = secrets.token_hex(3)
        clients = [chaos.make_client(f, f"drill-{tag}-{n}") for n in (1, 2)]
        load = chaos.Load(f.url, clients, args.rate, args.threads)
        chaos.say(f"load: {args.rate} rounds/s through nginx, two clients")
        load.start()
        time.sleep(args.settle)

        full = take_backup(f, "full")
        time.sleep(args.settle)

        old = f.wait_writable(30)
        new = chaos.other(old)
        failover_at = time.monotonic()
        f.as_postgres("monitor", ["pg_autoctl", "perform", "failover", "--monitor", f.monitor_uri,
                                  "--formation", ha.FORMATION], timeout=180)
        f.wait_for(f"{new} to take writes", lambda: f.writable_primary() == new, 180, [])
        took_writes = time.monotonic() - failover_at
        chaos.wait_healthy(f)
        chaos.say(f"failed over from {old} to {new} ({took_writes:.1f} s to take writes)")
        time.sleep(args.settle)

        diff = take_backup(f, "diff")
        time.sleep(args.settle)
        load.stop()
        t = time.time()
        chaos.say(f"load stopped: {len(load.stored)} rounds answered 201; T = {t:.3f}")

        keys_file = work / "keys.public.json"
        status, keys = get(f, "/v1/audit/keys", clients[0].key)
        keys_file.write_text(json.dumps(keys))
        heads = []
        for client in clients:
            status, head = get(f, "/v1/audit/head", client.key)
            if status != 200:
                raise ha.FormationError(f"GET /v1/audit/head for {client.name}: {status}")
            path = work / f"{client.name}.head.json"
            path.write_text(json.dumps(head))
            heads.append({"client": client.name, "file": str(path), "sequence": head.get("sequence")})

        primary = f.wait_writable(30)
        target = f.psql(primary, "select clock_timestamp()")
        time.sleep(0.5)  # the mistake commits after the target
        deleted = f.psql(primary, f"with d as (delete from ledger_lines where client_id = '{clients[0].id}' "
                                  "returning 1) select count(*) from d", database="capsa")
        chaos.say(f"the mistake: DELETE FROM ledger_lines of {clients[0].name}: {deleted} lines; target {target}")
        broken = verify_live(f, clients[0])
        after = {1: store_after(f, clients[1], 5)}

        into = f.dir / "drill-restore"
        restore = bk.restore(f, bk.Target("time", target), into, replace=True)
        chaos.say(f"restored to {target} from {restore['backup']} in {restore['seconds']} s: {restore['url']}")
        restored_check = check_restored(restore["url"], load, after)
        verify = subprocess.run([CAPSA, "audit", "verify-restore", "--public-keys", str(keys_file),
                                 *[a for h in heads for a in ("--head", h["file"])]],
                                env={**os.environ, "DATABASE_URL": restore["url"]},
                                capture_output=True, text=True, timeout=900)

        copied = put_lines_back(f, restore["url"], clients[0])
        live = {c.name: verify_live(f, c) for c in clients}
        chaos.say(f"{copied} ledger lines put back; live verify: {live}")

        bytes_per_round = (diff["database_bytes"] - full["database_bytes"]) / max(
            diff["rounds_in_database"] - full["rounds_in_database"], 1)
        throughput = full["database_bytes"] / full["seconds"]
        report.update({
            "load": {"seconds": round(load.stopped - load.started, 1), "offered": load.offered,
                     "acknowledged": len(load.stored), "retries": load.retries,
                     "achieved_rounds_per_s": round(len(load.stored) / (load.stopped - load.started), 1),
                     "refused": len(load.refused), "unfinished": len(load.unfinished)},
            "full_backup": full, "diff_backup": diff,
            "failover": {"from": old, "to": new, "seconds_to_take_writes": round(took_writes, 1)},
            "T": t, "heads_at_T": heads, "target": target, "deleted_lines": int(deleted),
            "live_verify_after_mistake": broken, "restore": restore, "restored": restored_check,
            "verify_restore": {"exit": verify.returncode, "last_lines": verify.stdout.strip().splitlines()[-3:]
                               or verify.stderr.strip().splitlines()[-3:]},
            "lines_put_back": copied, "live_verify_after": live,
            "acknowledged_lost": sum(c["lost"] for c in restored_check["clients"]),
            "after_target_restored": sum(c["after_target_restored"] for c in restored_check["clients"]),
            "per_million_rounds_extrapolated": {
                "how": "database bytes per round from the growth between the full and the differential "
                       "backup, times 1e6; duration at the full backup's bytes/s; compressed size at its ratio",
                "database_bytes": round(bytes_per_round * 1e6),
                "backup_seconds": round(bytes_per_round * 1e6 / throughput, 1),
                "repository_bytes": round(bytes_per_round * 1e6 * full["repository_bytes"] / full["database_bytes"]),
            },
            "loadavg_at_end": chaos.loadavg(),
        })
        ok = (report["acknowledged_lost"] == 0 and report["after_target_restored"] == 0
              and verify.returncode == 0 and not broken["ok"] and all(v["ok"] for v in live.values())
              and copied == int(deleted) and not load.refused and not load.unfinished)
    finally:
        report["duration_s"] = round(time.monotonic() - started, 1)
        report["ok"] = ok
        (f.dir / "drill.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
        if not was_up:
            f.down()
    print(json.dumps(report, indent=2, default=str))
    print(f"ha-drill: {'ok' if ok else 'FAILED'}: acknowledged rounds lost {report.get('acknowledged_lost')}, "
          f"restored after the target {report.get('after_target_restored')}, written to {f.dir / 'drill.json'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
