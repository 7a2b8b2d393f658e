from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="DealRequest")


@_attrs_define
class DealRequest:
    """
    Attributes:
        players (list[str]): 2 to 4 unique player ids; player k gets cards 13k..13k+12. Example: ['a', 'b', 'c', 'd'].
        client_seed (str): Any UTF-8 string of 1-128 characters, mixed into the shuffle. Example: table-7.
    """

    players: list[str]
    client_seed: str

    def to_dict(self) -> dict[str, Any]:
        players = self.players

        client_seed = self.client_seed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "players": players,
                "client_seed": client_seed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        players = cast(list[str], d.pop("players"))

        client_seed = d.pop("client_seed")

        deal_request = cls(
            players=players,
            client_seed=client_seed,
        )

        return deal_request
