from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="PairStake")


@_attrs_define
class PairStake:
    """
    Attributes:
        players (list[str]):  Example: ['a', 'c'].
        stake (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 5000.
    """

    players: list[str]
    stake: str

    def to_dict(self) -> dict[str, Any]:
        players = self.players

        stake = self.stake

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "players": players,
                "stake": stake,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        players = cast(list[str], d.pop("players"))

        stake = d.pop("stake")

        pair_stake = cls(
            players=players,
            stake=stake,
        )

        return pair_stake
