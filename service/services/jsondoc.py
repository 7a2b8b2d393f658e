"""The one JSON encoding of responses and the canonical form used to compare request bodies."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def dump(document: Any) -> bytes:
    """Compact UTF-8 JSON, key order as built: what clients receive and replays repeat."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def body_hash(body: Any) -> str:
    """SHA-256 of the body as parsed JSON with sorted keys: equal JSON, equal hash."""
    canonical = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
