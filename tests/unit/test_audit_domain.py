"""The audit trail's pure parts: ledger lines, canonical JSON, the chain and its checks."""

from datetime import UTC, datetime

from service.domain.audit import (
    GENESIS_HASH,
    LedgerLine,
    LinkChecker,
    canonical,
    canonical_record,
    chain_hash,
    differences,
    reversal_lines,
    round_lines,
    seal,
    timestamp,
    unsealed,
)


def test_the_api_md_chain_example_hashes_as_published():
    rec = {"sequence": 1, "kind": "round", "round": "rnd_x", "created_at": "2026-11-29T10:00:00.000Z"}
    assert canonical(rec) == (
        b'{"created_at":"2026-11-29T10:00:00.000Z","kind":"round","round":"rnd_x","sequence":1}')
    assert chain_hash(GENESIS_HASH, canonical(rec)) == (
        "394bfd0230762dbdc4b71f53874e03eea5b500f98ce3232ee15a531a5c5f1d0c")


def test_round_lines_follow_the_api_order_and_sum_to_zero():
    # the guide's example: a +11000 paying 330, b -11000, house 330
    lines = round_lines([("a", 11000, 330), ("b", -11000, 0)], 330)
    assert lines == (
        LedgerLine("player:a", "settlement", 11000),
        LedgerLine("player:a", "fee", -330),
        LedgerLine("player:b", "settlement", -11000),
        LedgerLine("house", "fee", 330),
    )
    assert sum(line.amount for line in lines) == 0


def test_no_fee_lines_without_fees():
    assert round_lines([("a", 5, 0), ("b", -5, 0)], 0) == (
        LedgerLine("player:a", "settlement", 5), LedgerLine("player:b", "settlement", -5))


def test_a_void_reverses_every_line():
    lines = round_lines([("a", 11000, 330), ("b", -11000, 0)], 330)
    rev = reversal_lines(lines)
    assert [(r.account, r.kind, r.amount) for r in rev] == [
        ("player:a", "reversal", -11000), ("player:a", "reversal", 330),
        ("player:b", "reversal", 11000), ("house", "reversal", -330)]


def test_timestamps_are_hashed_with_milliseconds_in_utc():
    assert timestamp(datetime(2026, 11, 29, 10, 0, 0, 123456, tzinfo=UTC)) == "2026-11-29T10:00:00.123Z"
    assert timestamp(datetime(2026, 11, 29, 10, 0, 0)) == "2026-11-29T10:00:00.000Z"


def _chain(n):
    links, prev = [], GENESIS_HASH
    for i in range(1, n + 1):
        body = canonical({"sequence": i})
        h = chain_hash(prev, body)
        links.append((i, prev, h, body))
        prev = h
    return links


def _first_bad(links):
    checker = LinkChecker(1, GENESIS_HASH)
    for sequence, previous, hash_, body in links:
        reason = checker.check(sequence, previous, hash_, body)
        if reason is not None:
            return checker.expected, reason
    return None, None


def test_an_intact_chain_verifies():
    assert _first_bad(_chain(5)) == (None, None)


def test_a_gap_is_found_at_the_missing_sequence():
    links = _chain(5)
    assert _first_bad(links[:2] + links[3:]) == (3, "sequence 3 is missing (found 4)")


def test_changed_bytes_are_found_by_their_hash():
    links = _chain(5)
    seq, prev, h, _body = links[3]
    links[3] = (seq, prev, h, b'{"sequence":40}')
    assert _first_bad(links) == (4, "hash does not match the stored canonical bytes")


def test_a_forged_hash_is_found_at_its_record():
    links = _chain(5)
    seq, prev, _h, body = links[1]
    links[1] = (seq, prev, "f" * 64, body)
    assert _first_bad(links) == (2, "hash does not match the stored canonical bytes")


def test_a_changed_previous_hash_alone_is_found_even_when_the_hash_is_recomputed():
    # The record keeps valid-looking bytes and a hash made over the forged previous hash:
    # only the link to the record before can tell.
    links = _chain(5)
    seq, _prev, _h, body = links[2]
    forged_prev = "e" * 64
    links[2] = (seq, forged_prev, chain_hash(forged_prev, body), body)
    assert _first_bad(links) == (3, "previous_hash does not match the hash of the record before")


def test_a_record_is_sealed_with_its_sequence_as_its_last_key():
    doc = {"kind": "round", "round": "rnd_x", "created_at": "2026-11-29T10:00:00.000Z"}
    open_bytes = unsealed(doc)
    assert open_bytes.endswith(b',"sequence":')
    for sequence in (1, 42, 10**15):
        assert seal(open_bytes, sequence) == bytes(rfc8785.dumps({**doc, "sequence": sequence}))
    assert chain_hash(GENESIS_HASH, seal(open_bytes, 1)) == (
        "394bfd0230762dbdc4b71f53874e03eea5b500f98ce3232ee15a531a5c5f1d0c")


def test_differences_name_each_changed_leaf():
    stored = {"players": [{"points": 11}, {"points": -11}], "house_fee": "330"}
    now = {"players": [{"points": 12}, {"points": -11}], "house_fee": "330"}
    assert differences(stored, now) == [{"field": "players[0].points", "stored": 11, "recomputed": 12}]


def test_differences_tell_a_missing_key_from_one_holding_null():
    assert differences({"a": None, "b": 1}, {"b": 1}) == [
        {"field": "a", "stored": None, "recomputed": None, "absent": "recomputed"}
    ]
    assert differences({"b": [{}]}, {"b": [{"c": None}]}) == [
        {"field": "b[0].c", "stored": None, "recomputed": None, "absent": "stored"}
    ]
    assert differences({"a": None}, {"a": None}) == []


# -- the fast canonical encoder gives RFC 8785's bytes -------------------------------------

import pytest  # noqa: E402
import rfc8785  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # no lone surrogates
_LEAF = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | _TEXT
_JSON = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_TEXT, inner, max_size=5),
    max_leaves=30,
)


@settings(deadline=None, max_examples=400)
@given(st.dictionaries(_TEXT | st.text(st.characters(max_codepoint=127), max_size=8), _JSON, max_size=6))
def test_canonical_bytes_are_exactly_rfc_8785(doc):
    assert canonical(doc) == bytes(rfc8785.dumps(doc))


_ASCII_KEY = st.text(st.characters(max_codepoint=127), max_size=10)
_RECORD_LIKE = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_ASCII_KEY, inner, max_size=5),
    max_leaves=30,
)


@settings(deadline=None, max_examples=400)
@given(st.dictionaries(_ASCII_KEY, _RECORD_LIKE, max_size=6))
def test_records_are_encoded_exactly_as_rfc_8785_without_the_walk(doc):
    # What records hold: ASCII keys, any text (control characters, quotes, astral), ints.
    assert canonical_record(doc) == bytes(rfc8785.dumps(doc))


def test_canonical_takes_the_full_encoder_for_what_the_fast_path_cannot_promise():
    # non-ASCII keys sort by UTF-16 code units in JCS: U+E000 sorts before U+1F600 there
    doc = {"\U0001f600": 1, "\ue000": 2, "x": [1.5, "\u2028", "\x7f\x01"]}
    assert canonical(doc) == bytes(rfc8785.dumps(doc))
    with pytest.raises(rfc8785.IntegerDomainError):  # as the full encoder: not silently
        canonical({"a": 2**60})


# The fast path is taken exactly where it is exact: a wrong True would change bytes (the
# tests above), a wrong False would only send a value to the slow encoder, so the predicate
# is pinned down here directly, both ways, at each edge.
from service.domain.audit import _jcs_safe  # noqa: E402

SAFE_MAX = 2**53 - 1


@pytest.mark.parametrize(
    "value",
    [
        None, True, False, "", "\u2028\x7f", 0, SAFE_MAX, -SAFE_MAX,
        {}, [], (), {"a": None}, {"a": [1, "x", {"b": (True, -SAFE_MAX)}]},
        [{"players": [{"id": "p1", "points": SAFE_MAX}]}, "tail"],
    ],
)
def test_the_fast_encoder_is_taken_for_every_shape_a_record_holds(value):
    assert _jcs_safe(value) is True


@pytest.mark.parametrize(
    "value",
    [
        SAFE_MAX + 1, -SAFE_MAX - 1, 1.0, {"é": 1}, {1: "a"}, {"a": {"b": [SAFE_MAX + 1]}},
        [None, 1.5], ("x", {"ok": 1, "\U0001f600": 2}), {"a": 1, "b": [1, 2, b"bytes"]},
        [[[[{"deep": SAFE_MAX + 1}]]]], {"a": True, "z": {"ok": 1}, "y": [-SAFE_MAX - 1]},
        {1.5: 1}, set(), [{"a": 1}, {"b": 2}, object()],
        # read last first: a safe leaf read before an unsafe value does not end the walk
        [1.5, "x"], [1.5, 7], [2**60, True], [{"é": 1}, None], [1.5, {"a": "b"}], [1.5, ["x"]],
    ],
)
def test_the_full_encoder_is_taken_for_what_the_fast_one_cannot_promise(value):
    assert _jcs_safe(value) is False


def test_an_unsealed_record_is_the_open_canonical_bytes_and_nothing_else_is():
    assert unsealed({"a": 1}) == b'{"a":1,"sequence":'
    assert unsealed({"b": "x", "a": [1]}) == b'{"a":[1],"b":"x","sequence":'
    with pytest.raises(ValueError, match="^an unsealed record has no sequence yet$"):
        unsealed({"a": 1, "sequence": 1})
    with pytest.raises(ValueError, match="^a record is a non-empty JSON object$"):
        unsealed({})
    for not_an_object in ([1, 2], "text"):
        with pytest.raises(ValueError, match="^a record is a non-empty JSON object$"):
            unsealed(not_an_object)


def test_a_fee_of_one_minor_unit_is_booked():
    assert round_lines([("a", 100, 1), ("b", -100, 0)], 1) == (
        LedgerLine("player:a", "settlement", 100), LedgerLine("player:a", "fee", -1),
        LedgerLine("player:b", "settlement", -100), LedgerLine("house", "fee", 1))


def test_a_record_holds_exactly_the_hashed_fields():
    from service.domain.audit import record

    lines = round_lines([("a", 11000, 330), ("b", -11000, 0)], 330)
    fields = {"kind": "round", "round_id": "rnd_x", "request": {"stake": "1000"}, "result": {"points": 1},
              "lines": lines, "currency": "IDR", "engine_version": "1.0.0",
              "created_at": datetime(2026, 11, 29, 10, 0, 0, 123456, tzinfo=UTC)}
    unsealed_doc = record(sequence=None, **fields)
    assert unsealed_doc == {
        "kind": "round",
        "round": "rnd_x",
        "request": {"stake": "1000"},
        "result": {"points": 1},
        "ledger_lines": [
            {"account": "player:a", "kind": "settlement", "amount": "11000"},
            {"account": "player:a", "kind": "fee", "amount": "-330"},
            {"account": "player:b", "kind": "settlement", "amount": "-11000"},
            {"account": "house", "kind": "fee", "amount": "330"},
        ],
        "engine_version": "1.0.0",
        "created_at": "2026-11-29T10:00:00.123Z",
    }
    assert record(sequence=7, **fields) == {**unsealed_doc, "sequence": 7}
    assert seal(unsealed(unsealed_doc), 7) == canonical(record(sequence=7, **fields))


@pytest.mark.parametrize(
    "stored, recomputed, found",
    [
        ({"a": 1}, 5, [{"field": "", "stored": {"a": 1}, "recomputed": 5}]),
        (5, {"a": 1}, [{"field": "", "stored": 5, "recomputed": {"a": 1}}]),
        ({"x": [1, 2]}, {"x": 3}, [{"field": "x", "stored": [1, 2], "recomputed": 3}]),
        ({"x": 3}, {"x": [1, 2]}, [{"field": "x", "stored": 3, "recomputed": [1, 2]}]),
        ({"x": [1, 2]}, {"x": [1, 2, 3]}, [{"field": "x", "stored": [1, 2], "recomputed": [1, 2, 3]}]),
        ({"x": [1, {"y": 2}]}, {"x": [1, {"y": 3}]}, [{"field": "x[1].y", "stored": 2, "recomputed": 3}]),
        ({"x": 1}, {"x": True}, [{"field": "x", "stored": 1, "recomputed": True}]),  # 1 == True, not the same
        ({"x": 1}, {"x": 1, "z": 0}, [{"field": "z", "stored": None, "recomputed": 0, "absent": "stored"}]),
        ({"x": [1]}, {"x": [1]}, []),
    ],
)
def test_differences_compare_shapes_as_well_as_values(stored, recomputed, found):
    assert differences(stored, recomputed) == found


def test_a_record_never_waits_for_the_full_encoder(monkeypatch):
    # What records hold takes the fast encoder: the reference one is for the rest only.
    import service.domain.audit as audit

    def refuse(value):
        raise AssertionError(f"the full encoder was asked for {value!r}")

    monkeypatch.setattr(audit.rfc8785, "dumps", refuse)
    doc = {"kind": "round", "players": [{"id": "a", "points": 2**53 - 1}], "ok": True, "note": None}
    expected = b'{"kind":"round","note":null,"ok":true,"players":[{"id":"a","points":9007199254740991}]}'
    assert canonical(doc) == expected
    # and a record is not even walked first: what the service builds goes straight to orjson
    monkeypatch.setattr(audit, "_jcs_safe", refuse)
    assert canonical_record(doc) == expected


def test_what_the_fast_encoder_refuses_in_a_record_goes_to_the_full_one():
    with pytest.raises(rfc8785.IntegerDomainError):  # not silently encoded, nor replaced
        canonical_record({"kind": "round", "points": 2**60})


def test_a_timestamp_is_the_same_instant_in_utc_whatever_the_zone(monkeypatch):
    import time
    from zoneinfo import ZoneInfo

    jakarta = datetime(2026, 11, 29, 17, 0, 0, 5000, tzinfo=ZoneInfo("Asia/Jakarta"))
    assert timestamp(jakarta) == "2026-11-29T10:00:00.005Z"
    # a naive moment is UTC, not the machine's local time
    monkeypatch.setenv("TZ", "Asia/Jakarta")
    time.tzset()
    try:
        assert timestamp(datetime(2026, 11, 29, 10, 0, 0)) == "2026-11-29T10:00:00.000Z"
        assert timestamp(jakarta) == "2026-11-29T10:00:00.005Z"
    finally:
        monkeypatch.undo()
        time.tzset()
