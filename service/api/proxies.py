"""The client's address behind the proxies named in FORWARDED_ALLOW_IPS (gunicorn's setting).

gunicorn believes X-Forwarded-Proto only from those peers but leaves REMOTE_ADDR as the
peer, which behind nginx is nginx itself. `TrustedProxies` makes REMOTE_ADDR the address
nginx saw, for requests from a trusted peer only: the last X-Forwarded-For entry (nginx
appends its peer with `$proxy_add_x_forwarded_for`; earlier entries are whatever the client
sent). From any other peer the header is ignored, so a client that reaches gunicorn
directly cannot choose its own address, and with it its rate-limit key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from werkzeug.middleware.proxy_fix import ProxyFix

DEFAULT_FORWARDED_ALLOW_IPS = "127.0.0.1"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_allowed(value: str) -> tuple[bool, frozenset[Address]]:
    """gunicorn's syntax: comma-separated IP addresses, or `*` for any peer."""
    names = [name.strip() for name in value.split(",") if name.strip()]
    try:
        return "*" in names, frozenset(ipaddress.ip_address(n) for n in names if n != "*")
    except ValueError as exc:
        raise ValueError(f"FORWARDED_ALLOW_IPS: {exc}") from None


class TrustedProxies:
    """WSGI middleware: X-Forwarded-For applied (one hop) only for trusted peers."""

    def __init__(self, app: Any, allowed: str | Iterable[str]) -> None:
        value = allowed if isinstance(allowed, str) else ",".join(allowed)
        self.app = app
        self.any_peer, self.allowed = parse_allowed(value)
        self.forwarded = ProxyFix(app, x_for=1, x_proto=0, x_host=0, x_port=0, x_prefix=0)

    def trusts(self, peer: str) -> bool:
        if self.any_peer:
            return True
        try:
            address = ipaddress.ip_address(peer)
        except ValueError:
            return True  # a UNIX socket has no address; gunicorn trusts it likewise
        mapped = getattr(address, "ipv4_mapped", None)
        return address in self.allowed or (mapped is not None and mapped in self.allowed)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if self.trusts(environ.get("REMOTE_ADDR") or ""):
            return self.forwarded(environ, start_response)
        return self.app(environ, start_response)
