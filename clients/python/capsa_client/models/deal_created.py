from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.deal_created_hands import DealCreatedHands


T = TypeVar("T", bound="DealCreated")


@_attrs_define
class DealCreated:
    """
    Attributes:
        id (str):  Example: dl_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        commitment (str): Hex SHA-256 of the secret server seed. Example:
            630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd.
        nonce (int): The client's count of deals before this one. Example: 0.
        client_seed (str):  Example: table-7.
        hands (DealCreatedHands): Each player's 13 cards, in dealt order. Example: {'a': ['7c', 'Qc', '5c', '7h', '9c',
            'As', '5h', '7d', '3d', '2d', 'Kh', 'Tc', '2s']}.
    """

    id: str
    commitment: str
    nonce: int
    client_seed: str
    hands: DealCreatedHands

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        commitment = self.commitment

        nonce = self.nonce

        client_seed = self.client_seed

        hands = self.hands.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "commitment": commitment,
                "nonce": nonce,
                "client_seed": client_seed,
                "hands": hands,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.deal_created_hands import DealCreatedHands

        d = dict(src_dict)
        id = d.pop("id")

        commitment = d.pop("commitment")

        nonce = d.pop("nonce")

        client_seed = d.pop("client_seed")

        hands = DealCreatedHands.from_dict(d.pop("hands"))

        deal_created = cls(
            id=id,
            commitment=commitment,
            nonce=nonce,
            client_seed=client_seed,
            hands=hands,
        )

        return deal_created
