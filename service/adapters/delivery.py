"""Webhook POSTs over kept-alive connections on one event loop: the SSRF guard on the
resolved address, one deadline per attempt, no redirects.

Every attempt of a dispatcher runs on one asyncio event loop (`AsyncPool`), in the thread
that runs it: non-blocking sockets and a pre-rendered HTTP/1.1 request (request line,
headers and body written at once), answered through a small parser of the status line,
the headers and up to 4 KiB of the body. No thread per attempt and no `http.client`: the
interpreter's lock is not handed between sixteen threads for every read.

A connection resolves its host when it is made, and every address the host resolves to is
checked (a name that once pointed outside may point inside now); the connection is made to
the checked address itself, with the URL's host in `Host` and in TLS (SNI, certificate), so
a second resolution cannot swap it. The pool keeps each origin's idle connections (HTTP/1.1
keep-alive, at most `per_origin` idle, none idle longer than `IDLE_S`) and reuses them: the
name is resolved and checked once per connection, not once per request, and every request
on it goes to the address checked when it was made. A kept connection the receiver closed
meanwhile (it answered nothing before closing) is replaced once, at once: the request is
sent again on a new connection, resolved and checked anew. Redirects are answers like any
other non-2xx: failed.

Each attempt has one deadline: resolving, connecting, the TLS handshake, sending, the
status line, the headers and the body all end by it (the attempt awaits its answer with the
time left, then closes the connection), so a receiver trickling a byte a second cannot hold
it. The answer's body is read up to 4 KiB (a longer one closes the connection once the
status is known), and its headers are bounded as http.client bounds them (100 lines of
64 KiB). `Pool` and `post` run the same engine from synchronous code (tests, one-offs).
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import socket
import ssl
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

from service.domain.webhooks import AttemptOutcome, ascii_host, refused_address, refused_host

MAX_ERROR = 255
_READ = 4096  # of the answer's body, at most: receivers answer fast and short
_MAX_LINE = 65536  # http.client's bounds on an answer's head
_MAX_HEADERS = 100
# Interim (1xx) answers before the final one: servers send one or two (100 Continue, 103
# Early Hints); an endless run of them would keep the event loop parsing until the deadline.
_MAX_INTERIM = 8
IDLE_S = 4.0  # an idle connection older than this is closed, not reused (receivers close them)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Result:
    """How an attempt ended (delivered: a 2xx), its status, time and error."""

    outcome: AttemptOutcome
    status_code: int | None
    latency_ms: int
    error: str | None


class Refused(Exception):
    """The URL resolves to an address webhooks may not reach."""


class BadAnswer(Exception):
    """The receiver's answer is not HTTP/1.x within the bounds (a status line, headers)."""


class RemoteDisconnected(Exception):
    """A kept connection was closed by the receiver before any byte of an answer."""


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
    # The attempt's error is the endpoint owner's to read. Naming the address a name resolved
    # to, or telling a name the resolver does not know from one it resolves to a private
    # address, would make the dispatcher a probe of the names its own network resolves.
    hidden = Refused(f"{host} does not resolve to a public address")
    try:
        infos = _getaddrinfo(host, port, deadline or Deadline(30.0))
    except socket.gaierror:
        if allow_private:
            raise
        raise hidden from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise Refused(f"{host} resolves to no address") if allow_private else hidden
    if not allow_private and any(refused_address(ipaddress.ip_address(a.split("%")[0])) for a in addresses):
        raise hidden
    return addresses[0]


def _literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


_TLS = ssl.create_default_context()  # loaded once: the CA store is read from disk
_BAD_PATH = re.compile(r"[\x00-\x20\x7f]")  # what http.client refuses in a request target
_ASCII = "".join(map(chr, range(0x21, 0x7F)))  # a request target's characters, left as they are


@dataclass(frozen=True, slots=True)
class Target:
    """Where a request goes: its origin and what its request line and Host header say."""

    scheme: str
    host: str
    port: int
    path: str
    host_header: str

    @property
    def origin(self) -> tuple[str, str, int]:
        return self.scheme, self.host, self.port


_TARGETS: dict[str, Target] = {}


def target(url: str) -> Target:
    """The parts of an endpoint's URL a request needs (kept per URL: endpoints repeat)."""
    found = _TARGETS.get(url)
    if found is not None:
        return found
    parts = urlsplit(url)
    host = parts.hostname or ""
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if _BAD_PATH.search(path):
        raise ValueError(f"URL can't contain control characters. {path!r}")
    # What is outside ASCII goes as browsers send it: its UTF-8 bytes percent-encoded (the
    # request line is Latin-1, which holds no euro sign, and a raw é is not what a UTF-8
    # receiver routes on). ASCII, escapes included, is left as it is.
    path = quote(path, safe=_ASCII, encoding="utf-8")
    try:
        named = ascii_host(host)  # Host is ASCII: an internationalised name as IDNA spells it
    except UnicodeError as exc:
        raise ValueError(f"the host {host!r} is not a name IDNA can encode") from exc
    shown = f"[{named}]" if ":" in named else named
    host_header = shown if port == (443 if tls else 80) else f"{shown}:{port}"
    found = Target(parts.scheme, host, port, path, host_header)
    if len(_TARGETS) > 10_000:
        _TARGETS.clear()
    _TARGETS[url] = found
    return found


def request_bytes(t: Target, body: bytes, headers: dict[str, str]) -> bytes:
    """The whole request, rendered once: request line, Host, the headers, Content-Length,
    the body."""
    head = [f"POST {t.path} HTTP/1.1\r\nHost: {t.host_header}\r\nAccept-Encoding: identity\r\n"]
    for name, value in headers.items():
        if "\r" in value or "\n" in value or "\r" in name or "\n" in name:
            raise ValueError(f"Invalid header value {value!r}")
        head.append(f"{name}: {value}\r\n")
    head.append(f"Content-Length: {len(body)}\r\n\r\n")
    return "".join(head).encode("latin-1") + body


class _Answer:
    """A parsed answer's status, reason and whether the connection may carry another."""

    __slots__ = ("status", "reason", "reusable")

    def __init__(self, status: int, reason: str, reusable: bool) -> None:
        self.status, self.reason, self.reusable = status, reason, reusable


class _Connection(asyncio.Protocol):
    """One kept-alive connection: it parses the answer to the request in flight on it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[_Answer] | None = None
        self.closed = False
        self.got_bytes = False
        self.idle_since = 0.0
        self._reset()

    def _reset(self) -> None:
        self.head: tuple[int, str, bool] | None = None  # status, reason, keep-alive
        self.lines = 0
        self.framing = ""  # length | chunked | close | none
        self.left = 0  # body bytes still expected (length)
        self.read = 0  # body bytes seen
        self.interim = 0  # 1xx answers skipped

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        if self.head is not None:  # the status and headers are in: the body was cut short
            status, reason, _ = self.head
            waiter.set_result(_Answer(status, reason, False))
        elif not self.got_bytes:
            waiter.set_exception(RemoteDisconnected("Remote end closed connection without response"))
        else:
            waiter.set_exception(BadAnswer("the connection closed in the middle of the answer's head"))

    def data_received(self, data: bytes) -> None:
        self.got_bytes = True
        if self.waiter is None or self.waiter.done():
            self.abort()  # nothing was asked: a receiver talking out of turn
            return
        self.buffer += data
        try:
            answer = self._parse()
        except BadAnswer as exc:
            self.waiter.set_exception(exc)
            self.abort()
            return
        if answer is not None:
            self.waiter.set_result(answer)

    def eof_received(self) -> bool | None:
        return None  # close

    # -- the answer --------------------------------------------------------------------------

    def _parse(self) -> _Answer | None:
        buf = self.buffer
        while self.head is None:
            end = buf.find(b"\r\n")
            if end < 0:
                if len(buf) > _MAX_LINE:
                    raise BadAnswer("got more than 65536 bytes when reading the status line")
                return None
            line = bytes(buf[:end])
            del buf[: end + 2]
            parts = line.decode("latin-1").split(None, 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit() or len(parts[1]) != 3:
                raise BadAnswer(f"BadStatusLine: {line[:80]!r}")
            status, reason, version = int(parts[1]), parts[2] if len(parts) > 2 else "", parts[0]
            headers = self._headers(buf)
            if headers is None:  # wait for the rest of the head: parse the line again then
                buf[:0] = line + b"\r\n"
                return None
            if 100 <= status < 200:  # an interim answer: the final one follows
                self.interim += 1
                if self.interim > _MAX_INTERIM:
                    raise BadAnswer(f"got more than {_MAX_INTERIM} interim (1xx) answers")
                continue
            connection = headers.get("connection", "").lower()
            keep = "close" not in connection and (version != "HTTP/1.0" or "keep-alive" in connection)
            self.head = (status, reason, keep)
            if status in (204, 304):
                self.framing = "none"
            elif "chunked" in headers.get("transfer-encoding", "").lower():
                self.framing = "chunked"
            elif "content-length" in headers:
                try:
                    self.left = int(headers["content-length"])
                except ValueError as exc:
                    raise BadAnswer(f"invalid Content-Length {headers['content-length']!r}") from exc
                self.framing = "length"
            else:
                self.framing = "close"
        status, reason, keep = self.head
        if self.framing == "none":
            return self._done(keep and not buf)
        if self.framing == "length":
            take = min(len(buf), self.left)
            del buf[:take]
            self.left -= take
            self.read += take
            if self.left == 0:
                return self._done(keep and not buf)
            if self.read >= _READ:
                return self._done(False)
            return None
        if self.framing == "chunked":
            return self._chunks(keep)
        # close-delimited: read up to 4 KiB or the close (connection_lost), never reused
        self.read += len(buf)
        buf.clear()
        return self._done(False) if self.read >= _READ else None

    def _headers(self, buf: bytearray) -> dict[str, str] | None:
        """The headers (lower-case names), consumed from `buf` once all are in; None before."""
        if buf.startswith(b"\r\n"):  # none
            del buf[:2]
            return {}
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            lines = buf.count(b"\r\n")
            last = len(buf) - (buf.rfind(b"\r\n") + 2 if lines else 0)
            if lines > _MAX_HEADERS:
                raise BadAnswer(f"got more than {_MAX_HEADERS} headers")
            if last > _MAX_LINE:
                raise BadAnswer("got more than 65536 bytes when reading a header line")
            return None
        raw = bytes(buf[:end])
        del buf[: end + 4]
        out: dict[str, str] = {}
        lines_ = raw.split(b"\r\n") if raw else []
        if len(lines_) > _MAX_HEADERS:
            raise BadAnswer(f"got more than {_MAX_HEADERS} headers")
        for line in lines_:
            if len(line) > _MAX_LINE:
                raise BadAnswer("got more than 65536 bytes when reading a header line")
            name, _, value = line.decode("latin-1").partition(":")
            out[name.strip().lower()] = value.strip()
        return out

    def _chunks(self, keep: bool) -> _Answer | None:
        buf = self.buffer
        while True:
            if self.left > 0:  # inside a chunk's data (and its CRLF)
                take = min(len(buf), self.left)
                del buf[:take]
                self.left -= take
                self.read += take
                if self.read >= _READ:
                    return self._done(False)
                if self.left > 0:
                    return None
                continue
            end = buf.find(b"\r\n")
            if end < 0:
                if len(buf) > _MAX_LINE:
                    raise BadAnswer("got more than 65536 bytes when reading a chunk size")
                return None
            size_text = bytes(buf[:end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError as exc:
                raise BadAnswer(f"invalid chunk size {size_text[:20]!r}") from exc
            if size == 0:  # the last chunk: trailers up to an empty line
                trailer_end = buf.find(b"\r\n\r\n", end)
                if trailer_end == end:  # no trailers
                    del buf[: end + 4]
                elif trailer_end < 0:
                    # Trailers are read as the body is: 4 KiB at most, then the answer is
                    # taken as it is and the connection closed.
                    return self._done(False) if len(buf) - end > _READ else None
                else:
                    del buf[: trailer_end + 4]
                return self._done(keep and not buf)
            del buf[: end + 2]
            self.left = size + 2

    def _done(self, reusable: bool) -> _Answer:
        assert self.head is not None
        status, reason, _ = self.head
        return _Answer(status, reason, reusable)

    # -- the request -------------------------------------------------------------------------

    def ask(self, request: bytes) -> asyncio.Future[_Answer]:
        """Send `request`; the future answers it (the caller bounds the wait)."""
        assert self.transport is not None
        self._reset()
        self.buffer.clear()
        self.got_bytes = False
        self.waiter = self.loop.create_future()
        if self.closed:
            self.waiter.set_exception(RemoteDisconnected("Remote end closed connection without response"))
        else:
            self.transport.write(request)
        return self.waiter

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()


Origin = tuple[str, str, int]  # scheme, host, port


class AsyncPool:
    """Kept-alive connections by origin, at most `per_origin` idle ones each (the caller bounds
    the attempts in flight per endpoint), on the event loop that runs `post`."""

    def __init__(self, allow_private: bool, per_origin: int = 4) -> None:
        self.allow_private = allow_private
        self.per_origin = per_origin
        self._idle: dict[Origin, list[_Connection]] = {}
        self.connections_made = 0

    def _take(self, origin: Origin, now: float) -> _Connection | None:
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if not conn.closed and now - conn.idle_since < IDLE_S:
                return conn
            conn.abort()
        return None

    def _give(self, origin: Origin, conn: _Connection) -> None:
        idle = self._idle.setdefault(origin, [])
        if len(idle) < self.per_origin and not conn.closed:
            conn.idle_since = time.monotonic()
            conn.waiter = None
            idle.append(conn)
        else:
            conn.abort()

    def close(self) -> None:
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.abort()

    async def _open(self, t: Target, deadline: Deadline) -> _Connection:
        """A new connection to `t`'s origin: its host resolved and every address checked (in a
        thread when it is a name: the resolver blocks), then connected, TLS on top."""
        loop = asyncio.get_running_loop()
        if _literal(t.host) or not self.allow_private and refused_host(t.host) is not None:
            address = resolve(t.host, t.port, self.allow_private, deadline)
        else:
            found: asyncio.Future[str] = loop.create_future()

            def look_up() -> None:
                try:
                    address = resolve(t.host, t.port, self.allow_private, deadline)
                except BaseException as exc:  # handed to the loop
                    loop.call_soon_threadsafe(_settle, found, None, exc)
                else:
                    loop.call_soon_threadsafe(_settle, found, address, None)

            threading.Thread(target=look_up, name="webhook-resolve", daemon=True).start()
            address = await found
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, (address, t.port))
            _, conn = await loop.create_connection(
                lambda: _Connection(loop), sock=sock,
                ssl=_TLS if t.scheme == "https" else None,
                server_hostname=t.host if t.scheme == "https" else None,
            )
        except BaseException:
            sock.close()
            raise
        self.connections_made += 1
        return conn

    async def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Result:
        """POST `body` to `url`, all of it within `timeout` seconds (resolving and connecting
        if no kept connection is idle, TLS, sending, the answer's status line, headers and
        first 4 KiB of body); never raises for what the network or the receiver does."""
        started = time.monotonic()
        deadline = Deadline(timeout)

        def took() -> int:
            return int((time.monotonic() - started) * 1000)

        conn: _Connection | None = None
        try:
            t = target(url)
            request = request_bytes(t, body, headers)
            async with asyncio.timeout_at(asyncio.get_running_loop().time() + timeout):
                conn = self._take(t.origin, started)
                answer: _Answer | None = None
                if conn is not None:
                    try:
                        answer = await conn.ask(request)
                    except RemoteDisconnected:
                        conn.abort()
                        conn = None
                if conn is None or answer is None:
                    conn = await self._open(t, deadline)
                    answer = await conn.ask(request)
            if answer.reusable:
                self._give(t.origin, conn)
            else:
                conn.abort()
            conn = None
            status = answer.status
            if 200 <= status < 300:
                return Result(AttemptOutcome.DELIVERED, status, took(), None)
            return Result(AttemptOutcome.HTTP_ERROR, status, took(), f"HTTP {status} {answer.reason}"[:MAX_ERROR])
        except Refused as exc:
            return Result(AttemptOutcome.REFUSED, None, took(), str(exc)[:MAX_ERROR])
        except TimeoutError:
            return Result(AttemptOutcome.TIMEOUT, None, took(), f"no answer within {timeout:g} s")
        except (OSError, BadAnswer, RemoteDisconnected, ValueError, ssl.SSLError) as exc:
            return Result(AttemptOutcome.CONNECTION_ERROR, None, took(), _failure(exc)[:MAX_ERROR])
        finally:
            if conn is not None:
                conn.abort()


def _failure(exc: BaseException) -> str:
    """A connection error as its attempt records it. A socket's own message names the address
    the connect failed at (asyncio: "Connect call failed ('203.0.113.5', 443)"), which is not
    the endpoint owner's to read (`resolve`): such an error says its errno's text instead."""
    if isinstance(exc, OSError) and exc.errno and not isinstance(exc, ssl.SSLError | socket.gaierror):
        return f"{type(exc).__name__}: {os.strerror(exc.errno)}"
    return f"{type(exc).__name__}: {exc}"


def _settle(future: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)


class Loop:
    """An event loop in a daemon thread of its own, for synchronous callers."""

    def __init__(self, name: str = "webhook-io") -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def call(self, fn: Any, *args: Any) -> None:
        self.loop.call_soon_threadsafe(fn, *args)

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.loop.is_running():
            self.loop.close()


class Pool:
    """`AsyncPool` for synchronous code: each `post` runs on the pool's own loop thread."""

    def __init__(self, allow_private: bool, per_origin: int = 4) -> None:
        self.pool = AsyncPool(allow_private, per_origin)
        self._loop: Loop | None = None

    @property
    def connections_made(self) -> int:
        return self.pool.connections_made

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Result:
        if self._loop is None:
            self._loop = Loop("webhook-pool")
        return self._loop.run(self.pool.post(url, body, headers, timeout))

    def close(self) -> None:
        if self._loop is not None:
            async def close() -> None:
                self.pool.close()

            self._loop.run(close())

    def stop(self) -> None:
        self.close()
        if self._loop is not None:
            self._loop.stop()
            self._loop = None


def post(url: str, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool) -> Result:
    """One POST on a connection of its own (resolved and checked for it), closed after."""
    pool = AsyncPool(allow_private, per_origin=0)

    async def once() -> Result:
        try:
            return await pool.post(url, body, headers, timeout)
        finally:
            pool.close()

    return asyncio.run(once())
