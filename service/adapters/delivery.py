"""Webhook POSTs over kept-alive connections: the SSRF guard on the resolved address, one
deadline per attempt, no redirects.

A connection resolves its host when it is made, and every address the host resolves to is
checked (a name that once pointed outside may point inside now); the connection is made to
the checked address itself, with the URL's host in `Host` and in TLS (SNI, certificate), so
a second resolution cannot swap it. `Pool` keeps each origin's idle connections (HTTP/1.1
keep-alive, at most `per_origin` idle, none idle longer than `IDLE_S`) and reuses them: the
name is resolved and checked once per connection, not once per request, and every request
on it goes to the address checked when it was made. A kept connection the receiver closed
meanwhile is replaced once, at once (the request is sent again on a new connection,
resolved and checked anew). Redirects are answers like any other non-2xx: failed.

Each attempt has one deadline: resolving, connecting, the TLS handshake, sending, the
status line, the headers and the body all end by it. A socket timeout alone bounds each
read, so a receiver trickling a byte a second would hold an attempt for ever; here every
read and write first shrinks the socket's timeout to the time left (and fails once none
is). The answer's body is read up to 4 KiB (a longer one closes the connection), and its
headers are bounded by http.client.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from service.domain.webhooks import refused_address, refused_host

MAX_ERROR = 255
_READ = 4096  # of the answer's body, at most: receivers answer fast and short


@dataclass(frozen=True, slots=True)
class Result:
    """`outcome`: delivered (2xx), http_error, timeout, connection_error, refused."""

    outcome: str
    status_code: int | None
    latency_ms: int
    error: str | None


class Refused(Exception):
    """The URL resolves to an address webhooks may not reach."""


class Deadline:
    """A moment on the monotonic clock by which an attempt ends."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left; TimeoutError once there are none."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no answer within {self.seconds:g} s")
        return left


class _Bounded:
    """Socket methods that shrink the timeout to what the deadline leaves, before each call
    (http.client sends with `sendall` and reads through `makefile`, i.e. `recv_into`)."""

    deadline: Deadline

    def recv_into(self, *args: Any) -> int:
        self.settimeout(self.deadline.left())  # type: ignore[attr-defined]
        return super().recv_into(*args)  # type: ignore[misc, no-any-return]

    def recv(self, *args: Any) -> bytes:
        self.settimeout(self.deadline.left())  # type: ignore[attr-defined]
        return super().recv(*args)  # type: ignore[misc, no-any-return]

    def send(self, *args: Any) -> int:
        self.settimeout(self.deadline.left())  # type: ignore[attr-defined]
        return super().send(*args)  # type: ignore[misc, no-any-return]

    def sendall(self, *args: Any) -> None:
        # CPython bounds one sendall by its timeout as a whole (not per chunk).
        self.settimeout(self.deadline.left())  # type: ignore[attr-defined]
        super().sendall(*args)  # type: ignore[misc]


class _BoundedSocket(_Bounded, socket.socket):
    pass


class _BoundedTLSSocket(_Bounded, ssl.SSLSocket):
    pass


def _tls_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.sslsocket_class = _BoundedTLSSocket
    return context


_TLS = _tls_context()  # loaded once: the CA store is read from disk


def _connect(address: str, port: int, deadline: Deadline) -> _BoundedSocket:
    raw = socket.create_connection((address, port), deadline.left())
    sock = _BoundedSocket(fileno=raw.detach())
    sock.deadline = deadline
    sock.settimeout(deadline.left())
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _getaddrinfo(host: str, port: int, deadline: Deadline) -> list[Any]:
    """getaddrinfo by the deadline: it takes no timeout, so a slow resolver is waited for in
    a daemon thread, which is left behind (it ends with the resolver's own timeout)."""
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        pass
    else:  # a literal: nothing to look up
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[Any] = []
    failed: list[BaseException] = []

    def look_up() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except BaseException as exc:  # handed to the waiting thread
            failed.append(exc)

    thread = threading.Thread(target=look_up, name="webhook-resolve", daemon=True)
    thread.start()
    thread.join(deadline.left())
    if thread.is_alive():
        raise TimeoutError(f"no answer within {deadline.seconds:g} s (resolving {host})")
    if failed:
        raise failed[0]
    return found


def resolve(host: str, port: int, allow_private: bool, deadline: Deadline | None = None) -> str:
    """The address to connect to: the first one `host` resolves to, once all are checked.

    The host itself is judged first, by the rule a new endpoint's URL met (refused_host: a
    localhost name, an address in any form such as `0x7f.1`), whatever the resolver makes of it."""
    reason = None if allow_private else refused_host(host)
    if reason is not None:
        raise Refused(f"{host} {reason}")
    infos = _getaddrinfo(host, port, deadline or Deadline(30.0))
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise Refused(f"{host} resolves to no address")
    if not allow_private:
        for address in addresses:
            if refused_address(ipaddress.ip_address(address.split("%")[0])):
                raise Refused(f"{host} resolves to {address}, a loopback, private or link-local address")
    return addresses[0]


class _Kept:
    """A pinned connection's part: it resolves and checks its host when it connects (once),
    and takes a new deadline for each attempt made on it."""

    host: str
    port: int
    sock: Any
    timeout: float | None
    allow_private: bool
    deadline: Deadline
    address: str | None = None

    def arm(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.timeout = deadline.left()
        if self.sock is not None:
            self.sock.deadline = deadline
            self.sock.settimeout(self.timeout)

    def _socket(self) -> _BoundedSocket:
        self.address = resolve(self.host, self.port, self.allow_private, self.deadline)
        return _connect(self.address, self.port, self.deadline)


class _Pinned(_Kept, http.client.HTTPConnection):
    def __init__(self, host: str, port: int, allow_private: bool, deadline: Deadline) -> None:
        super().__init__(host, port, timeout=deadline.left())
        self.allow_private, self.deadline = allow_private, deadline

    def connect(self) -> None:
        self.sock = self._socket()


class _PinnedTLS(_Kept, http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, allow_private: bool, deadline: Deadline) -> None:
        super().__init__(host, port, timeout=deadline.left(), context=_TLS)
        self.allow_private, self.deadline = allow_private, deadline

    def connect(self) -> None:
        sock = self._socket()
        # The handshake runs under the timeout just set (CPython bounds it as a whole).
        tls = _TLS.wrap_socket(sock, server_hostname=self.host)
        assert isinstance(tls, _BoundedTLSSocket)
        tls.deadline = self.deadline
        self.sock = tls


Connection = _Pinned | _PinnedTLS
Origin = tuple[str, str, int]  # scheme, host, port
IDLE_S = 4.0  # an idle connection older than this is closed, not reused (receivers close them)
# What a kept connection closed by its receiver meanwhile raises before any answer: sent again
# once on a new connection.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


class Pool:
    """Kept-alive connections by origin, at most `per_origin` idle ones each (the caller bounds
    the attempts in flight per endpoint); thread-safe."""

    def __init__(self, allow_private: bool, per_origin: int = 4) -> None:
        self.allow_private = allow_private
        self.per_origin = per_origin
        self._idle: dict[Origin, list[tuple[float, Connection]]] = {}
        self._lock = threading.Lock()
        self.connections_made = 0

    def _take(self, origin: Origin) -> Connection | None:
        now = time.monotonic()
        with self._lock:
            idle = self._idle.get(origin)
            while idle:
                since, conn = idle.pop()
                if now - since < IDLE_S:
                    return conn
                conn.close()
        return None

    def _give(self, origin: Origin, conn: Connection) -> None:
        with self._lock:
            idle = self._idle.setdefault(origin, [])
            if len(idle) < self.per_origin:
                idle.append((time.monotonic(), conn))
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, {}
        for conns in idle.values():
            for _, conn in conns:
                conn.close()

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Result:
        """POST `body` to `url`, all of it within `timeout` seconds (resolving and connecting
        if no kept connection is idle, TLS, sending, the answer's status line, headers and
        first 4 KiB of body); never raises for what the network or the receiver does."""
        started = time.monotonic()
        deadline = Deadline(timeout)

        def took() -> int:
            return int((time.monotonic() - started) * 1000)

        parts = urlsplit(url)
        host = parts.hostname or ""
        tls = parts.scheme == "https"
        port = parts.port or (443 if tls else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        origin = (parts.scheme, host, port)
        conn: Connection | None = None
        try:
            conn = self._take(origin)
            if conn is not None:
                conn.arm(deadline)
                try:
                    answer = _send(conn, path, body, headers)
                except _STALE:
                    conn.close()
                    conn = None
            if conn is None:
                conn = (_PinnedTLS if tls else _Pinned)(host, port, self.allow_private, deadline)
                self.connections_made += 1
                answer = _send(conn, path, body, headers)
            status = answer.status
            try:
                answer.read(_READ)
            except (OSError, http.client.HTTPException):
                pass  # the status was answered: a body cut short (or too slow) does not change it
            if answer.isclosed() and not answer.will_close:
                self._give(origin, conn)  # read to its end: the connection may carry the next
                conn = None
            if 200 <= status < 300:
                return Result("delivered", status, took(), None)
            return Result("http_error", status, took(), f"HTTP {status} {answer.reason}"[:MAX_ERROR])
        except Refused as exc:
            return Result("refused", None, took(), str(exc)[:MAX_ERROR])
        except TimeoutError:
            return Result("timeout", None, took(), f"no answer within {timeout:g} s")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            return Result("connection_error", None, took(), f"{type(exc).__name__}: {exc}"[:MAX_ERROR])
        finally:
            if conn is not None:
                conn.close()


def _send(conn: Connection, path: str, body: bytes, headers: dict[str, str]) -> http.client.HTTPResponse:
    conn.request("POST", path, body=body, headers=headers)
    return conn.getresponse()


def post(url: str, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool) -> Result:
    """One POST on a connection of its own (resolved and checked for it), closed after."""
    pool = Pool(allow_private, per_origin=0)
    try:
        return pool.post(url, body, headers, timeout)
    finally:
        pool.close()
