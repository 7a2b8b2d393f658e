"""Where the formation's CPU goes: `python tools/ha/cpu.py --dir DIR` (as root, formation up).

Reads utime+stime (and cutime+cstime, what each process reaped) from /proc/PID/stat of every
process of every host of a running formation (formation.py: the monitor, node1/node2 with
their PostgreSQL, pg_autoctl, pgbouncer and gate, app1/app2 with gunicorn, sweeper and
dispatcher, the edge's nginx and Redis) and of this process (the load generator), twice:

1. idle: no load for --idle seconds: CPU per second per component;
2. load: chaos.py's load generator (retrying keyed clients, one keep-alive connection per
   thread) posting rounds through nginx at --rate rounds/s for --seconds: CPU per round
   acknowledged (201) per component, gross and net of that component's idle CPU.

Prints a table (component, ms CPU per round, % of the total, idle ms CPU per second) with the
load average beside each phase, and writes it to DIR/cpu.json. A process that started during
a phase counts from zero; one that ended is counted in the `vanished` figure (its CPU goes to
its parent's cutime if the parent reaped it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chaos  # noqa: E402
import formation as ha  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
LOADGEN = "loadgen/load generator"


def _read(pid: int) -> tuple[str, int, int] | None:
    """(comm, ppid, utime+stime+cutime+cstime ticks) of a process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return text[text.index("(") + 1:text.rindex(")")], int(fields[1]), sum(int(x) for x in fields[11:15])


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def kind(comm: str, cmdline: str) -> str:
    """What a process is, from its name and command line."""
    if "gate.py" in cmdline:
        return "gate"
    if comm == "pgbouncer":
        return "pgbouncer"
    if comm == "pg_autoctl" or cmdline.startswith("pg_autoctl") or "/pg_autoctl" in cmdline.split(" ")[0]:
        return "pg_autoctl"
    if cmdline.startswith("postgres:"):
        title = cmdline[len("postgres:"):].strip()
        word = title.split(" ")[0]
        if word in ("walsender", "walreceiver"):
            return f"postgres {word}"
        # a backend's title is "user database address state"
        if len(title.split(" ")) >= 3 and title.split(" ")[2][:1].isdigit():
            return f"postgres backend ({title.split(' ')[0]})"
        return "postgres auxiliary"
    if comm == "postgres" or cmdline.endswith("/postgres") or "/bin/postgres " in cmdline:
        return "postmaster"
    if comm.startswith("nginx"):
        return "nginx"
    if comm.startswith("redis"):
        return "redis"
    if comm.startswith("gunicorn: worke"):
        return "gunicorn worker"
    if comm.startswith("gunicorn: maste"):
        return "gunicorn master"
    if comm in ("sh", "bash", "setpriv"):
        return f"launcher ({comm}: what it reaped)"
    if cmdline.endswith("capsa sweep --quiet") or " capsa sweep" in cmdline:
        return "sweeper"
    if " webhooks dispatch" in cmdline:
        return "dispatcher"
    return f"other ({comm})"


def snapshot(f: ha.Formation) -> dict[int, tuple[str, int]]:
    """pid -> (host/component, ticks) for every process of the formation and this one."""
    rows: dict[int, tuple[str, int, str, int]] = {}  # pid -> host, comm, ppid, ticks
    for host in ha.ORDER:
        for pid in f.pids(host):
            if (r := _read(pid)) is not None:
                rows[pid] = (host, r[2], r[0], r[1])
    out = {pid: (f"{host}/{kind(comm, _cmdline(pid))}", ticks) for pid, (host, ticks, comm, _) in rows.items()}
    own = os.times()
    out[os.getpid()] = (LOADGEN, round((own.user + own.system) * CLK_TCK))
    return out


def delta(before: dict[int, tuple[str, int]], after: dict[int, tuple[str, int]]) -> tuple[dict[str, float], int]:
    """CPU seconds per component between two snapshots, and how many processes vanished."""
    cpu: dict[str, float] = defaultdict(float)
    for pid, (name, ticks) in after.items():
        start = before[pid][1] if pid in before and before[pid][0] == name else 0
        cpu[name] += (ticks - start) / CLK_TCK
    return dict(cpu), sum(pid not in after for pid in before)


def measure_idle(f: ha.Formation, seconds: float) -> dict[str, Any]:
    before, t0 = snapshot(f), time.monotonic()
    time.sleep(seconds)
    after, elapsed = snapshot(f), time.monotonic() - t0
    cpu, vanished = delta(before, after)
    return {"seconds": round(elapsed, 1), "cpu_s": cpu, "vanished": vanished, "loadavg": chaos.loadavg()}


def measure_load(f: ha.Formation, clients: list[chaos.Client], rate: float, threads: int,
                 seconds: float) -> dict[str, Any]:
    load = chaos.Load(f.url, clients, rate, threads)
    before, t0 = snapshot(f), time.monotonic()
    load.start()
    time.sleep(seconds)
    load.stop()
    after, elapsed = snapshot(f), time.monotonic() - t0
    cpu, vanished = delta(before, after)
    statuses: dict[str, int] = defaultdict(int)
    for a in load.answers:
        statuses[str(a.status)] += 1
    return {"seconds": round(elapsed, 1), "rate": rate, "threads": threads, "offered": load.offered,
            "rounds": len(load.stored), "rounds_per_s": round(len(load.stored) / elapsed, 1),
            "answers": dict(statuses), "retries": load.retries, "cpu_s": cpu, "vanished": vanished,
            "loadavg": chaos.loadavg()}


def by_kind(cpu: dict[str, float]) -> dict[str, float]:
    """The same CPU summed over hosts: "app1/sweeper" and "app2/sweeper" as "sweeper"."""
    out: dict[str, float] = defaultdict(float)
    for name, seconds in cpu.items():
        host, _, what = name.partition("/")
        out[f"{'monitor ' if host == 'monitor' else ''}{what}"] += seconds
    return dict(out)


def table(idle: dict[str, Any], load: dict[str, Any]) -> str:
    return "\n".join([_table(idle, load), "", "summed over hosts:",
                      _table(dict(idle, cpu_s=by_kind(idle["cpu_s"])), dict(load, cpu_s=by_kind(load["cpu_s"])))])


def _table(idle: dict[str, Any], load: dict[str, Any]) -> str:
    rounds = load["rounds"] or 1
    names = sorted(set(idle["cpu_s"]) | set(load["cpu_s"]), key=lambda n: -load["cpu_s"].get(n, 0.0))
    total = sum(load["cpu_s"].values())
    idle_total = sum(idle["cpu_s"].values()) / idle["seconds"]
    lines = [f"{'component':<40} {'ms/round':>9} {'%':>6} {'net ms/round':>13} {'idle ms/s':>10}"]
    for n in names:
        gross = load["cpu_s"].get(n, 0.0)
        per_s = idle["cpu_s"].get(n, 0.0) / idle["seconds"]
        net = gross - per_s * load["seconds"]
        if gross == 0 and per_s == 0:
            continue
        lines.append(f"{n:<40} {1000 * gross / rounds:>9.2f} {100 * gross / total if total else 0:>6.1f}"
                     f" {1000 * net / rounds:>13.2f} {1000 * per_s:>10.1f}")
    net_total = total - idle_total * load["seconds"]
    lines.append(f"{'TOTAL':<40} {1000 * total / rounds:>9.2f} {100.0:>6.1f} {1000 * net_total / rounds:>13.2f}"
                 f" {1000 * idle_total:>10.1f}")
    lines.append(f"load: {load['rounds']} rounds in {load['seconds']} s ({load['rounds_per_s']}/s of "
                 f"{load['rate']} offered, {load['threads']} threads), answers {load['answers']}, "
                 f"{load['vanished']} processes ended; loadavg after {load['loadavg']}")
    lines.append(f"idle: {idle['seconds']} s, {idle['vanished']} processes ended; loadavg after {idle['loadavg']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--port-base", type=int, default=int(os.environ.get("HA_PORT_BASE") or 17000))
    parser.add_argument("--idle", type=float, default=20.0, help="seconds measured without load")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds of load")
    parser.add_argument("--rate", type=float, default=30.0, help="rounds/s offered")
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("cpu.py runs as root (formation.py's rule)", file=sys.stderr)
        return 2
    f = ha.Formation(args.dir, args.port_base)
    if not (f._state() and all(f.alive(n) for n in ha.ORDER)):
        print(f"cpu.py: the formation in {args.dir} is not running (make ha-up HA_DIR=...)", file=sys.stderr)
        return 2
    chaos.wait_healthy(f)
    tag = os.urandom(3).hex()
    clients = [chaos.make_client(f, f"cpu-{tag}-{n}") for n in (1, 2)]
    chaos.say(f"idle for {args.idle} s")
    idle = measure_idle(f, args.idle)
    chaos.say(f"load: {args.rate} rounds/s for {args.seconds} s")
    load = measure_load(f, clients, args.rate, args.threads, args.seconds)
    print(table(idle, load))
    (args.dir / "cpu.json").write_text(json.dumps({"idle": idle, "load": load}, indent=2) + "\n")
    print(f"written to {args.dir / 'cpu.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
