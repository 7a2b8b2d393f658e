"""How a refused request value is quoted back in a problem's detail and messages."""

from __future__ import annotations

import pytest

from service.domain.errors import quoted


@pytest.mark.parametrize(("value", "shown"), [
    (True, "true"),
    (None, "null"),
    ({"a": 1}, '{"a": 1}'),
    ("caf\u00e9 \u05d0\u05d1 \U0001f468\u200d\U0001f469", '"caf\u00e9 \u05d0\u05d1 \U0001f468\u200d\U0001f469"'),  # text as sent
    ("tab\tand\nline", '"tab\\tand\\nline"'),  # JSON's own escapes
    # What would not show as itself: DEL, a C1 control, and the bidi characters that reorder
    # the message around them ("Trojan Source") are written as their JSON escapes.
    ("a\x7fb\x85c", '"a\\u007fb\\u0085c"'),
    ("IDR\u202e", '"IDR\\u202e"'),
    ("line\u2028paragraph\u2029", '"line\\u2028paragraph\\u2029"'),  # a line break in some readers
    (["\u2066x\u2069", "\u200e\u200f\u061c"], '["\\u2066x\\u2069", "\\u200e\\u200f\\u061c"]'),
])
def test_a_value_is_quoted_as_json_with_what_would_not_show_escaped(value, shown):
    assert quoted(value) == shown


def test_a_long_value_is_cut_after_its_escapes():
    assert quoted("\u202e" * 30, limit=20) == '"' + "\\u202e" * 3 + "\u2026"
