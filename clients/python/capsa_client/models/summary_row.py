from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="SummaryRow")


@_attrs_define
class SummaryRow:
    """
    Attributes:
        key (None | str): The player id, the table (null: rounds without one) or the day in `tz`. Example: a.
        rounds (int): By player: the player's rounds. By table or day: rounds booked (a reversal counts -1). Example: 3.
        result (str): Signed decimal string, minor-unit digits. Example: 11000.
        fees (str): Signed decimal string, minor-unit digits. Example: 330.
        net (str): Signed decimal string, minor-unit digits. Example: 10670.
    """

    key: None | str
    rounds: int
    result: str
    fees: str
    net: str

    def to_dict(self) -> dict[str, Any]:
        key: None | str
        key = self.key

        rounds = self.rounds

        result = self.result

        fees = self.fees

        net = self.net

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "key": key,
                "rounds": rounds,
                "result": result,
                "fees": fees,
                "net": net,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_key(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        key = _parse_key(d.pop("key"))

        rounds = d.pop("rounds")

        result = d.pop("result")

        fees = d.pop("fees")

        net = d.pop("net")

        summary_row = cls(
            key=key,
            rounds=rounds,
            result=result,
            fees=fees,
            net=net,
        )

        return summary_row
