"""One webhook POST: the SSRF guard on the resolved address, timeouts, no redirects.

The host is resolved at delivery time and every address it resolves to is checked (a name
that once pointed outside may point inside now); the connection is then made to the
checked address itself, with the URL's host in `Host` and in TLS (SNI, certificate), so a
second resolution cannot swap it. Redirects are answers like any other non-2xx: failed.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
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


def resolve(host: str, port: int, allow_private: bool) -> str:
    """The address to connect to: the first one `host` resolves to, once all are checked.

    The host itself is judged first, by the rule a new endpoint's URL met (refused_host: a
    localhost name, an address in any form such as `0x7f.1`), whatever the resolver makes of it."""
    reason = None if allow_private else refused_host(host)
    if reason is not None:
        raise Refused(f"{host} {reason}")
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise Refused(f"{host} resolves to no address")
    if not allow_private:
        for address in addresses:
            if refused_address(ipaddress.ip_address(address.split("%")[0])):
                raise Refused(f"{host} resolves to {address}, a loopback, private or link-local address")
    return addresses[0]


class _Pinned(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedTLS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(url: str, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool) -> Result:
    """POST `body` to `url`; never raises for what the network or the receiver does."""
    started = time.monotonic()

    def took() -> int:
        return int((time.monotonic() - started) * 1000)

    parts = urlsplit(url)
    host = parts.hostname or ""
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    conn: http.client.HTTPConnection | None = None
    try:
        address = resolve(host, port, allow_private)
        conn = (_PinnedTLS if tls else _Pinned)(host, port, address, timeout)
        conn.request("POST", path, body=body, headers=headers)
        answer = conn.getresponse()
        answer.read(_READ)
        status = answer.status
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
