from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.as_of import AsOf


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
        as_of (AsOf):
    """

    player: str
    currency: str
    rounds: int
    points: int
    result: str
    winnings: str
    fees: str
    net: str
    as_of: AsOf

    def to_dict(self) -> dict[str, Any]:
        player = self.player

        currency = self.currency

        rounds = self.rounds

        points = self.points

        result = self.result

        winnings = self.winnings

        fees = self.fees

        net = self.net

        as_of = self.as_of.to_dict()

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
                "as_of": as_of,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.as_of import AsOf

        d = dict(src_dict)
        player = d.pop("player")

        currency = d.pop("currency")

        rounds = d.pop("rounds")

        points = d.pop("points")

        result = d.pop("result")

        winnings = d.pop("winnings")

        fees = d.pop("fees")

        net = d.pop("net")

        as_of = AsOf.from_dict(d.pop("as_of"))

        player_ledger = cls(
            player=player,
            currency=currency,
            rounds=rounds,
            points=points,
            result=result,
            winnings=winnings,
            fees=fees,
            net=net,
            as_of=as_of,
        )

        return player_ledger
