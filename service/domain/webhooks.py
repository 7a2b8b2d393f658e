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
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from .errors import CapsaError

SETTLED = "round.settled"
VOIDED = "round.voided"
FINISHED = "banting.game.finished"
ALL = "*"
# The order of a record's events (a finished game: settled first).
TYPES = (SETTLED, FINISHED, VOIDED)
_SUFFIX = {SETTLED: "settled", FINISHED: "finished", VOIDED: "voided"}
_BY_SUFFIX = {v: k for k, v in _SUFFIX.items()}
RANK = {SETTLED: 0, FINISHED: 1, VOIDED: 0}
_ULID = "[0-9A-HJKMNP-TV-Z]{26}"
EVENT_ID = re.compile(rf"evt_({_ULID})_(settled|finished|voided)")
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32


class InvalidWebhook(CapsaError):
    """A webhook URL, event list or schedule the service cannot use."""


@dataclass(frozen=True, slots=True)
class EventRef:
    """What an event id names: the round, and the type."""

    round_id: str
    type: str


def types_of(kind: str, game: str | None) -> tuple[str, ...]:
    """The event types of a chain record (`kind` round or void; `game` of a round)."""
    if kind == "void":
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
        steps.append(float(m.group(1)) * _UNITS[m.group(2) or "s"])
    if not steps:
        raise InvalidWebhook(f"retry schedule {text!r} has no steps")
    return tuple(steps)


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
    if not allow_private:
        host = parts.hostname
        if host == "localhost" or host.endswith(".localhost"):
            raise InvalidWebhook(f"url {url!r} points at this machine", field="url")
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None  # a name: checked on each resolved address at delivery time
        if address is not None and refused_address(address):
            raise InvalidWebhook(
                f"url {url!r} is a loopback, private or link-local address", field="url"
            )
    return parts


def refused_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Addresses a webhook must not reach unless private ones are allowed: loopback,
    private, link-local, multicast, reserved, unspecified (IPv4-mapped IPv6 as its IPv4)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return bool(
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
    )
