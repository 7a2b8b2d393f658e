"""The delivery-time SSRF guard (service/adapters/delivery.resolve) on the table the creation
route is tested with (tests/ssrf_hosts.py): every host a new endpoint may not name is refused
at delivery too, whatever the resolver makes of it, and public addresses in odd forms go
where they say."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import pytest
from ssrf_hosts import ALLOWED, REFUSED

from service.adapters import delivery


def _host(host: str) -> str:
    name = urlsplit(f"http://{host}/h").hostname
    assert name is not None
    return name


@pytest.mark.parametrize(("host", "address"), REFUSED)
def test_the_resolver_refuses_every_host_the_creation_route_refuses(host, address):
    with pytest.raises(delivery.Refused) as refused:
        delivery.resolve(_host(host), 80, allow_private=False)
    if address is not None:
        assert f"is {ipaddress.ip_address(address)}," in str(refused.value)


@pytest.mark.parametrize(("host", "address"), ALLOWED)
def test_the_resolver_connects_a_public_address_in_any_form_to_that_address(host, address):
    assert ipaddress.ip_address(delivery.resolve(_host(host), 80, allow_private=False)) == ipaddress.ip_address(address)


@pytest.mark.parametrize("host", ["127.1", "0x7f.1", "2130706433", "\uff11\uff12\uff17.\uff10.\uff10.\uff11", "localhost"])
def test_with_private_addresses_allowed_the_resolver_gives_loopback(host):
    assert ipaddress.ip_address(delivery.resolve(_host(host), 80, allow_private=True)).is_loopback


def test_a_post_to_an_odd_form_of_loopback_is_refused_and_never_connects():
    result = delivery.post("http://0x7f.1:9/h", b"{}", {}, timeout=1.0, allow_private=False)
    assert (result.outcome, result.status_code) == ("refused", None)
    assert result.error == "0x7f.1 is 127.0.0.1, a loopback, private, link-local or reserved address"


def test_a_post_to_an_internationalised_name_sends_its_ascii_form_in_host(monkeypatch):
    """The name is resolved as IDNA reads it, and `Host` carries its ASCII (punycode) form:
    a header is ASCII, and the name itself could not be encoded into the request."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    hosts: list[str | None] = []

    class Receiver(BaseHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

        def do_POST(self) -> None:
            hosts.append(self.headers["Host"])
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> object:
        return real("127.0.0.1" if host == "\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444" else host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    port = server.server_address[1]
    try:
        result = delivery.post(f"http://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444:{port}/h", b"{}", {},
                               timeout=2.0, allow_private=True)
    finally:
        server.shutdown()
        server.server_close()
    assert (result.outcome, result.status_code, result.error) == ("delivered", 204, None)
    assert hosts == [f"xn--e1afmkfd.xn--p1ai:{port}"]
