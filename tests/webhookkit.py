"""A real HTTP receiver on loopback for the webhook tests and benchmarks.

Every request is checked with the `standardwebhooks` package (the public reference
receiver) under the endpoint's secrets; then a fate decides the answer: `ok` (200 at once),
`fail` (500), `slow` (200 after `slow_s`, past the dispatcher's timeout: the receiver acted
but its answer is lost). `ok` and `slow` count as processed, as a wallet would have booked.
`Stalling` is a hostile one: it trickles its answer a byte a second, or never answers.
`delay_s` holds every answer that long (within the dispatcher's timeout), so attempts are
in flight at any instant; each request notes when it arrived and when its answer was sent.
`Dispatchers` runs `capsa webhooks dispatch` processes against a database.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


@dataclass
class Received:
    id: str
    type: str
    body: dict[str, Any]
    headers: dict[str, str]
    fate: str
    at: float
    answered: float | None = None  # when its answer was sent (None: the dispatcher was gone)
    peer: int = 0  # the sender's port: one connection per attempt


@dataclass
class Receiver:
    secrets: list[str] = field(default_factory=list)
    fate: Callable[[str], str] = lambda event_id: "ok"
    slow_s: float = 1.5
    delay_s: float = 0.0
    requests: list[Received] = field(default_factory=list)
    invalid: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    unanswered: Counter[str] = field(default_factory=Counter)  # set by a test from the attempts

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if len(raw) < length:  # the sender died mid-request: nothing to act on
                    self.close_connection = True
                    return
                headers = {k.lower(): v for k, v in self.headers.items()}
                valid = False
                for secret in list(receiver.secrets):
                    try:
                        Webhook(secret).verify(raw, headers)
                        valid = True
                        break
                    except WebhookVerificationError:
                        continue
                body = json.loads(raw)
                event_id = headers.get("webhook-id", "")
                fate = receiver.fate(event_id) if valid else "invalid"
                received = Received(
                    event_id, body.get("type", ""), body, headers, fate, time.time(), peer=self.client_address[1]
                )
                with receiver.lock:
                    if not valid:
                        receiver.invalid += 1
                    receiver.requests.append(received)
                if fate == "slow":
                    time.sleep(receiver.slow_s)
                elif receiver.delay_s:
                    time.sleep(receiver.delay_s)
                status = 200 if fate in ("ok", "slow") else (401 if fate == "invalid" else 500)
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    self.wfile.flush()
                    received.answered = time.time()
                except OSError:
                    pass  # the dispatcher gave up on us (a timeout), or died

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                if not isinstance(sys.exc_info()[1], ConnectionError):  # a sender SIGKILLed mid-request
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- what was seen ---------------------------------------------------------------------

    def processed(self) -> Counter[str]:
        """How many times each event id was acted on (answered 2xx, or would have been)."""
        with self.lock:
            return Counter(r.id for r in self.requests if r.fate in ("ok", "slow"))

    def acknowledged(self) -> set[str]:
        with self.lock:
            return {r.id for r in self.requests if r.fate == "ok"}

    def duplicates(self) -> int:
        return sum(n - 1 for n in self.processed().values() if n > 1)

    def unexplained_duplicates(self, extra_lost: int = 0, lost: Counter[str] | None = None) -> int:
        """Duplicates that no lost acknowledgement explains: an event processed again must
        have had an earlier processing whose answer was lost, beyond `extra_lost` answers
        lost to a killed dispatcher. Without `lost`, the lost answers are the `slow` ones;
        with it, they are the attempts the dispatcher recorded as unanswered, per event (an
        `ok` answer the deadline cut off under load is lost too, and only the dispatcher
        knows it was)."""
        if lost is not None:
            excess = sum(max(0, n - 1 - lost[event_id]) for event_id, n in self.processed().items())
            return max(0, excess - extra_lost)
        lost_: dict[str, int] = defaultdict(int)
        seen: dict[str, int] = defaultdict(int)
        unexplained = 0
        with self.lock:
            for r in self.requests:
                if r.fate not in ("ok", "slow"):
                    continue
                if seen[r.id] > 0 and lost_[r.id] == 0:
                    unexplained += 1
                elif seen[r.id] > 0:
                    lost_[r.id] -= 1
                seen[r.id] += 1
                if r.fate == "slow":
                    lost_[r.id] += 1
        return max(0, unexplained - extra_lost)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


CAPSA = str(Path(sys.executable).parent / "capsa")


class Dispatchers:
    """`capsa webhooks dispatch` processes on one database, each logging to its own file
    in `tmp`; `env` is every process's WEBHOOK_* settings, `metrics=True` gives a process
    a metrics port of its own (`ports[i]`)."""

    def __init__(self, url: str, tmp: Path, env: dict[str, str]) -> None:
        self.url, self.tmp, self.env = url, tmp, env
        self.procs: list[subprocess.Popen[bytes]] = []
        self.ports: list[int | None] = []

    def start(self, metrics: bool = False) -> subprocess.Popen[bytes]:
        port = free_port() if metrics else None
        env = {
            **os.environ,
            "DATABASE_URL": self.url,
            "LOG_LEVEL": "WARNING",
            **self.env,
            "WEBHOOK_METRICS_BIND": f"127.0.0.1:{port}" if port else "off",
        }
        log = open(self.tmp / f"dispatch-{len(self.ports)}.log", "wb")
        proc = subprocess.Popen([CAPSA, "webhooks", "dispatch"], env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.procs.append(proc)
        self.ports.append(port)
        return proc

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def logs(self) -> dict[str, str]:
        return {log.name: log.read_text(errors="replace") for log in sorted(self.tmp.glob("dispatch-*.log"))}


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _tcp_ports() -> dict[str, int]:
    """Every TCP socket's inode, to its local port."""
    ports = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            ports[fields[9]] = int(fields[1].rsplit(":", 1)[1], 16)
    return ports


def open_ports(pid: int) -> set[int]:
    """The local ports of the TCP connections process `pid` has open (stop it first, so
    the answer holds: SIGSTOP)."""
    inodes, ports = _socket_inodes(pid), _tcp_ports()
    return {ports[i] for i in inodes if i in ports}


@dataclass
class PortWatch:
    """Which local ports each process has had TCP connections on, polled off /proc every
    `every_s` and a scan (an attempt's connection open longer than that is seen): a
    receiver's request is then attributed to the process that sent it by its peer port."""

    pids: list[int]
    every_s: float = 0.005
    ports: dict[int, set[int]] = field(default_factory=dict)

    def start(self) -> PortWatch:
        self.ports = {pid: set() for pid in self.pids}
        self.running = True
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()
        return self

    def _poll(self) -> None:
        while self.running:
            inodes = {}
            for pid in self.pids:
                try:
                    inodes[pid] = _socket_inodes(pid)
                except OSError:  # gone
                    continue
            ports = _tcp_ports()
            for pid, mine in inodes.items():
                self.ports[pid] |= {ports[i] for i in mine if i in ports}
            time.sleep(self.every_s)

    def stop(self) -> None:
        self.running = False
        self.thread.join(5)


def chaos(fail: float, slow: float, seed: int = 7) -> Callable[[str], str]:
    rng = random.Random(seed)
    lock = threading.Lock()

    def fate(event_id: str) -> str:
        with lock:
            x = rng.random()
        return "fail" if x < fail else "slow" if x < fail + slow else "ok"

    return fate


@dataclass
class Attempt:
    """One connection to a stalling receiver: the event it carried, when it opened, when
    the dispatcher closed it (None: still open)."""

    id: str
    opened: float
    closed: float | None = None


@dataclass
class Stalling:
    """A receiver that never lets an attempt finish: `trickle` answers its status line and
    then a header byte every `every_s` seconds, for ever; `hang` reads the request and
    never answers. It notes when each connection opened and when the dispatcher closed it,
    so a test can see how many were in flight at once and whether an event was sent again
    while a first copy was still in flight."""

    mode: str = "trickle"
    every_s: float = 1.0
    attempts: list[Attempt] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    open_now: int = 0
    most_open: int = 0

    def start(self) -> Stalling:
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=256)
        self.listener.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"

    def stop(self) -> None:
        self.running = False
        self.thread.join(5)
        self.listener.close()

    def _accept(self) -> None:
        while self.running:
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            raw = b""
            try:
                while b"\r\n\r\n" not in raw:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    raw += chunk
            except OSError:
                return
            head = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head)}
            attempt = Attempt(headers.get("webhook-id", ""), time.monotonic())
            with self.lock:
                self.attempts.append(attempt)
                self.open_now += 1
                self.most_open = max(self.most_open, self.open_now)
            try:
                if self.mode == "trickle":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                conn.settimeout(self.every_s)
                while self.running:
                    try:
                        if not conn.recv(65536):  # the rest of the body, then the close
                            break
                    except TimeoutError:
                        if self.mode == "trickle":
                            conn.sendall(b"a")
            except OSError:
                pass
            finally:
                with self.lock:
                    attempt.closed = time.monotonic()
                    self.open_now -= 1

    def overlapping_copies(self) -> int:
        """Sends of an event that began while an earlier copy of it was still open."""
        with self.lock:
            by_id: dict[str, list[Attempt]] = defaultdict(list)
            for a in self.attempts:
                by_id[a.id].append(a)
        overlaps = 0
        for copies in by_id.values():
            copies.sort(key=lambda a: a.opened)
            for before, after in zip(copies, copies[1:]):
                if before.closed is None or after.opened < before.closed:
                    overlaps += 1
        return overlaps
