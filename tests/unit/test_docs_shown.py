"""The check of what a document shows a command printing (tests/integration/shown_output.py):
it accepts what was printed and rejects a shown line that differs."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from shown_output import mismatch  # noqa: E402

PRINTED = '{"id":"rnd_01JX","players":[{"id":"a","points":49},{"id":"b","points":-1}],"status":"ok"}\n'


def test_shown_json_fields_with_patterns_and_more_match():
    assert mismatch('{"id": "rnd_...", "players": [{"id": "a", "points": 49, ...}, ...], ...}', PRINTED) is None


def test_a_status_is_checked_where_the_command_prints_it_last():
    # curl -s -w '\n%{http_code}\n': the body, then the status on a line of its own
    shown = '{"id": "rnd_...", ...}\n201'
    assert mismatch(shown, PRINTED + "201\n") is None
    assert mismatch(shown, PRINTED + "409\n") == "shown the HTTP status 201 as the last line, printed '409'"
    assert mismatch('{"id": "rnd_...", "status": "failed", ...}\n201', PRINTED + "201\n") == (
        "$.status: shown 'failed', printed 'ok'"
    )


def test_a_status_in_front_of_json_that_curl_does_not_print_is_caught():
    # the docs once showed `# 201 {...}` after a curl that prints the body alone
    assert mismatch('201 {"id": "rnd_...", ...}', PRINTED) == (
        "shown a leading HTTP status 201 that the command does not print "
        "(curl prints one only with -w '%{http_code}'): " + repr(PRINTED)
    )


def test_a_wrong_value_is_caught_and_named():
    assert mismatch('{"id": "rnd_...", "status": "failed", ...}', PRINTED) == "$.status: shown 'failed', printed 'ok'"


def test_a_key_the_command_does_not_print_is_caught():
    # as docs/webhooks.md once showed a secret after a command that prints none
    assert mismatch('{"id": "rnd_...", ..., "secret": "whsec_..."}', PRINTED) == (
        "$: no key 'secret' (printed keys ['id', 'players', 'status'])"
    )


def test_without_dots_the_object_must_hold_exactly_the_shown_keys():
    assert mismatch('{"id": "rnd_...", "status": "ok"}', PRINTED) == (
        "$: printed more keys than shown, with no `...`: ['players']"
    )


def test_an_object_left_open_on_the_last_shown_line_may_hold_more():
    assert mismatch('{"id": "rnd_01JX", "players": [{"id": "a",', PRINTED) is None
    assert mismatch('{"id": "rnd_01JX", "players": [{"id": "c",', PRINTED) == (
        '$.players: no member matching {"id": "c", ...} (in order)'
    )


def test_text_is_compared_with_the_last_lines_printed():
    printed = "--- progress\n/problems/conflict\n"
    assert mismatch("/problems/conflict", printed) is None
    assert mismatch("/problems/precondition-failed", printed) == (
        "shown ['/problems/precondition-failed'], printed ['/problems/conflict']"
    )
    assert mismatch("ok: 2 records of cl_... verified", "ok: 2 records of cl_9 verified\n") is None
    assert mismatch("ok: 2 records of cl_... verified", "ok: 3 records of cl_9 verified\n") is not None


def test_a_text_block_is_the_whole_output():
    assert mismatch("a\n...\nd", "a\nb\nc\nd\n", whole=True) is None
    assert mismatch("b\nc", "a\nb\nc\n", whole=True) == "shown ['b', 'c'], printed ['a', 'b', 'c']"


def test_a_placeholder_in_angle_brackets_matches_any_text():
    assert mismatch('{"deadline": "<the start + 30 s>"}', '{"deadline": "2026-12-02T02:26:47.705Z"}') is None
    assert mismatch("webhook <id> disabled", "webhook whk_1 enabled") is not None
