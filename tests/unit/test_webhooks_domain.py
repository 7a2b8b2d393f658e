"""Webhook domain rules: event ids, Standard Webhooks signatures (checked by the reference
package), the retry schedule and its jitter, and the addresses a delivery may reach."""

from __future__ import annotations

import ipaddress
import random
import socket
from datetime import UTC, datetime
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ssrf_hosts import ALLOWED, REFUSED
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from service.domain import webhooks as hooks
from service.domain.errors import FieldError

ULID = st.text(alphabet="0123456789ABCDEFGHJKMNPQRSTVWXYZ", min_size=26, max_size=26)


@given(ULID, st.sampled_from(hooks.TYPES))
def test_an_event_id_names_its_round_and_type_and_parses_back(ulid, type_):
    eid = hooks.event_id(f"rnd_{ulid}", type_)
    assert hooks.parse_event_id(eid) == hooks.EventRef(f"rnd_{ulid}", type_)


@pytest.mark.parametrize("text", ["evt_", "evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5", "evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_paid",
                                  "evt_01JDX8Q4N6V2C3M5B7Z9K1T3WU_settled", "rnd_01JDX8Q4N6V2C3M5B7Z9K1T3W5",
                                  "evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled\n"])
def test_anything_else_is_not_an_event_id(text):
    assert hooks.parse_event_id(text) is None


def test_a_record_has_the_types_of_its_kind_and_game():
    assert hooks.types_of("round", "susun") == ("round.settled",)
    assert hooks.types_of("round", "banting") == ("round.settled", "banting.game.finished")
    assert hooks.types_of("void", None) == ("round.voided",)


@settings(deadline=None, max_examples=200)
@given(st.binary(min_size=24, max_size=64), st.binary(max_size=2000).map(lambda b: b.hex().encode()),
       st.integers(0, 2**31))
def test_the_standardwebhooks_package_accepts_every_signature(key, body, shift):
    secret = hooks.new_secret(key)
    now = int(datetime.now(UTC).timestamp())
    msg_id = "evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled"
    header = hooks.signature_header([secret], msg_id, now, body)
    headers = {"webhook-id": msg_id, "webhook-timestamp": str(now), "webhook-signature": header}
    Webhook(secret).verify(body, headers, json_parse=False)
    other = hooks.new_secret(bytes((b + 1) % 256 for b in key))
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify(body, headers, json_parse=False)
    # During a rotation the header carries both: a receiver with either secret accepts it.
    both = {**headers, "webhook-signature": hooks.signature_header([other, secret], msg_id, now, body)}
    Webhook(secret).verify(body, both, json_parse=False)
    Webhook(other).verify(body, both, json_parse=False)


def test_a_signature_is_the_spec_hmac_of_id_timestamp_and_body():
    # Standard Webhooks' own example: secret, id, timestamp, payload and signature.
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    assert hooks.signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == (
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )


def test_the_default_schedule_retries_for_about_three_days():
    steps = hooks.parse_schedule(hooks.DEFAULT_SCHEDULE)
    assert len(steps) == 12 and 2.7 * 86400 < sum(steps) < 3 * 86400
    assert all(a < b for a, b in zip(steps, steps[1:]) if b < 86400)  # growing


@pytest.mark.parametrize(("text", "steps"), [("0.1,0.2", (0.1, 0.2)), ("5s, 2m ,1h,1d,250ms", (5, 120, 3600, 86400, 0.25))])
def test_a_schedule_takes_units(text, steps):
    assert hooks.parse_schedule(text) == pytest.approx(steps)


@pytest.mark.parametrize(("text", "step"), [("", ""), ("5x", "5x"), ("-1", "-1"), ("1,,2", ""), ("5s,soon", "soon")])
def test_a_bad_schedule_is_refused_quoting_the_step(text, step):
    with pytest.raises(hooks.InvalidWebhook) as refused:
        hooks.parse_schedule(text)
    assert str(refused.value) == f"retry step {step!r} is not a number with an optional unit (ms, s, m, h, d)"


@given(st.integers(1, 12), st.integers(0, 2**32))
def test_each_retry_waits_its_step_within_twenty_percent(failures, seed):
    steps = hooks.parse_schedule(hooks.DEFAULT_SCHEDULE)
    delay = hooks.retry_delay(steps, failures, random.Random(seed))
    assert delay is not None and 0.8 * steps[failures - 1] <= delay <= 1.2 * steps[failures - 1]


def test_the_jitter_spreads_retries_and_the_schedule_ends():
    steps = (100.0,)
    rng = random.Random(3)
    delays = [hooks.retry_delay(steps, 1, rng) for _ in range(500)]
    assert len({round(d or 0) for d in delays}) > 30  # not one instant for everyone
    assert hooks.retry_delay(steps, 2, rng) is None and hooks.retry_delay(steps, 0, rng) is None


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "0.0.0.0", "224.0.0.1",
     "::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "100.64.0.1", "240.0.0.1",
     "::", "ff02::1", "4000::1", "fec0::1",
     "192.88.99.1", "::ffff:192.88.99.1"],  # 6to4 relay anycast (deprecated by RFC 7526): global in Python 3.11
)
def test_private_loopback_link_local_and_reserved_addresses_are_refused(address):
    assert hooks.refused_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address):
    assert not hooks.refused_address(ipaddress.ip_address(address))


LONG_URL = "https://a.example/" + "x" * (hooks.MAX_URL - len("https://a.example/"))  # exactly MAX_URL


@pytest.mark.parametrize(
    ("url", "why"),
    [("ftp://a.example/", "must be http or https"), ("javascript:alert(1)", "must be http or https"),
     ("https://", "has no host"), ("https://u:p@a.example/", "must not carry credentials"),
     ("https://u@a.example/", "must not carry credentials"), ("https://:p@a.example/", "must not carry credentials"),
     ("https://a.example/#x", "must not have a fragment"), ("https://a.example:0/", "has port 0"),
     ("https://a.example:99999/", "is not a URL: Port out of range 0-65535"),
     ("http://[::1/", "is not a URL: Invalid IPv6 URL"),
     ("https://\u00e9" + "x" * 63 + ".example/", "has a host IDNA cannot encode (label empty or too long)"),
     # ASCII names too: the resolver encodes every name with IDNA, so these were taken and
     # then failed at every delivery until the endpoint was disabled.
     ("http://" + "a" * 64 + ".com/x", "has a host IDNA cannot encode (label empty or too long)"),
     ("http://a..b/x", "has a host IDNA cannot encode (label empty or too long)")],
)
def test_a_url_that_is_not_a_plain_http_endpoint_is_refused_naming_url_and_why(url, why):
    with pytest.raises(hooks.InvalidWebhook) as raised:
        hooks.check_url(url, allow_private=True)
    assert raised.value.errors == [FieldError("url", f"url {url!r} {why}")]


def test_a_url_may_be_as_long_as_max_url_and_no_longer():
    assert len(LONG_URL) == hooks.MAX_URL == 2048
    assert hooks.check_url(LONG_URL, allow_private=False) == urlsplit(LONG_URL)
    with pytest.raises(hooks.InvalidWebhook) as raised:
        hooks.check_url(LONG_URL + "x", allow_private=True)
    assert raised.value.errors == [FieldError("url", "url is longer than 2048 characters")]


@pytest.mark.parametrize("url", ["http://a.example/h", "https://a.example:1/h?x=1", "HTTPS://a.example/", "https://a.example/#",
                                 "http://" + "a" * 63 + ".example./h", "http://A.Example/"])
def test_a_plain_http_or_https_url_is_taken_as_split(url):
    assert hooks.check_url(url, allow_private=False) == urlsplit(url)


@pytest.mark.parametrize(("url", "why"), [
    ("http://127.0.0.1/h", "is 127.0.0.1, a loopback, private, link-local or reserved address"),
    ("http://[::1]:8080/h", "is ::1, a loopback, private, link-local or reserved address"),
    ("http://10.1/h", "is 10.0.0.1, a loopback, private, link-local or reserved address"),
    ("http://localhost/h", "is this machine (localhost)"), ("http://api.localhost/h", "is this machine (localhost)"),
])
def test_a_literal_private_address_is_refused_unless_allowed(url, why):
    with pytest.raises(hooks.InvalidWebhook) as raised:
        hooks.check_url(url, allow_private=False)
    assert raised.value.errors == [FieldError("url", f"url {url!r}: its host {why}")]
    assert hooks.check_url(url, allow_private=True) == urlsplit(url)


def test_a_public_url_is_allowed_without_private_addresses():
    url = "https://wallet.example.com/hook?x=1"
    assert hooks.check_url(url, allow_private=False) == urlsplit(url)


# -- the address policy: IPv4 in any form, IPv4 inside IPv6 ------------------------------------


def _numeric(text: str) -> ipaddress.IPv4Address | None:
    """What getaddrinfo (the delivery resolver) reads `text` as, without asking DNS."""
    try:
        infos = socket.getaddrinfo(text, 80, socket.AF_INET, socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    except (socket.gaierror, UnicodeError):
        return None
    return ipaddress.IPv4Address(infos[0][4][0])


@settings(deadline=None, max_examples=3000)
@given(st.text(alphabet="0123456789abcdefxX.", max_size=24)
       | st.lists(st.integers(0, 2**32), min_size=1, max_size=4).map(lambda vs: ".".join(map(str, vs)))
       | st.lists(st.integers(0, 2**32), min_size=1, max_size=4).map(lambda vs: ".".join(map(hex, vs)))
       | st.lists(st.integers(0, 2**32), min_size=1, max_size=4).map(lambda vs: ".".join(f"0{v:o}" for v in vs)))
def test_inet_aton_reads_a_string_exactly_as_the_resolver_does(text):
    assert hooks.inet_aton(text) == _numeric(text)


@pytest.mark.parametrize(("text", "address"), [
    ("127.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("017700000001", "127.0.0.1"), ("2130706433", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"), ("1.2.65535", "1.2.255.255"), ("4294967295", "255.255.255.255"),
    ("4294967296", None), ("1.2.65536", None), ("0x100.1", None), ("08", None), ("0x", None), ("1.", None),
    ("1..2", None), ("1.2.3.4.5", None), ("1.2.3.4.0", None), ("0X7F.1", "127.0.0.1"), ("1_0.1", None), ("\u0661.1", None), (" 1.2.3.4", None), ("1.2.3.4 x", None),
    # each leading part's bound, 255, is a byte; 256 is not
    ("255.1", "255.0.0.1"), ("255.255.255.255", "255.255.255.255"), ("0xff.0377.255.0", "255.255.255.0"),
    ("256.1", None), ("1.256.1", None), ("1.2.256.1", None),
])
def test_inet_aton_takes_every_c_library_form_and_nothing_else(text, address):
    assert hooks.inet_aton(text) == (None if address is None else ipaddress.IPv4Address(address))


@pytest.mark.parametrize(("host", "address"), REFUSED)
def test_every_form_of_a_refused_address_or_a_localhost_name_is_refused_as_a_host(host, address):
    name = urlsplit(f"http://{host}/").hostname
    assert name is not None and hooks.refused_host(name) is not None
    if address is not None:
        assert hooks.literal_address(name) == ipaddress.ip_address(address)
        assert f"is {ipaddress.ip_address(address)}," in hooks.refused_host(name)


@pytest.mark.parametrize(("host", "address"), ALLOWED)
def test_a_public_address_in_any_form_is_not_refused_as_a_host(host, address):
    name = urlsplit(f"http://{host}/").hostname
    assert name is not None and hooks.refused_host(name) is None
    assert hooks.literal_address(name) == ipaddress.ip_address(address)


@pytest.mark.parametrize(("address", "embedded"), [
    ("::ffff:10.0.0.1", ["10.0.0.1"]),
    ("64:ff9b::10.0.0.1", ["10.0.0.1"]),
    ("::10.0.0.1", ["10.0.0.1"]),
    ("2002:a00:1::5", ["10.0.0.1"]),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", ["65.54.227.120", "192.0.2.45"]),  # RFC 4380's example
    ("2606:4700:4700::1111", []),
])
def test_an_ipv6_address_gives_the_ipv4_addresses_it_carries(address, embedded):
    assert hooks.embedded_ipv4(ipaddress.IPv6Address(address)) == tuple(map(ipaddress.IPv4Address, embedded))


@pytest.mark.parametrize("address", [
    "fec0::1", "feff::1",  # site-local, which Python 3.11 counts as global
    "2002:7f00:1::", "2002:a00:1::", "2002:a9fe:a9fe::",  # 6to4 of refused IPv4
    "2001:0:808:808:0:f7f7:80ff:fffe",  # Teredo
    "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b:1::808:808",  # NAT64
    "::808:808",  # IPv4-compatible
])
def test_ipv6_addresses_reaching_a_refused_ipv4_or_a_deprecated_range_are_refused(address):
    assert hooks.refused_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["2002:808:808::1", "64:ff9b::808:808"])
def test_6to4_and_nat64_of_a_public_ipv4_are_allowed(address):
    assert not hooks.refused_address(ipaddress.ip_address(address))


def test_a_host_is_folded_as_the_resolver_reads_it_and_other_letters_are_kept():
    assert hooks.folded_host("\uff11\uff12\uff17\u3002\u0660.\u0660.\u0661") == "127.0.0.1"
    assert hooks.folded_host("Caf\u00e9.Example.COM") == "caf\u00e9.example.com"


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST.", "api.localhost"])
def test_a_localhost_name_is_refused_saying_so(host):
    assert hooks.refused_host(host) == "is this machine (localhost)"
