"""Strict JSON reading for request bodies and files: what `json.loads` lets through, refused.

NaN/Infinity, duplicate keys, numbers too large for a double (`1e400`) and nesting deeper
than `MAX_DEPTH` are malformed JSON here (400, docs/api.md#errors).
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

MAX_DEPTH = 32


class MalformedJSON(ValueError):
    """The text is not acceptable JSON; the message says why."""


def _no_constant(name: str) -> Any:
    raise MalformedJSON(f"{name} is not JSON")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise MalformedJSON(f"the number {text[:40]} is too large for a double")
    return value


def _int(text: str) -> int:
    value = int(text)
    if abs(value) > sys.float_info.max:
        raise MalformedJSON(f"the number {text[:40]}... is too large for a double")
    return value


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise MalformedJSON(f"duplicate key {key!r}")
        out[key] = value
    return out


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def _depth_ok(text: str, limit: int) -> bool:
    """True when brackets outside strings never nest deeper than `limit`.

    The strings and everything but brackets are cut out with regular expressions (C), so
    the loop runs over the brackets only; text the expressions cannot read (an unclosed
    string) takes the character-by-character scan."""
    if text.count("[") + text.count("{") <= limit:
        return True
    outside = _STRINGS.sub("", text)
    if '"' not in outside:
        depth = 0
        for ch in _NOT_BRACKETS.sub("", outside):
            if ch in "[{":
                depth += 1
                if depth > limit:
                    return False
            else:
                depth -= 1
        return True
    return _depth_scan(text, limit)


def _depth_scan(text: str, limit: int) -> bool:
    depth = 0
    in_string = escape = False
    for ch in text:
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def loads(data: bytes | str) -> Any:
    """Parse strict JSON, raising MalformedJSON with a reason."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedJSON(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    if not _depth_ok(data, MAX_DEPTH):
        raise MalformedJSON(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(
            data,
            parse_constant=_no_constant,
            object_pairs_hook=_pairs,
            parse_float=_float,
            parse_int=_int,
        )
    except MalformedJSON:
        raise
    except json.JSONDecodeError as exc:
        raise MalformedJSON(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except (RecursionError, ValueError) as exc:
        raise MalformedJSON(f"not JSON: {exc}"[:200]) from exc
