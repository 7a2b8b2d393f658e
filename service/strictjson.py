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
# The largest request body the API reads (413 past it, docs/limits.md), and so the largest
# document a command reads as one (`capsa score FILE`).
MAX_BODY = 64 * 1024


class MalformedJSON(ValueError):
    """The text is not acceptable JSON; the message says why."""


def _no_constant(name: str) -> Any:
    raise MalformedJSON(f"{name} is not JSON")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise MalformedJSON(f"the number {text[:40]} is too large for a double")
    return value


# Digits of the largest double's integer part: an integer with more is larger, and past
# 4,300 digits Python refuses to convert it at all (its message was the answer's detail).
_DOUBLE_DIGITS = len(str(int(sys.float_info.max)))


def _int(text: str) -> int:
    if len(text) - text.startswith("-") <= _DOUBLE_DIGITS:  # else not converted at all
        value = int(text)
        if abs(value) <= sys.float_info.max:
            return value
    raise MalformedJSON(f"the number {text[:40]}... is too large for a double")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise MalformedJSON(f"duplicate key {key!r}")
        out[key] = value
    return out


# A string, or an unclosed one to the end of the text (which the parser then refuses): each
# quote outside a string starts one match that never backtracks, so the cut is linear. (A
# pattern that needed the closing quote was tried again from every quote inside an unclosed
# string: 16 s of CPU for 64 KiB of `\\"`.)
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def _depth_ok(text: str, limit: int) -> bool:
    """True when brackets outside strings never nest deeper than `limit`.

    The strings and everything but brackets are cut out with regular expressions (C), so
    the loop runs over the brackets only."""
    if text.count("[") + text.count("{") <= limit:
        return True
    depth = 0
    for ch in _NOT_BRACKETS.sub("", _STRINGS.sub("", text)):
        if ch in "[{":
            depth += 1
            if depth > limit:
                return False
        else:
            depth -= 1
    return True


def loads(data: bytes | str) -> Any:
    """Parse strict JSON, raising MalformedJSON with a reason."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedJSON(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    if data.startswith("\ufeff"):  # JSON has none (RFC 8259 8.1); Python's message advised a codec
        raise MalformedJSON("not JSON: the body begins with a byte order mark (U+FEFF); send it without one")
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
