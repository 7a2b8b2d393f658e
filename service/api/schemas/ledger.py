"""`/v1/ledger`: a player's totals and statement, summaries, the booked lines."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, post_load, validate

from service.domain.audit import FEE, REVERSAL, SETTLEMENT
from service.domain.susun.round import CURRENCY_MAX
from service.services.cursors import DEFAULT_PAGE, MAX_PAGE, STATEMENT_PAGE
from service.services.ledger.reports import SUMMARY_GROUPINGS, Grouping

from ..fields import Id, SignedMoney, Since, Until, openapi_meta
from .bases import CURSOR_MAX, Out, Query, as_of_field, min_sequence_field, next_cursor_field, page_limit

LINE_KINDS = [SETTLEMENT, FEE, REVERSAL]
TZ_MAX = 64  # characters of an IANA zone name (the longest is 32)
ROUND_ID_MAX = 40  # characters of a round id (ours are 30)

COUNTING = """\
How a period is counted: a report sums the ledger lines *dated* in [since, until). A
round's lines are dated at the round's `created_at`; a void's reversal lines at the void.
So a round voided in a later period still counts in its own period and its reversal in the
later one; over all time a voided round nets to zero.

- `rounds`: +1 per settlement line (a player's part in a round), -1 per reversal of one.
- `points`: the player's points on each settlement line, negated on its reversal.
- `result`: the sum of settlement lines and their reversals.
- `winnings`: the player's winnings (sum of its positive pair amounts) on each
  settlement line, negated on its reversal.
- `fees`: the fees the player paid (fee lines, negated to a positive figure), less
  their reversals.
- `net`: the sum of every line of the player's account: `result - fees`.
"""


def _tz() -> fields.String:
    return fields.String(
        load_default="UTC",
        validate=validate.Length(1, TZ_MAX),
        metadata=openapi_meta(
            "Asia/Jakarta",
            "IANA time zone (zoneinfo) in which date-only `since`/`until` are read and, for "
            "`group_by=day`, days are cut; default UTC. Not `localtime` (the host's zone), "
            "`posixrules`, `Factory`, or the copies under `posix/` and `right/`.",
        ),
    )


def _currency(**kw: Any) -> fields.String:
    return fields.String(
        validate=validate.Length(1, CURRENCY_MAX),
        metadata=openapi_meta("IDR", "ISO 4217 code; only lines in this currency are summed."),
        **kw,
    )


class LedgerQuerySchema(Query):
    currency = _currency(required=True)
    since = Since(dates=True)
    until = Until(dates=True)
    tz = _tz()
    min_sequence = min_sequence_field()


class PlayerLedgerSchema(Out):
    player = fields.String(required=True, metadata=openapi_meta("a", "The player id as asked."))
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    rounds = fields.Integer(required=True, metadata=openapi_meta(3, "Rounds played, less reversals."))
    points = fields.Integer(required=True, metadata=openapi_meta(11))
    result = SignedMoney("11000", required=True)
    winnings = SignedMoney("11000", required=True)
    fees = SignedMoney("330", required=True)
    net = SignedMoney("10670", required=True)
    as_of = as_of_field()


class SummaryQuerySchema(LedgerQuerySchema):
    group_by = fields.String(
        load_default=SUMMARY_GROUPINGS[0].value,
        validate=validate.OneOf([g.value for g in SUMMARY_GROUPINGS]),
        metadata=openapi_meta("player", "`player`, `table` or `day` (dates in `tz`, UTC unless given); default `player`."),
    )

    @post_load
    def _grouping(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        return {**data, "group_by": Grouping(data["group_by"])}


class SummaryRowSchema(Out):
    key = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta("a", "The player id, the table (null: rounds without one) or the day in `tz`."),
    )
    rounds = fields.Integer(
        required=True,
        metadata=openapi_meta(
            3,
            "By player: the player's rounds. By table or day: rounds booked (a reversal counts -1).",
        ),
    )
    result = SignedMoney("11000", required=True)
    fees = SignedMoney("330", required=True)
    net = SignedMoney("10670", required=True)


class SummarySchema(Out):
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    rows = fields.List(
        fields.Nested(SummaryRowSchema),
        required=True,
        metadata={"description": "Players' lines per group, ordered by key (null first, then by Unicode code point, whatever the database's collation)."},
    )
    house_fee = SignedMoney("330", required=True)
    as_of = as_of_field()


class EntriesQuerySchema(LedgerQuerySchema):
    player = Id("a", "Only this player's lines.")
    round = fields.String(
        validate=validate.Length(1, ROUND_ID_MAX), metadata=openapi_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ", "Only this round's lines.")
    )
    limit = page_limit(DEFAULT_PAGE, MAX_PAGE, "Page size, 1-{most} (JSON only).")
    cursor = fields.String(
        validate=validate.Length(1, CURSOR_MAX),
        metadata=openapi_meta(
            "WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0",
            "Opaque: `next_cursor` of the previous page (JSON), or the URL a CSV answer's `Link` names.",
        ),
    )


class EntrySchema(Out):
    round = fields.String(required=True, metadata=openapi_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    sequence = fields.Integer(required=True, metadata=openapi_meta(42, "The chain record that booked the line."))
    created_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    account = fields.String(required=True, metadata=openapi_meta("player:a", "`player:<id>` or `house`."))
    kind = fields.String(
        required=True, validate=validate.OneOf(LINE_KINDS), metadata=openapi_meta("settlement")
    )
    amount = SignedMoney("11000", required=True)
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))


class EntryListSchema(Out):
    items = fields.List(fields.Nested(EntrySchema), required=True)
    next_cursor = next_cursor_field()
    as_of = as_of_field()


class StatementQuerySchema(LedgerQuerySchema):
    limit = page_limit(STATEMENT_PAGE, MAX_PAGE, "Lines per page, 1-{most} (JSON only).")
    cursor = fields.String(
        validate=validate.Length(1, CURSOR_MAX),
        metadata=openapi_meta(
            "WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0",
            "Opaque: `next_cursor` of the previous page (JSON), or the URL a CSV answer's `Link` names.",
        ),
    )


class StatementLineSchema(Out):
    created_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T10:00:00.000Z", format="date-time"))
    round = fields.String(required=True, metadata=openapi_meta("rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ"))
    sequence = fields.Integer(required=True, metadata=openapi_meta(42, "The chain record that booked the line."))
    kind = fields.String(
        required=True, validate=validate.OneOf(LINE_KINDS), metadata=openapi_meta("settlement")
    )
    amount = SignedMoney("11000", required=True)
    balance = SignedMoney("21000", required=True, metadata=openapi_meta("21000", "The account's balance after this line."))


class StatementSchema(Out):
    player = fields.String(required=True, metadata=openapi_meta("a"))
    account = fields.String(required=True, metadata=openapi_meta("player:a"))
    currency = fields.String(required=True, metadata=openapi_meta("IDR"))
    tz = fields.String(required=True, metadata=openapi_meta("Asia/Jakarta", "The zone dates were read in."))
    since = fields.String(
        required=True, allow_none=True, metadata=openapi_meta("2026-11-28T17:00:00.000Z", "The period's start in UTC, as applied: to the millisecond, or to the microsecond between two.", format="date-time")
    )
    until = fields.String(
        required=True, allow_none=True, metadata=openapi_meta("2026-11-29T17:00:00.000Z", "The period's end in UTC, as applied: to the millisecond, or to the microsecond between two.", format="date-time")
    )
    opening_balance = SignedMoney(
        "10000", required=True, metadata=openapi_meta("10000", "The sum of every line of the account dated before `since`.")
    )
    closing_balance = SignedMoney(
        "21000", required=True, metadata=openapi_meta("21000", "The opening balance plus every line of the period.")
    )
    lines = fields.List(
        fields.Nested(StatementLineSchema), required=True, metadata={"description": "The period's lines, oldest first."}
    )
    next_cursor = next_cursor_field()
    as_of = as_of_field()
