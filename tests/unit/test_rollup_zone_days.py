"""The day ranges PostgreSQL gathers a zone's days by (adapters/rollups.py) put every UTC
quarter hour on the date Python's zone database gives it, or are refused (None) so the
caller gathers quarter by quarter."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest

from service.adapters.rollups import _day_ranges, quarter_start

ZONES = ["Asia/Jakarta", "Asia/Kathmandu", "America/St_Johns", "Europe/Berlin", "America/Havana",
         "America/Santiago", "Australia/Lord_Howe", "Pacific/Apia", "America/Sao_Paulo", "Asia/Beirut"]


@pytest.mark.parametrize("name", ZONES)
def test_each_range_holds_exactly_the_quarters_of_its_day(name):
    zone = ZoneInfo(name)
    for year in (2011, 2018, 2026):  # Samoa skipped 2011-12-30; Havana, Santiago turn near midnight
        first, last = date(year, 1, 1), date(year, 12, 31)
        ranges = _day_ranges(first, last, zone)
        if ranges is None:  # refused: some day's quarters are not one range; check that it is so
            quarters = [datetime(year - 1, 12, 31, tzinfo=UTC) + timedelta(minutes=15 * n) for n in range(4 * 24 * 368)]
            dates = [q.astimezone(zone).date() for q in quarters]
            assert any(b < a for a, b in zip(dates, dates[1:])), name  # a date comes back: no ranges exist
            continue
        assert ranges[0][0] == first.isoformat() and ranges[-1][0] == last.isoformat()
        seen = set()
        for (day, lo, hi), following in zip(ranges, [*ranges[1:], None]):
            if following is not None:
                assert following[1] == hi  # contiguous: every quarter in one range
            q = quarter_start(lo)
            assert (q - timedelta(minutes=15)).astimezone(zone).date().isoformat() < day
            while q < quarter_start(hi):
                assert q.astimezone(zone).date().isoformat() == day, (name, day, q)
                q += timedelta(minutes=15)
            seen.add(day)
        # a day the zone skipped (Samoa's 2011-12-30) is an empty range, never a wrong one
        assert len(seen) == len(ranges)


class _BackAcrossMidnight(tzinfo):
    """+01:00 until 2026-03-01 23:30 UTC (00:30 local on 03-02), then UTC: 00:30 -> 23:30 of 03-01."""

    CHANGE = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)

    def utcoffset(self, dt: datetime | None) -> timedelta:
        assert dt is not None
        return timedelta(hours=1) if dt.replace(tzinfo=UTC) - timedelta(hours=1) < self.CHANGE else timedelta(0)

    def fromutc(self, dt: datetime) -> datetime:
        return dt + (timedelta(hours=1) if dt.replace(tzinfo=UTC) < self.CHANGE else timedelta(0))

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)


def test_a_zone_whose_date_goes_back_has_no_ranges():
    zone = _BackAcrossMidnight()
    assert _day_ranges(date(2026, 1, 1), date(2026, 2, 27), zone) is not None
    assert _day_ranges(date(2026, 2, 27), date(2026, 3, 5), zone) is None
