"""The one JSON encoding of responses and the canonical form used to compare request bodies."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson


def dump(document: Any) -> bytes:
    """Compact UTF-8 JSON, key order as built: what clients receive and replays repeat."""
    return orjson.dumps(document)


def body_hash(body: Any) -> str:
    """SHA-256 of the body as parsed JSON with sorted keys: equal JSON, equal hash.

    orjson gives the bytes `json.dumps(sort_keys=True, ensure_ascii=False, compact)` gives
    for what a valid body holds (strings, integers, booleans, null), so keys stored before
    the switch still match; anything orjson refuses takes the standard library.
    """
    try:
        canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        canonical = text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(canonical).hexdigest()
