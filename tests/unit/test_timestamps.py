"""The service's RFC 3339 times: UTC, milliseconds, Z, and a four-digit year always."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from service.domain.audit import timestamp
from service.services.clock import rfc3339


def test_a_year_before_1000_is_written_with_four_digits():
    early = datetime(1, 1, 2, 3, 4, 5, 678_900, tzinfo=UTC)
    assert rfc3339(early) == timestamp(early) == "0001-01-02T03:04:05.678Z"
    assert timestamp(early.replace(tzinfo=None)) == "0001-01-02T03:04:05.678Z"
    assert rfc3339(datetime(999, 12, 31, tzinfo=UTC)) == "0999-12-31T00:00:00.000Z"


@given(st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30)),
       st.integers(min_value=-14 * 60, max_value=14 * 60))
def test_every_time_reads_as_before_in_utc_to_the_millisecond(moment, offset):
    aware = moment.replace(tzinfo=timezone(timedelta(minutes=offset)))
    utc = aware.astimezone(UTC)
    expected = utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    assert rfc3339(aware) == timestamp(aware) == expected
    assert datetime.fromisoformat(expected) == utc.replace(microsecond=utc.microsecond // 1000 * 1000)
