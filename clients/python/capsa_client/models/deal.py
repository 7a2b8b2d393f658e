from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.deal_status import DealStatus, check_deal_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.deal_hands import DealHands


T = TypeVar("T", bound="Deal")


@_attrs_define
class Deal:
    """
    Attributes:
        id (str):  Example: dl_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        status (DealStatus): open (seed secret), revealed (seed published, unused) or used. Example: open.
        commitment (str): Hex SHA-256 of the secret server seed. Example:
            630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd.
        commitment_id (None | str): The commitment the deal was made from; null when its server seed was drawn in its
            own request.
        committed_at (datetime.datetime): When the server seed was drawn and committed to: the commitment's time, or the
            deal's own. Example: 2026-11-29T10:00:00.000Z.
        nonce (int): The client's count of server seeds drawn before this one's: its commitments, and its deals made
            without one. Example: 0.
        client_seed (str):  Example: table-7.
        players (list[str]): In deal order. Example: ['a', 'b', 'c', 'd'].
        created_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
        used_at (datetime.datetime | None): When a round or game used it.
        used_by (None | str): The round (rnd_), Big Two game (gm_) or Capsa Susun game (sg_) that used it.
        revealed_at (datetime.datetime | None): When the server seed was published.
        hands (DealHands | Unset): Each player's 13 cards, in dealt order; left out while the game that used the deal is
            in play (a Capsa Susun game arranging, a Big Two game playing), whatever the key, and for a read key while the
            deal is unused and its seed secret. Example: {'a': ['7c', 'Qc', '5c', '7h', '9c', 'As', '5h', '7d', '3d', '2d',
            'Kh', 'Tc', '2s']}.
        server_seed (str | Unset): Hex; present only once the deal is used or revealed, and left out while the game that
            used it is in play. Example: 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f.
    """

    id: str
    status: DealStatus
    commitment: str
    commitment_id: None | str
    committed_at: datetime.datetime
    nonce: int
    client_seed: str
    players: list[str]
    created_at: datetime.datetime
    used_at: datetime.datetime | None
    used_by: None | str
    revealed_at: datetime.datetime | None
    hands: DealHands | Unset = UNSET
    server_seed: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status: str = self.status

        commitment = self.commitment

        commitment_id: None | str
        commitment_id = self.commitment_id

        committed_at = self.committed_at.isoformat()

        nonce = self.nonce

        client_seed = self.client_seed

        players = self.players

        created_at = self.created_at.isoformat()

        used_at: None | str
        if isinstance(self.used_at, datetime.datetime):
            used_at = self.used_at.isoformat()
        else:
            used_at = self.used_at

        used_by: None | str
        used_by = self.used_by

        revealed_at: None | str
        if isinstance(self.revealed_at, datetime.datetime):
            revealed_at = self.revealed_at.isoformat()
        else:
            revealed_at = self.revealed_at

        hands: dict[str, Any] | Unset = UNSET
        if not isinstance(self.hands, Unset):
            hands = self.hands.to_dict()

        server_seed = self.server_seed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "status": status,
                "commitment": commitment,
                "commitment_id": commitment_id,
                "committed_at": committed_at,
                "nonce": nonce,
                "client_seed": client_seed,
                "players": players,
                "created_at": created_at,
                "used_at": used_at,
                "used_by": used_by,
                "revealed_at": revealed_at,
            }
        )
        if hands is not UNSET:
            field_dict["hands"] = hands
        if server_seed is not UNSET:
            field_dict["server_seed"] = server_seed

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.deal_hands import DealHands

        d = dict(src_dict)
        id = d.pop("id")

        status = check_deal_status(d.pop("status"))

        commitment = d.pop("commitment")

        def _parse_commitment_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        commitment_id = _parse_commitment_id(d.pop("commitment_id"))

        committed_at = datetime.datetime.fromisoformat(d.pop("committed_at"))

        nonce = d.pop("nonce")

        client_seed = d.pop("client_seed")

        players = cast(list[str], d.pop("players"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_used_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                used_at_type_0 = datetime.datetime.fromisoformat(data)

                return used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        used_at = _parse_used_at(d.pop("used_at"))

        def _parse_used_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        used_by = _parse_used_by(d.pop("used_by"))

        def _parse_revealed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revealed_at_type_0 = datetime.datetime.fromisoformat(data)

                return revealed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        revealed_at = _parse_revealed_at(d.pop("revealed_at"))

        _hands = d.pop("hands", UNSET)
        hands: DealHands | Unset
        if isinstance(_hands, Unset):
            hands = UNSET
        else:
            hands = DealHands.from_dict(_hands)

        server_seed = d.pop("server_seed", UNSET)

        deal = cls(
            id=id,
            status=status,
            commitment=commitment,
            commitment_id=commitment_id,
            committed_at=committed_at,
            nonce=nonce,
            client_seed=client_seed,
            players=players,
            created_at=created_at,
            used_at=used_at,
            used_by=used_by,
            revealed_at=revealed_at,
            hands=hands,
            server_seed=server_seed,
        )

        return deal
