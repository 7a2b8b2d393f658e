"""A high-availability capsa formation on this machine: `up`, `status`, `down` and fault helpers.

Six "hosts", each a loopback address and a session of its own (so `kill -9 -PGID` loses the
whole host), with ports from HA_PORT_BASE:

    monitor 127.0.0.11  pg_auto_failover monitor (PostgreSQL)          base+0
    node1   127.0.0.12  keeper + PostgreSQL, pgbouncer, its gate       base+1, base+2
    node2   127.0.0.13  keeper + PostgreSQL, pgbouncer, its gate       base+3, base+4
    app1    127.0.0.21  capsa serve (gunicorn), sweep, dispatcher      base+10 (metrics +11, +12)
    app2    127.0.0.22  the same                                       base+20 (metrics +21, +22)
    edge    127.0.0.30  nginx in front of both apps, the formation's redis   base+30, base+31

pg_autoctl and pgbouncer refuse to run as root: they run as `postgres`, with their config and
state under DIR. Standard library only (run by the venv's python); `capsa` is the venv's.
docs/operations.md "High availability" says why it is built this way.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PGBIN = Path("/usr/lib/postgresql/15/bin")
PG_USER = "postgres"
FORMATION = "default"
MARK = "CAPSA_HA_DIR"  # in every process's environment, so `down` can find strays

# pg_auto_failover's timeouts (docs/operations.md "High availability": why these).
MONITOR_SETTINGS = {
    "pgautofailover.health_check_period": "1000",
    "pgautofailover.health_check_timeout": "1000",
    "pgautofailover.health_check_max_retries": "1",
    "pgautofailover.health_check_retry_delay": "500",
    "pgautofailover.node_considered_unhealthy_timeout": "3000",
    "pgautofailover.primary_demote_timeout": "7000",
}
NETWORK_PARTITION_TIMEOUT_S = 4  # keeper side; the demote timeout (7 s) stays 3 s above it
# The app's statement and lock timeouts, per role: pgbouncer drops the `options` startup
# parameter that carries them from a direct connection.
ROLE_SETTINGS = {
    "statement_timeout": "5000",
    "lock_timeout": "2000",
    "idle_in_transaction_session_timeout": "10000",
}
BINARIES = {
    "pg_autoctl": ("/usr/bin/pg_autoctl", "pg-auto-failover-cli"),
    "pg_ctl": (str(PGBIN / "pg_ctl"), "postgresql-15"),
    "pgautofailover extension": ("/usr/share/postgresql/15/extension/pgautofailover.control",
                                 "postgresql-15-auto-failover"),
    "psql": ("/usr/bin/psql", "postgresql-client-15"),
    "pgbouncer": ("/usr/sbin/pgbouncer", "pgbouncer"),
    "nginx": ("/usr/sbin/nginx", "nginx"),
    "redis-server": ("/usr/bin/redis-server", "redis-server"),
    "setpriv": ("/usr/bin/setpriv", "util-linux"),
    "pgbackrest": ("/usr/bin/pgbackrest", "pgbackrest"),
}


class FormationError(Exception):
    """Something the formation needs is missing or taken; the message says which."""


@dataclass(frozen=True)
class Host:
    name: str
    address: str
    ports: dict[str, int]


def hosts(base: int) -> dict[str, Host]:
    return {
        "monitor": Host("monitor", "127.0.0.11", {"postgresql": base}),
        "node1": Host("node1", "127.0.0.12", {"postgresql": base + 1, "pgbouncer": base + 2}),
        "node2": Host("node2", "127.0.0.13", {"postgresql": base + 3, "pgbouncer": base + 4}),
        "app1": Host("app1", "127.0.0.21", {"http": base + 10, "metrics": base + 11, "webhook_metrics": base + 12}),
        "app2": Host("app2", "127.0.0.22", {"http": base + 20, "metrics": base + 21, "webhook_metrics": base + 22}),
        "edge": Host("edge", "127.0.0.30", {"nginx": base + 30, "redis": base + 31}),
    }


NODES = ("node1", "node2")
APPS = ("app1", "app2")
APP_WORKERS = 2  # gunicorn workers of each app node
ORDER = ("monitor", "node1", "node2", "edge", "app1", "app2")


# -- processes ---------------------------------------------------------------------------

def _stat(pid: int) -> tuple[int, int] | None:
    """(pgid, sid) of a live, non-zombie process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[2]), int(fields[3])


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _ppid(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(text[text.rindex(")") + 2:].split()[1])


def session_pids(sid: int) -> list[int]:
    """Every live process of a session (a host) and their descendants, read from /proc.

    PostgreSQL's children each call setsid(), so a host is its session plus what that
    session's processes started.
    """
    live = {pid: s for pid in _pids() if (s := _stat(pid)) is not None}
    members = {pid for pid, (_, session) in live.items() if session == sid}
    children: dict[int, list[int]] = {}
    for pid in live:
        parent = _ppid(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    todo = list(members)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in members:
                members.add(child)
                todo.append(child)
    return sorted(members)


def _marked(pid: int, directory: Path) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return f"{MARK}={directory}".encode() in environ.split(b"\0")


def marked_pids(directory: Path) -> list[int]:
    """Processes that carry this formation's mark in their environment or DIR in argv."""
    mark = f"{MARK}={directory}".encode()
    found = []
    for pid in _pids():
        if pid == os.getpid() or _stat(pid) is None:
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if mark in environ.split(b"\0") or str(directory).encode() + b"/" in cmdline:
            found.append(pid)
    return sorted(found)


def backups() -> Any:
    """tools/ha/backups.py (pgBackRest), which imports this module: as `formation` even when
    this one runs as __main__, so both name the same FormationError."""
    sys.modules.setdefault("formation", sys.modules[__name__])
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import backups as module

    return module


# -- the formation ----------------------------------------------------------------------

class Formation:
    def __init__(self, directory: Path, base: int) -> None:
        self.dir = directory.resolve()
        self.state_file = self.dir / "state.json"
        state = self._state()
        # The ports are the formation's: a later call without HA_PORT_BASE keeps them.
        self.base = int(state.get("port_base", base))
        self.hosts = hosts(self.base)
        self._checkpointed = 0.0
        # gunicorn workers per app node (chaos.py gives one node the workers of both when it
        # measures one node against two)
        self.workers = {name: APP_WORKERS for name in APPS}

    # state.json: the port base and each host's session id (its launcher's pid).
    def _state(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.state_file.read_text()))
        except (OSError, ValueError):
            return {}

    def _save(self, state: dict[str, Any]) -> None:
        state["port_base"] = self.base
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=2) + "\n")
        tmp.replace(self.state_file)

    def sid(self, name: str) -> int | None:
        sid = self._state().get("sessions", {}).get(name)
        return int(sid) if sid else None

    def pids(self, name: str) -> list[int]:
        sid = self.sid(name)
        if not sid:
            return []
        # A pid stays out of reuse while a process holds it as its session id, so members of
        # session `sid` are ours unless `sid` itself now runs something else (its launcher
        # died with every member and the pid was reused): check the launcher's mark.
        if _stat(sid) is not None and not _marked(sid, self.dir):
            return []
        return session_pids(sid)

    def alive(self, name: str) -> bool:
        return bool(self.pids(name))

    # paths and URLs
    def home(self, name: str) -> Path:
        return self.dir / name

    def pgdata(self, name: str) -> Path:
        return self.home(name) / "pgdata"

    def pg_env(self, name: str) -> dict[str, str]:
        home = self.home(name)
        return {
            "HOME": str(home),
            "PATH": f"{PGBIN}:/usr/sbin:/usr/bin:/sbin:/bin",
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_RUNTIME_DIR": str(home / "run"),
            "PGHOST": self.hosts[name].address,
            "PGPORT": str(self.hosts[name].ports["postgresql"]),
            "LANG": "C.UTF-8",
            MARK: str(self.dir),
        }

    @property
    def monitor_uri(self) -> str:
        m = self.hosts["monitor"]
        return f"postgres://autoctl_node@{m.address}:{m.ports['postgresql']}/pg_auto_failover?sslmode=disable"

    def direct_url(self, name: str, user: str = "capsa", database: str = "capsa") -> str:
        h = self.hosts[name]
        return f"postgresql+psycopg://{user}@{h.address}:{h.ports['postgresql']}/{database}"

    @property
    def database_url(self) -> str:
        hosts_ = "&".join(f"host={self.hosts[n].address}:{self.hosts[n].ports['pgbouncer']}" for n in NODES)
        return f"postgresql+psycopg://capsa@/capsa?{hosts_}&connect_timeout=2"

    @property
    def redis_url(self) -> str:
        e = self.hosts["edge"]
        return f"redis://{e.address}:{e.ports['redis']}/0"

    @property
    def url(self) -> str:
        e = self.hosts["edge"]
        return f"http://{e.address}:{e.ports['nginx']}"

    # -- running things as postgres ----------------------------------------------------
    def as_postgres(self, name: str, argv: list[str], check: bool = True,
                    timeout: float = 60) -> subprocess.CompletedProcess[str]:
        cmd = ["setpriv", "--reuid", PG_USER, "--regid", PG_USER, "--init-groups", "--", *argv]
        result = subprocess.run(cmd, env=self.pg_env(name), capture_output=True, text=True,
                                timeout=timeout, cwd=self.home(name))
        if check and result.returncode != 0:
            raise FormationError(f"{name}: {' '.join(argv)} failed ({result.returncode}): "
                                 f"{result.stderr.strip()[-800:]}")
        return result

    def psql(self, name: str, *sql: str, database: str = "postgres", check: bool = True) -> str:
        """Run statements, each in its own transaction (ALTER SYSTEM refuses a block)."""
        h = self.hosts[name]
        result = self.as_postgres(name, [
            "psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", h.address,
            "-p", str(h.ports["postgresql"]), "-U", PG_USER, "-d", database,
            *[arg for statement in sql for arg in ("-c", statement)],
        ], check=check, timeout=30)
        return result.stdout.strip()

    def show_state(self) -> list[dict[str, Any]]:
        """The monitor's view of the nodes (`pg_autoctl show state --json`); [] if it does not answer."""
        try:
            result = self.as_postgres("monitor", [
                "pg_autoctl", "show", "state", "--json", "--monitor", self.monitor_uri,
            ], check=False, timeout=15)
        except subprocess.TimeoutExpired:
            return []
        if result.returncode != 0:
            return []
        try:
            return list(json.loads(result.stdout))
        except ValueError:
            return []

    def roles(self) -> dict[str, dict[str, str]]:
        return {
            str(n.get("nodename")): {"role": str(n.get("current_group_state")), "goal": str(n.get("assigned_group_state")),
                                     "health": str(n.get("health"))}
            for n in self.show_state()
        }

    # -- launching a host ----------------------------------------------------------------
    def _launch(self, name: str, commands: list[list[str] | str], extra_env: dict[str, str] | None = None) -> int:
        """Start a host: a shell in a new session running `commands` side by side (an argv, or
        a line of shell)."""
        home = self.home(name)
        home.mkdir(parents=True, exist_ok=True)
        lines = ["exec </dev/null"]
        lines += [(argv if isinstance(argv, str) else " ".join(shlex.quote(a) for a in argv)) + " &"
                  for argv in commands]
        lines.append("wait")
        if "postgresql" in self.hosts[name].ports:
            env = self.pg_env(name)
        else:
            env = {**os.environ, "PATH": f"{ROOT / '.venv/bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                   MARK: str(self.dir)}
        env.update(extra_env or {})
        log = open(home / "host.log", "ab")
        proc = subprocess.Popen(["sh", "-c", "\n".join(lines)], cwd=home, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        state = self._state()
        state.setdefault("sessions", {})[name] = proc.pid
        self._save(state)
        return proc.pid

    def _postgres(self, argv: list[str]) -> list[str]:
        return ["setpriv", "--reuid", PG_USER, "--regid", PG_USER, "--init-groups", "--", *argv]

    def _pg_home(self, name: str) -> None:
        home = self.home(name)
        for sub in ("", "config", "data", "run"):
            (home / sub).mkdir(parents=True, exist_ok=True)
            shutil.chown(home / sub, PG_USER, PG_USER)
        os.chmod(home / "run", 0o700)

    def start_monitor(self) -> None:
        name, h = "monitor", self.hosts["monitor"]
        self._pg_home(name)
        pgdata = self.pgdata(name)
        if (pgdata / "PG_VERSION").exists():
            argv = ["pg_autoctl", "run", "--pgdata", str(pgdata)]
        else:
            argv = ["pg_autoctl", "create", "monitor", "--pgdata", str(pgdata),
                    "--pgport", str(h.ports["postgresql"]), "--hostname", h.address,
                    "--listen", h.address, "--skip-pg-hba", "--ssl-mode", "disable", "--no-ssl", "--run"]
        self._launch(name, [self._postgres(argv)])

    def start_node(self, name: str) -> None:
        h = self.hosts[name]
        self._pg_home(name)
        pgdata = self.pgdata(name)
        created = (pgdata / "PG_VERSION").exists() and any((self.home(name) / "config").rglob("pg_autoctl.cfg"))
        if created:
            keeper = ["pg_autoctl", "run", "--pgdata", str(pgdata)]
        else:
            keeper = ["pg_autoctl", "create", "postgres", "--pgdata", str(pgdata),
                      "--pgport", str(h.ports["postgresql"]), "--pghost", h.address, "--listen", h.address,
                      "--hostname", h.address, "--name", name, "--skip-pg-hba",
                      "--ssl-mode", "disable", "--no-ssl", "--monitor", self.monitor_uri, "--run"]
        conf = self._pgbouncer_conf(name)
        gate = [str(ROOT / ".venv/bin/python"), str(HERE / "gate.py"),
                "--postgres", f"host={h.address} port={h.ports['postgresql']} user={PG_USER} dbname=postgres",
                "--pgbouncer", f"host={h.address} port={h.ports['pgbouncer']} user={PG_USER} dbname=pgbouncer",
                "--database", "capsa"]
        self._launch(name, [self._postgres(keeper), self._postgres(["pgbouncer", str(conf)]), self._postgres(gate)])

    def _pgbouncer_conf(self, name: str) -> Path:
        h = self.hosts[name]
        home = self.home(name) / "pgbouncer"
        home.mkdir(exist_ok=True)
        shutil.chown(home, PG_USER, PG_USER)
        users = home / "users.txt"
        users.write_text('"capsa" ""\n"postgres" ""\n')
        template = string.Template((HERE / "pgbouncer.ini.template").read_text())
        conf = home / "pgbouncer.ini"
        conf.write_text(template.substitute(
            HOST=h.address, PG_PORT=h.ports["postgresql"], PORT=h.ports["pgbouncer"], HOME=home,
        ))
        return conf

    def start_edge(self) -> None:
        name, h = "edge", self.hosts["edge"]
        home = self.home(name)
        nginx_home = home / "nginx"
        nginx_home.mkdir(parents=True, exist_ok=True)
        template = string.Template((HERE / "nginx.conf.template").read_text())
        upstreams = "\n".join(
            f"        server {self.hosts[a].address}:{self.hosts[a].ports['http']} max_fails=1 fail_timeout=2s;"
            for a in APPS)
        conf = nginx_home / "nginx.conf"
        conf.write_text(template.safe_substitute(LISTEN=f"{h.address}:{h.ports['nginx']}", UPSTREAMS=upstreams))
        redis = ["redis-server", "--bind", h.address, "--port", str(h.ports["redis"]), "--save", "",
                 "--appendonly", "no", "--dir", str(home), "--protected-mode", "no", "--daemonize", "no"]
        nginx = ["nginx", "-p", f"{nginx_home}/", "-c", str(conf), "-e", str(nginx_home / "error.log"),
                 "-g", "daemon off;"]
        # redis runs again a second after it ends, unless edge/redis.hold exists: `kill-redis`
        # takes it down alone (nginx stays) and `start-redis` brings it back in the same session.
        hold = shlex.quote(str(self.redis_hold))
        self.redis_hold.unlink(missing_ok=True)
        loop = (f"while :; do {' '.join(shlex.quote(a) for a in redis)}; sleep 1; "
                f"while [ -e {hold} ]; do sleep 0.2; done; done")
        self._launch(name, [loop, nginx])

    @property
    def redis_hold(self) -> Path:
        return self.home("edge") / "redis.hold"

    def redis_pids(self) -> list[int]:
        found = []
        for pid in self.pids("edge"):
            try:
                if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"redis-server"):
                    found.append(pid)
            except OSError:
                pass
        return found

    def kill_redis(self) -> None:
        """SIGKILL the formation's Redis and keep it down (nginx, on the same host, keeps running)."""
        self.redis_hold.touch()
        for pid in self.redis_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def start_redis(self) -> None:
        self.redis_hold.unlink(missing_ok=True)
        self.wait_for("redis", lambda: self.accepts("edge", "redis"), 30, ["edge"])

    # A silent host: its traffic dropped, so connections to it and from it hang instead of
    # being refused. Every loopback connection leaves from 127.0.0.1, so the address alone
    # catches only what goes to the host; what its processes send is caught by their cgroup
    # (cgroup v2, iptables' cgroup match), which the processes they start inherit.
    CGROUP_ROOT = Path("/sys/fs/cgroup/unified")

    def _silence_rules(self, name: str) -> list[list[str]]:
        return [["INPUT", "-d", self.hosts[name].address, "-j", "DROP"],
                ["OUTPUT", "-m", "cgroup", "--path", f"capsa-ha-{name}-{self.base}", "-j", "DROP"]]

    def silence(self, name: str) -> None:
        if shutil.which("iptables") is None:
            raise FormationError("silence needs iptables (Debian package iptables)")
        group = self.CGROUP_ROOT / f"capsa-ha-{name}-{self.base}"
        group.mkdir(exist_ok=True)
        # twice: a process started between the listing and the move is caught by the second pass
        for _ in range(2):
            for pid in self.pids(name):
                try:
                    (group / "cgroup.procs").write_text(str(pid))
                except OSError:
                    pass  # ended meanwhile
        for rule in self._silence_rules(name):
            subprocess.run(["iptables", "-I", *rule], check=True, capture_output=True, timeout=10)

    def unsilence(self, name: str) -> None:
        for rule in self._silence_rules(name):
            while subprocess.run(["iptables", "-D", *rule], capture_output=True, timeout=10).returncode == 0:
                pass
        group = self.CGROUP_ROOT / f"capsa-ha-{name}-{self.base}"
        if group.exists():
            for pid in (group / "cgroup.procs").read_text().split():
                try:
                    (self.CGROUP_ROOT / "cgroup.procs").write_text(pid)
                except OSError:
                    pass
            try:
                group.rmdir()
            except OSError:
                pass

    def app_env(self, name: str) -> dict[str, str]:
        h = self.hosts[name]
        prometheus = self.home(name) / "prometheus"
        return {
            "DATABASE_URL": self.database_url,
            # no `options` startup parameter and no server-side prepared statements: pgbouncer's
            # transaction pooling (the role carries the timeouts, checked by /readyz)
            "DATABASE_POOLER": "pgbouncer",
            "RATELIMIT_STORAGE_URI": self.redis_url,
            "SIGNING_KEY_FILE": str(self.dir / "signing-keys.json"),
            "METRICS_BIND": f"{h.address}:{h.ports['metrics']}",
            "WEBHOOK_METRICS_BIND": f"{h.address}:{h.ports['webhook_metrics']}",
            "PROMETHEUS_MULTIPROC_DIR": str(prometheus),
            "FORWARDED_ALLOW_IPS": "127.0.0.1",
            "WEB_CONCURRENCY": str(self.workers[name]),
        }

    def start_app(self, name: str) -> None:
        h = self.hosts[name]
        capsa = str(ROOT / ".venv/bin/capsa")
        self._launch(name, [
            [capsa, "serve", "--host", h.address, "--port", str(h.ports["http"]), "--workers", str(self.workers[name])],
            [capsa, "sweep", "--quiet"],
            # gunicorn's on_starting empties PROMETHEUS_MULTIPROC_DIR: a dispatcher sharing it
            # died at start (its file gone) and its /metrics would sum the workers'; alone it
            # keeps its metrics in-process
            ["env", "-u", "PROMETHEUS_MULTIPROC_DIR", capsa, "webhooks", "dispatch"],
        ], self.app_env(name))

    def start(self, name: str) -> None:
        if name == "monitor":
            self.start_monitor()
        elif name in NODES:
            self.start_node(name)
        elif name == "edge":
            self.start_edge()
        else:
            self.start_app(name)

    # -- checks --------------------------------------------------------------------------
    def check_binaries(self) -> None:
        missing = [f"{what} ({path}; Debian package {package})"
                   for what, (path, package) in BINARIES.items() if not Path(path).exists()]
        if not Path(ROOT / ".venv/bin/capsa").exists():
            missing.append(f"capsa ({ROOT / '.venv/bin/capsa'}; run `make .venv/.installed`)")
        if missing:
            raise FormationError("missing: " + ", ".join(missing) + " (`make ha-deps` installs the packages)")

    def check_ports(self, names: list[str]) -> None:
        taken = []
        for name in names:
            h = self.hosts[name]
            for what, port in h.ports.items():
                with socket.socket() as s:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    try:
                        s.bind((h.address, port))
                    except OSError as exc:
                        taken.append(f"{h.address}:{port} ({name} {what}: {exc.strerror})")
        if taken:
            raise FormationError("port taken: " + ", ".join(taken) + " (choose another HA_PORT_BASE)")

    def check_access(self) -> None:
        probe = subprocess.run(["setpriv", "--reuid", PG_USER, "--regid", PG_USER, "--init-groups", "--",
                                "test", "-x", str(self.dir)], capture_output=True)
        if probe.returncode != 0:
            raise FormationError(f"the user {PG_USER} cannot enter {self.dir}: make it and every folder "
                                 "above it searchable (chmod o+x)")

    # -- waiting -------------------------------------------------------------------------
    def wait_for(self, what: str, predicate: Any, timeout: float, watch: list[str]) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            dead = [n for n in watch if not self.alive(n)]
            if dead:
                raise FormationError(f"{', '.join(dead)} stopped while waiting for {what}; see "
                                     + ", ".join(str(self.home(n) / "host.log") for n in dead))
            time.sleep(0.5)
        raise FormationError(f"timed out after {timeout:.0f} s waiting for {what}; see {self.dir}/*/host.log")

    def accepts(self, name: str, port: str) -> bool:
        h = self.hosts[name]
        try:
            with socket.create_connection((h.address, h.ports[port]), timeout=1):
                return True
        except OSError:
            return False

    def monitor_ready(self) -> bool:
        return self.accepts("monitor", "postgresql") and self.psql(
            "monitor", "select count(*) from pg_extension where extname = 'pgautofailover'",
            database="pg_auto_failover", check=False) == "1"

    def healthy(self) -> bool:
        """A primary with synchronous replication on (pg_auto_failover's `primary`) and a secondary."""
        states = self.show_state()
        reported = sorted((n.get("current_group_state"), n.get("assigned_group_state")) for n in states)
        return reported == [("primary", "primary"), ("secondary", "secondary")]

    def primary(self) -> str | None:
        for node in self.show_state():
            if node.get("current_group_state") in ("single", "primary", "wait_primary") and \
                    node.get("assigned_group_state") == node.get("current_group_state"):
                return str(node.get("nodename"))
        return None

    def writable_primary(self) -> str | None:
        """The primary the monitor names, once its PostgreSQL itself takes writes (after a
        restart the monitor still names the old primary before its PostgreSQL is up)."""
        name = self.primary()
        if name and self.accepts(name, "postgresql") and \
                self.psql(name, "select not pg_is_in_recovery()", check=False) == "t":
            return name
        return None

    def wait_writable(self, timeout: float = 120, watch: tuple[str, ...] = NODES) -> str:
        """The writable primary, waited for (the monitor may not answer a given call under load)."""
        found: list[str] = []

        def writable() -> bool:
            name = self.writable_primary()
            found[:] = [name] if name else []
            return bool(found)

        self.wait_for("a writable primary", writable, timeout, list(watch))
        return found[0]

    # -- the work --------------------------------------------------------------------------
    def tune_monitor(self) -> None:
        self.psql("monitor", *(f"alter system set {k} = '{v}'" for k, v in MONITOR_SETTINGS.items()),
                  "select pg_reload_conf()", database="pg_auto_failover")

    def prepare_database(self, primary: str) -> None:
        """The capsa role and database on the primary (they replicate), its timeouts, migrations."""
        if self.psql(primary, "select 1 from pg_roles where rolname = 'capsa'") != "1":
            self.psql(primary, "create role capsa login")
        if self.psql(primary, "select 1 from pg_database where datname = 'capsa'") != "1":
            self.psql(primary, "create database capsa owner capsa")
        self.psql(primary, *(f"alter role capsa set {k} = '{v}'" for k, v in ROLE_SETTINGS.items()))
        env = {**os.environ, "DATABASE_URL": self.direct_url(primary), MARK: str(self.dir)}
        capsa = str(ROOT / ".venv/bin/capsa")
        for argv in ([capsa, "db", "upgrade"],
                     *([[capsa, "keys", "create", "--file", str(self.dir / "signing-keys.json")]]
                       if not (self.dir / "signing-keys.json").exists() else [])):
            result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
            if result.returncode != 0:
                raise FormationError(f"{' '.join(argv[1:])} on {primary} failed: {result.stderr.strip()[-800:]}")

    def configure_keepers(self) -> None:
        """Each keeper's network partition timeout, set where it differs (a reload during a
        node's creation restarts its postgres service, so only once the node is running)."""
        key, value = "timeout.network_partition_timeout", str(NETWORK_PARTITION_TIMEOUT_S)
        for name in NODES:
            pgdata = str(self.pgdata(name))
            if self.as_postgres(name, ["pg_autoctl", "config", "get", "--pgdata", pgdata, key]).stdout.strip() == value:
                continue
            self.as_postgres(name, ["pg_autoctl", "config", "set", "--pgdata", pgdata, key, value])
            # A running keeper reads its configuration again on SIGHUP.
            self.as_postgres(name, ["pg_autoctl", "reload", "--pgdata", pgdata], check=False)

    def converge(self) -> bool:
        """`healthy`, hurrying a standby's base backup along: pg_basebackup asks for a spread
        checkpoint (minutes on an idle primary); a CHECKPOINT command finishes it at once."""
        states = self.show_state()
        if any(n.get("current_group_state") in ("wait_standby", "catchingup") for n in states):
            primary = self.primary()
            if primary and time.monotonic() - self._checkpointed > 3:
                self.psql(primary, "checkpoint", check=False)
                self._checkpointed = time.monotonic()
        return self.healthy()

    def up(self) -> dict[str, Any]:
        self.check_binaries()
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o755)
        self.check_access()
        dead = [n for n in ORDER if not self.alive(n)]
        self.check_ports(dead)
        started: list[str] = []
        try:
            if "monitor" in dead:
                self.start_monitor()
                started.append("monitor")
            self.wait_for("the monitor", self.monitor_ready, 90, ["monitor"])
            self.tune_monitor()
            first = not (self.pgdata("node1") / "PG_VERSION").exists()
            for name in NODES:
                if name in dead:
                    self.start_node(name)
                    started.append(name)
                    if first:  # the first node becomes the primary before the second is made
                        self.wait_for(f"{name} to register", lambda: self.primary() is not None, 120, [name])
                        # archiving on while it is alone: its restart cannot start a failover
                        backups().configure_single(self, self.wait_writable(watch=(name,)))
                        first = False
            self.prepare_database(self.wait_writable())
            for name in ("edge", *APPS):
                if name in dead:
                    self.start(name)
                    started.append(name)
            self.wait_for("a healthy formation", self.converge, 240, list(NODES))
            self.configure_keepers()
            backups().configure(self)  # pgBackRest: archiving on both nodes, the stanza
            for name in APPS:
                self.wait_for(f"{name}'s gunicorn", lambda n=name: self.accepts(n, "http"), 180, [name])
            self.wait_for("nginx", lambda: self.accepts("edge", "nginx"), 30, ["edge"])
        except BaseException:
            for name in reversed(started):
                self.stop(name)
            raise
        return self.write()

    def describe(self) -> dict[str, Any]:
        roles = self.roles()
        state = self._state()
        return {
            "url": self.url,
            "database_url": self.database_url,
            "monitor_uri": self.monitor_uri,
            "redis_url": self.redis_url,
            "port_base": self.base,
            "nodes": [
                {"name": n, "host": self.hosts[n].address, "port": self.hosts[n].ports["postgresql"],
                 "pgbouncer_port": self.hosts[n].ports["pgbouncer"], "pgdata": str(self.pgdata(n)),
                 "role": roles.get(n, {}).get("role", "unknown"), "goal": roles.get(n, {}).get("goal", "unknown"),
                 "direct_url": self.direct_url(n), "pids": self.pids(n)}
                for n in NODES
            ],
            "apps": [
                {"name": a, "url": f"http://{self.hosts[a].address}:{self.hosts[a].ports['http']}",
                 "pids": self.pids(a)}
                for a in APPS
            ],
            "hosts": {
                n: {"address": h.address, "ports": h.ports, "session": state.get("sessions", {}).get(n),
                    "pids": self.pids(n)}
                for n, h in self.hosts.items()
            },
            "backup": {"config": str(backups().conf(self)), "repository": str(backups().home(self) / "repo"),
                       "restored": backups().restored(self)},
        }

    def write(self) -> dict[str, Any]:
        description = self.describe()
        (self.dir / "formation.json").write_text(json.dumps(description, indent=2) + "\n")
        return description

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Signal every process of a host: its process groups, then any member of its session left."""
        pids = self.pids(name)
        for pgid in {s[0] for p in pids if (s := _stat(p)) is not None}:
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                pass
        for pid in self.pids(name):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, name: str, grace: float = 20) -> None:
        self.kill(name, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while self.pids(name) and time.monotonic() < deadline:
            time.sleep(0.2)
        if self.pids(name):
            self.kill(name, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while self.pids(name) and time.monotonic() < deadline:
                time.sleep(0.1)

    def down(self) -> None:
        backups().stop_restored(self)  # the servers `ha-restore` started
        # A host left silent by an interrupted fault gets its traffic back first.
        if shutil.which("iptables") is not None:
            for name in self.hosts:
                self.unsilence(name)
        # Apps first (their connections close), then the edge, the nodes and the monitor.
        for group in (APPS, ("edge",), NODES, ("monitor",)):
            for name in group:
                self.kill(name, signal.SIGTERM)
            deadline = time.monotonic() + 20
            while any(self.pids(n) for n in group) and time.monotonic() < deadline:
                time.sleep(0.2)
            for name in group:
                if self.pids(name):
                    self.kill(name, signal.SIGKILL)
        time.sleep(0.3)
        left = marked_pids(self.dir)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.3)
        left = [p for n in self.hosts for p in self.pids(n)] + marked_pids(self.dir)
        if left:
            raise FormationError(f"processes left after down: {sorted(set(left))}")
        state = self._state()
        state["sessions"] = {}
        self._save(state)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["up", "status", "down", "kill", "start", "wait-healthy",
                                            "kill-redis", "start-redis", "silence", "unsilence"])
    parser.add_argument("host", nargs="?",
                        help="kill/start/silence/unsilence: monitor, node1, node2, app1, app2 or edge")
    parser.add_argument("--dir", required=True, type=Path, help="the formation's directory")
    parser.add_argument("--port-base", type=int, default=int(os.environ.get("HA_PORT_BASE") or 17000))
    parser.add_argument("--timeout", type=float, default=120, help="wait-healthy: seconds")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("formation.py runs as root (it starts pg_autoctl and pgbouncer as postgres)", file=sys.stderr)
        return 2
    formation = Formation(args.dir, args.port_base)
    try:
        if args.command in ("kill", "start", "silence", "unsilence"):
            if args.host not in formation.hosts:
                raise FormationError(f"unknown host {args.host!r}: one of {', '.join(formation.hosts)}")
            if args.command == "kill":
                formation.kill(args.host)
            elif args.command == "silence":
                formation.silence(args.host)
            elif args.command == "unsilence":
                formation.unsilence(args.host)
            else:
                if formation.alive(args.host):
                    raise FormationError(f"{args.host} is running already")
                formation.check_ports([args.host])
                formation.start(args.host)
            formation.write()
        elif args.command == "kill-redis":
            formation.kill_redis()
        elif args.command == "start-redis":
            formation.start_redis()
        elif args.command == "up":
            print(json.dumps(formation.up(), indent=2))
        elif args.command == "status":
            print(json.dumps(formation.write(), indent=2))
        elif args.command == "wait-healthy":
            formation.wait_for("a healthy formation", formation.converge, args.timeout, [])
            formation.write()
        else:
            formation.down()
    except FormationError as exc:
        print(f"formation: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
