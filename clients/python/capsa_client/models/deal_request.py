from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DealRequest")


@_attrs_define
class DealRequest:
    """
    Attributes:
        players (list[str]): 2 to 4 unique player ids; player k gets cards 13k..13k+12. Example: ['a', 'b', 'c', 'd'].
        client_seed (str): Any UTF-8 string of 1-128 characters, mixed into the shuffle, that reads as it is: no
            character that shows nothing (a zero-width space, a soft hyphen, a variation selector), no control character
            (newlines and line separators included) and no bidirectional formatting character. Example: table-7.
        commitment_id (str | Unset): A commitment from `POST /v1/deals/commitments`, unused: the deal shuffles with its
            server seed and nonce, drawn before you chose `client_seed`. Without it the server seed is drawn now. Example:
            dc_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
    """

    players: list[str]
    client_seed: str
    commitment_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        players = self.players

        client_seed = self.client_seed

        commitment_id = self.commitment_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "players": players,
                "client_seed": client_seed,
            }
        )
        if commitment_id is not UNSET:
            field_dict["commitment_id"] = commitment_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        players = cast(list[str], d.pop("players"))

        client_seed = d.pop("client_seed")

        commitment_id = d.pop("commitment_id", UNSET)

        deal_request = cls(
            players=players,
            client_seed=client_seed,
            commitment_id=commitment_id,
        )

        return deal_request
