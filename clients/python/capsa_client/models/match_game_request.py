from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.banting_player import BantingPlayer


T = TypeVar("T", bound="MatchGameRequest")


@_attrs_define
class MatchGameRequest:
    """
    Attributes:
        players (list[BantingPlayer]): The match's players, in its order, with their hands (or a deal).
        deal (None | str | Unset): A deal id: the players must be the deal's, in its order.
    """

    players: list[BantingPlayer]
    deal: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        deal: None | str | Unset
        if isinstance(self.deal, Unset):
            deal = UNSET
        else:
            deal = self.deal

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "players": players,
            }
        )
        if deal is not UNSET:
            field_dict["deal"] = deal

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.banting_player import BantingPlayer

        d = dict(src_dict)
        players = []
        _players = d.pop("players")
        for players_item_data in _players:
            players_item = BantingPlayer.from_dict(players_item_data)

            players.append(players_item)

        def _parse_deal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deal = _parse_deal(d.pop("deal", UNSET))

        match_game_request = cls(
            players=players,
            deal=deal,
        )

        return match_game_request
