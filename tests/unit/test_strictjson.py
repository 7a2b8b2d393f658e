"""The strict reader's nesting check: the same answer as a character-by-character scan, in
time linear in the text, whatever the text holds."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service import strictjson
from service.strictjson import MAX_DEPTH, MalformedJSON


def scanned_depth_ok(text: str, limit: int) -> bool:
    """The reference: brackets outside strings, read a character at a time."""
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


@settings(max_examples=500)
@given(st.text(alphabet='[]{}"\\a\n', max_size=200), st.integers(min_value=0, max_value=6))
def test_the_nesting_check_agrees_with_a_scan_of_every_character(text, limit):
    assert strictjson._depth_ok(text, limit) == scanned_depth_ok(text, limit)


# Each was quadratic or worse in the pattern that needed a string's closing quote: tried
# again from every quote inside an unclosed string (the first took 16.6 s).
HOSTILE = [
    '{"a":' + "[" * 33 + '"' + '\\"' * 32_000,
    "[" * 33 + '"' * 64_000,
    "[" * 33 + '"' + "\\" * 64_000,
    "[" * 33 + ('"' + "\\\"" * 100) * 300,
    "[]" * 32_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t[:12]) + f"..{len(t)}")
def test_a_hostile_body_within_the_size_limit_is_refused_in_milliseconds(text):
    assert len(text.encode()) <= 64 * 1024
    began = time.process_time()
    with pytest.raises(MalformedJSON):
        strictjson.loads(text.encode())
    # milliseconds as written; the bound leaves two orders of magnitude for a loaded machine
    assert time.process_time() - began < 0.5


def test_an_unclosed_string_hides_no_bracket_from_the_check():
    assert not strictjson._depth_ok("[" * (MAX_DEPTH + 1) + '"', MAX_DEPTH)
    assert strictjson._depth_ok('"' + "[" * 40, MAX_DEPTH)  # inside the (unclosed) string
