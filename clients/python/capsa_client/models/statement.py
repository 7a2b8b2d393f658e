from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.as_of import AsOf
    from ..models.statement_line import StatementLine


T = TypeVar("T", bound="Statement")


@_attrs_define
class Statement:
    """
    Attributes:
        player (str):  Example: a.
        account (str):  Example: player:a.
        currency (str):  Example: IDR.
        tz (str): The zone dates were read in. Example: Asia/Jakarta.
        since (datetime.datetime | None): The period's start in UTC, as applied: to the millisecond, or to the
            microsecond between two. Example: 2026-11-28T17:00:00.000Z.
        until (datetime.datetime | None): The period's end in UTC, as applied: to the millisecond, or to the microsecond
            between two. Example: 2026-11-29T17:00:00.000Z.
        opening_balance (str): The sum of every line of the account dated before `since`. Example: 10000.
        closing_balance (str): The opening balance plus every line of the period. Example: 21000.
        lines (list[StatementLine]): The period's lines, oldest first.
        next_cursor (None | str): Pass as `cursor` for the next page; null on the last.
        as_of (AsOf):
    """

    player: str
    account: str
    currency: str
    tz: str
    since: datetime.datetime | None
    until: datetime.datetime | None
    opening_balance: str
    closing_balance: str
    lines: list[StatementLine]
    next_cursor: None | str
    as_of: AsOf

    def to_dict(self) -> dict[str, Any]:
        player = self.player

        account = self.account

        currency = self.currency

        tz = self.tz

        since: None | str
        if isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        until: None | str
        if isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until

        opening_balance = self.opening_balance

        closing_balance = self.closing_balance

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)

        next_cursor: None | str
        next_cursor = self.next_cursor

        as_of = self.as_of.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "player": player,
                "account": account,
                "currency": currency,
                "tz": tz,
                "since": since,
                "until": until,
                "opening_balance": opening_balance,
                "closing_balance": closing_balance,
                "lines": lines,
                "next_cursor": next_cursor,
                "as_of": as_of,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.as_of import AsOf
        from ..models.statement_line import StatementLine

        d = dict(src_dict)
        player = d.pop("player")

        account = d.pop("account")

        currency = d.pop("currency")

        tz = d.pop("tz")

        def _parse_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)

                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        since = _parse_since(d.pop("since"))

        def _parse_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)

                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        until = _parse_until(d.pop("until"))

        opening_balance = d.pop("opening_balance")

        closing_balance = d.pop("closing_balance")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in _lines:
            lines_item = StatementLine.from_dict(lines_item_data)

            lines.append(lines_item)

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        as_of = AsOf.from_dict(d.pop("as_of"))

        statement = cls(
            player=player,
            account=account,
            currency=currency,
            tz=tz,
            since=since,
            until=until,
            opening_balance=opening_balance,
            closing_balance=closing_balance,
            lines=lines,
            next_cursor=next_cursor,
            as_of=as_of,
        )

        return statement
