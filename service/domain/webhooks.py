"""Settlement events and their webhooks: event types and ids, Standard Webhooks signatures,
the retry schedule, and which addresses a delivery may reach.

An event is a chain record seen through a type: a round record is `round.settled` (and, for
a finished Big Two game, `banting.game.finished` too), a void record is `round.voided`. Its
id is derived from the round it is about and its type, so every retry, every redelivery and
`GET /v1/events` name it the same way, and no row is written for it beyond the record.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import random
import re
import stringprep
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import SplitResult, urlsplit

from service.domain.audit import RecordKind

from .errors import CapsaError
from .settings import MAX_DURATION_S


class EventType(StrEnum):
    """What an event says happened (its `type`; an endpoint subscribes to these or `*`)."""

    SETTLED = "round.settled"  # a round stored (a finished Big Two game's too)
    VOIDED = "round.voided"
    FINISHED = "banting.game.finished"  # beside its round's `round.settled`


SETTLED, VOIDED, FINISHED = EventType.SETTLED, EventType.VOIDED, EventType.FINISHED
ALL = "*"  # subscribes to every type
# The order of a record's events (a finished game: settled first).
TYPES = (SETTLED, FINISHED, VOIDED)
_SUFFIX: dict[str, str] = {SETTLED: "settled", FINISHED: "finished", VOIDED: "voided"}
_BY_SUFFIX = {suffix: EventType(type_) for type_, suffix in _SUFFIX.items()}
RANK: dict[str, int] = {SETTLED: 0, FINISHED: 1, VOIDED: 0}
ULID = "[0-9A-HJKMNP-TV-Z]{26}"  # Crockford base32, as the service's ids carry it after `rnd_`
EVENT_ID_SUFFIXES = "|".join(_SUFFIX.values())
EVENT_ID = re.compile(rf"evt_({ULID})_({EVENT_ID_SUFFIXES})")


class AttemptOutcome(StrEnum):
    """How one delivery attempt ended (a 2xx in time is `delivered`; every other is retried)."""

    DELIVERED = "delivered"
    HTTP_ERROR = "http_error"  # an answer, not 2xx (a redirect too)
    TIMEOUT = "timeout"
    CONNECTION_ERROR = "connection_error"
    REFUSED = "refused"  # the address guard refused every address the host resolved to


class DisabledReason(StrEnum):
    """Why an endpoint sends nothing (`enabled` false)."""

    DISABLED = "disabled"  # PATCH {"enabled": false}
    FAILING = "failing"  # every attempt has failed for 3 days
    # DELETE of an endpoint with more deliveries or attempts than one batch: gone from the API
    # at once; the dispatchers delete its backlog a batch at a time, then its row.
    DELETED = "deleted"


class DeliveryState(StrEnum):
    """Where one event's delivery to one endpoint stands."""

    PENDING = "pending"  # due at its next attempt's time (a retry included)
    DELIVERED = "delivered"  # an outcome only: a delivered delivery's row is deleted
    FAILED = "failed"  # the retry schedule used up; a redelivery makes it pending again
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32


class InvalidWebhook(CapsaError):
    """A webhook URL, event list or schedule the service cannot use."""


@dataclass(frozen=True, slots=True)
class EventRef:
    """What an event id names: the round, and the type."""

    round_id: str
    type: EventType


def types_of(kind: str, game: str | None) -> tuple[EventType, ...]:
    """The event types of a chain record (`kind` round or void; `game` of a round)."""
    if kind == RecordKind.VOID:
        return (VOIDED,)
    return (SETTLED, FINISHED) if game == "banting" else (SETTLED,)


def event_id(round_id: str, type_: str) -> str:
    """`evt_<the round's ULID>_<settled|finished|voided>`.

    >>> event_id("rnd_01JDX0000000000000000000AB", "round.voided")
    'evt_01JDX0000000000000000000AB_voided'
    """
    return f"evt_{round_id.removeprefix('rnd_')}_{_SUFFIX[type_]}"


def parse_event_id(text: str) -> EventRef | None:
    """The round and type an event id names, or None when it is not an event id."""
    m = EVENT_ID.fullmatch(text)
    if m is None:
        return None
    return EventRef(f"rnd_{m.group(1)}", _BY_SUFFIX[m.group(2)])


def subscribed(events: Sequence[str], type_: str) -> bool:
    return ALL in events or type_ in events


# -- signatures (Standard Webhooks) ------------------------------------------------------------


def new_secret(raw: bytes) -> str:
    """`whsec_` + base64 of the key bytes (give it SECRET_BYTES random bytes)."""
    return SECRET_PREFIX + base64.b64encode(raw).decode()


def secret_key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` under one secret."""
    mac = hmac.new(secret_key(secret), f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode()


def signature_header(secrets: Sequence[str], msg_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` value: one signature per live secret, space-separated."""
    return " ".join(signature(s, msg_id, timestamp, body) for s in secrets)


# -- the retry schedule --------------------------------------------------------------------------

# Delays after the first attempt fails, then after each retry: about 2.8 days in all before
# jitter, so an event is retried for up to 3 days (the endpoint is disabled at 3 days).
DEFAULT_SCHEDULE = "5s,30s,2m,10m,30m,1h,2h,4h,8h,12h,16h,24h"
JITTER = 0.2  # each delay is drawn uniformly within +-20% of its step
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_STEP = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)?")


def parse_schedule(text: str) -> tuple[float, ...]:
    """`"5s,30s,2m"` (or plain seconds: `"0.1,0.2"`) as delays in seconds.

    >>> parse_schedule("0.1,2m,1.5h")
    (0.1, 120.0, 5400.0)
    """
    steps = []
    for part in text.split(","):
        m = _STEP.fullmatch(part.strip())
        if m is None:
            raise InvalidWebhook(f"retry step {part!r} is not a number with an optional unit (ms, s, m, h, d)")
        step = float(m.group(1)) * _UNITS[m.group(2) or "s"]
        if step > MAX_DURATION_S:
            raise InvalidWebhook(f"retry step {part!r} is longer than ten years")
        steps.append(step)
    return tuple(steps)  # never empty: split gives a part even of "", and "" is refused above


def retry_delay(schedule: Sequence[float], failures: int, rng: random.Random) -> float | None:
    """Seconds to wait after the `failures`-th failed attempt, jittered; None when the
    schedule is used up (the delivery has failed for good)."""
    if failures < 1 or failures > len(schedule):
        return None
    step = schedule[failures - 1]
    return step * rng.uniform(1 - JITTER, 1 + JITTER)


# -- where a delivery may go ---------------------------------------------------------------------

MAX_URL = 2048


def check_url(url: str, allow_private: bool) -> SplitResult:
    """An http(s) URL with a host, no credentials and no fragment; a literal address must be
    public unless `allow_private`. Raises InvalidWebhook naming the field `url`."""
    if len(url) > MAX_URL:
        raise InvalidWebhook(f"url is longer than {MAX_URL} characters", field="url")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidWebhook(f"url {url!r} is not a URL: {exc}", field="url") from exc
    if parts.scheme not in ("http", "https"):
        raise InvalidWebhook(f"url {url!r} must be http or https", field="url")
    if not parts.hostname:
        raise InvalidWebhook(f"url {url!r} has no host", field="url")
    if parts.username is not None or parts.password is not None:
        raise InvalidWebhook(f"url {url!r} must not carry credentials", field="url")
    if parts.fragment:
        raise InvalidWebhook(f"url {url!r} must not have a fragment", field="url")
    if port == 0:
        raise InvalidWebhook(f"url {url!r} has port 0", field="url")
    try:
        ascii_host(parts.hostname)
    except UnicodeError as exc:
        raise InvalidWebhook(f"url {url!r} has a host IDNA cannot encode ({exc.__cause__ or exc})", field="url") from exc
    # A name that passes is resolved at each delivery, and every address it resolves to checked.
    reason = None if allow_private else refused_host(parts.hostname)
    if reason is not None:
        raise InvalidWebhook(f"url {url!r}: its host {reason}", field="url")
    return parts


# -- the address policy: one for creation and delivery -------------------------------------------

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# Label separators that IDNA (and so the resolver, which encodes a name with it) reads as ".".
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
# One part of an IPv4 address as inet_aton reads it: hex, octal (a leading 0) or decimal.
_INET_PART = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052's well-known prefix: the IPv4 in the last 32 bits
_REFUSED_V6 = (
    ipaddress.IPv6Network("::/96"),  # IPv4-compatible (deprecated by RFC 4291): never routed
    ipaddress.IPv6Network("64:ff9b:1::/48"),  # local-use translation (RFC 8215): the site decides the rest
    ipaddress.IPv6Network("fec0::/10"),  # site-local (deprecated by RFC 3879), is_global in Python 3.11
)
_REFUSED_V4 = (
    # 6to4 relay anycast (deprecated by RFC 7526): whichever relay is nearest answers, is_global
    # in Python 3.11.
    ipaddress.IPv4Network("192.88.99.0/24"),
    # IETF protocol assignments (RFC 6890): the dummy address 192.0.0.8 and the NAT and DS-Lite
    # addresses are no receiver's, and Python's releases disagree on which of them is_global.
    ipaddress.IPv4Network("192.0.0.0/24"),
)


def ascii_host(host: str) -> str:
    """`host` as the resolver and the `Host` header take it: an internationalised name as
    IDNA spells it (`xn--...`), an ASCII one as it is. UnicodeError for a name IDNA cannot
    encode (a label empty or over 63 characters), ASCII or not: the resolver encodes every
    name it is given so.

    >>> ascii_host("\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444")
    'xn--e1afmkfd.xn--p1ai'
    """
    return host.encode("idna").decode("ascii")  # an ASCII name comes back as it is


def folded_host(host: str) -> str:
    """`host` as the resolver reads it: what IDNA's nameprep maps to nothing dropped (soft
    hyphen, zero-width space and joiners: RFC 3454's table B.1), compatibility forms folded
    (NFKC, as nameprep does: fullwidth digits, `①`), IDNA's other full stops as `.`, every
    decimal digit of any script as its ASCII digit, lower case.

    >>> folded_host("\uff11\uff12\uff17\u3002\u0660.\u0660.\u0661")
    '127.0.0.1'
    >>> folded_host("12\u00ad7.0.0.1\u200b")
    '127.0.0.1'
    """
    text = "".join(c for c in host if c.isascii() or not stringprep.in_table_b1(c))
    text = unicodedata.normalize("NFKC", text).translate(_DOTS)
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() and not c.isascii() else c for c in text).lower()


def inet_aton(text: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address `text` is in any form the C library's inet_aton (and so getaddrinfo)
    reads: one to four parts, each hex, octal or decimal, the last one filling the bytes left.

    >>> [str(inet_aton(t)) for t in ("127.1", "0x7f.1", "017700000001", "2130706433", "0177.0.0.1")]
    ['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']
    """
    parts = text.split(".")
    if len(parts) > 4 or not all(_INET_PART.fullmatch(part) for part in parts):
        return None
    values = [int(p, 16) if p[1:2] in ("x", "X") else int(p, 8) if p.startswith("0") else int(p) for p in parts]
    *head, last = values
    if any(v > 255 for v in head) or last >= 1 << 8 * (4 - len(head)):
        return None
    return ipaddress.IPv4Address(sum(v << 8 * (3 - i) for i, v in enumerate(head)) + last)


def literal_address(host: str) -> Address | None:
    """The address a URL's host names when it is an address in any form the resolver would
    read as one (after folded_host, a trailing dot dropped); None for a name."""
    text = folded_host(host)
    text = text[:-1] if text.endswith(".") else text
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return inet_aton(text)


def refused_host(host: str) -> str | None:
    """Why no webhook may reach `host`, whatever it resolves to: a localhost name, or an
    address (in any form literal_address reads) that refused_address refuses. None for a
    public address, or a name (to be resolved and checked on each delivery). The creation
    check and the delivery resolver both ask this, so they cannot disagree.

    >>> refused_host("0x7f.1")
    'is 127.0.0.1, a loopback, private, link-local or reserved address'
    >>> refused_host("wallet.example.com") is None
    True
    """
    name = folded_host(host).removesuffix(".")
    if name == "localhost" or name.endswith(".localhost"):
        return "is this machine (localhost)"
    address = literal_address(host)
    if address is not None and refused_address(address):
        return f"is {address}, a loopback, private, link-local or reserved address"
    return None


def embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries: IPv4-mapped, NAT64 (64:ff9b::/96),
    IPv4-compatible (::/96), 6to4 (2002::/16) and Teredo (2001::/32, server and client)."""
    found = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
    if address in _NAT64 or address in _REFUSED_V6[0]:
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return tuple(a for a in found if a is not None)


def refused_address(address: Address) -> bool:
    """Whether a webhook must not reach `address` (unless private ones are allowed).

    Refused: loopback, private, link-local, multicast, reserved, unspecified, site-local and
    anything else not global. An IPv6 address that only translates an IPv4 one
    (IPv4-mapped, NAT64's well-known prefix) is judged as that IPv4; any other carrying one
    (6to4, Teredo) is refused when it or its IPv4 is; IPv4-compatible and local-use NAT64
    addresses always are.
    """
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return refused_address(address.ipv4_mapped)
        if address in _NAT64:
            return refused_address(embedded_ipv4(address)[-1])
        if any(address in network for network in _REFUSED_V6):
            return True
        if any(refused_address(v4) for v4 in embedded_ipv4(address)):
            return True
    elif any(address in network for network in _REFUSED_V4):
        return True
    # Loopback, private, link-local and unspecified addresses are never global in the
    # ipaddress module's tables, so `not is_global` refuses them; multicast, IPv6 reserved
    # (4000::/3 ...), IPv6 site-local (fec0::/10) and 6to4 relay anycast addresses can be
    # "global" there.
    return bool(
        address.is_multicast
        or address.is_reserved
        or (isinstance(address, ipaddress.IPv6Address) and address.is_site_local)
        or not address.is_global
    )


ATTEMPT_ID_BITS = 52  # shown attempt ids are below 2^52: exact in every JSON reader (JavaScript's too)
_HALF = ATTEMPT_ID_BITS // 2
_HALF_MASK = (1 << _HALF) - 1
_ROUNDS = 4


class AttemptIds:
    """An attempt's id as shown, and back: a keyed permutation of [0, 2^52) (a balanced
    Feistel network, HMAC-SHA256 rounds). The stored ids count every client's attempts in
    one sequence; shown as they are, the gap between two of a client's own attempts told it
    how many the others made. Shown ids are stable (one key, kept by the service) and say
    nothing of order; a cursor is a shown id, turned back into the stored one.

    >>> ids = AttemptIds(b"k" * 32)
    >>> [ids.stored(ids.shown(n)) for n in (0, 1, 2, 2**52 - 1)] == [0, 1, 2, 2**52 - 1]
    True
    >>> all(0 <= ids.shown(n) < 2**52 for n in range(100)) and len({ids.shown(n) for n in range(100)}) == 100
    True
    """

    def __init__(self, key: bytes) -> None:
        self._keys = [hmac.new(key, f"capsa attempt id round {i}".encode(), hashlib.sha256).digest() for i in range(_ROUNDS)]

    def _round(self, i: int, half: int) -> int:
        digest = hmac.new(self._keys[i], half.to_bytes(4, "big"), hashlib.sha256).digest()
        return int.from_bytes(digest[:4], "big") & _HALF_MASK

    def shown(self, stored: int) -> int:
        """The id shown for the stored id `stored` (below 2^52)."""
        if not 0 <= stored < 1 << ATTEMPT_ID_BITS:
            raise ValueError(f"attempt id {stored} is past {ATTEMPT_ID_BITS} bits")
        left, right = stored >> _HALF, stored & _HALF_MASK
        for i in range(_ROUNDS):
            left, right = right, left ^ self._round(i, right)
        return (left << _HALF) | right

    def stored(self, shown: int) -> int:
        """The stored id that is shown as `shown` (below 2^52)."""
        if not 0 <= shown < 1 << ATTEMPT_ID_BITS:
            raise ValueError(f"attempt id {shown} is past {ATTEMPT_ID_BITS} bits")
        left, right = shown >> _HALF, shown & _HALF_MASK
        for i in reversed(range(_ROUNDS)):
            left, right = right ^ self._round(i, left), left
        return (left << _HALF) | right
