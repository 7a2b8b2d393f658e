from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PlayerLedger")


@_attrs_define
class PlayerLedger:
    """
    Attributes:
        player (str): The player id as asked. Example: a.
        currency (str):  Example: IDR.
        rounds (int): Rounds played, less reversals. Example: 3.
        points (int):  Example: 11.
        result (str): Signed decimal string, minor-unit digits. Example: 11000.
        winnings (str): Signed decimal string, minor-unit digits. Example: 11000.
        fees (str): Signed decimal string, minor-unit digits. Example: 330.
        net (str): Signed decimal string, minor-unit digits. Example: 10670.
    """

    player: str
    currency: str
    rounds: int
    points: int
    result: str
    winnings: str
    fees: str
    net: str

    def to_dict(self) -> dict[str, Any]:
        player = self.player

        currency = self.currency

        rounds = self.rounds

        points = self.points

        result = self.result

        winnings = self.winnings

        fees = self.fees

        net = self.net

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "player": player,
                "currency": currency,
                "rounds": rounds,
                "points": points,
                "result": result,
                "winnings": winnings,
                "fees": fees,
                "net": net,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        player = d.pop("player")

        currency = d.pop("currency")

        rounds = d.pop("rounds")

        points = d.pop("points")

        result = d.pop("result")

        winnings = d.pop("winnings")

        fees = d.pop("fees")

        net = d.pop("net")

        player_ledger = cls(
            player=player,
            currency=currency,
            rounds=rounds,
            points=points,
            result=result,
            winnings=winnings,
            fees=fees,
            net=net,
        )

        return player_ledger
