from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.susun_game_status import SusunGameStatus, check_susun_game_status

if TYPE_CHECKING:
    from ..models.rules_echo import RulesEcho
    from ..models.susun_game_player import SusunGamePlayer


T = TypeVar("T", bound="SusunGame")


@_attrs_define
class SusunGame:
    """
    Attributes:
        id (str):  Example: sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        status (SusunGameStatus):  Example: arranging.
        version (int): Bumped by every change; send it as If-Match. Example: 1.
        rules (RulesEcho):
        currency (str):  Example: IDR.
        stake (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 1000.
        table (None | str):  Example: table-7.
        reference (None | str):  Example: client-round-9913.
        deal (str):  Example: dl_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        arrange_seconds (int):  Example: 60.
        created_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
        deadline (datetime.datetime):  Example: 2026-11-29T10:01:00.000Z.
        settled_at (datetime.datetime | None):
        players (list[SusunGamePlayer]):
        round_ (None | str): The round the settled game became (GET /v1/rounds/{id}).
    """

    id: str
    status: SusunGameStatus
    version: int
    rules: RulesEcho
    currency: str
    stake: str
    table: None | str
    reference: None | str
    deal: str
    arrange_seconds: int
    created_at: datetime.datetime
    deadline: datetime.datetime
    settled_at: datetime.datetime | None
    players: list[SusunGamePlayer]
    round_: None | str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status: str = self.status

        version = self.version

        rules = self.rules.to_dict()

        currency = self.currency

        stake = self.stake

        table: None | str
        table = self.table

        reference: None | str
        reference = self.reference

        deal = self.deal

        arrange_seconds = self.arrange_seconds

        created_at = self.created_at.isoformat()

        deadline = self.deadline.isoformat()

        settled_at: None | str
        if isinstance(self.settled_at, datetime.datetime):
            settled_at = self.settled_at.isoformat()
        else:
            settled_at = self.settled_at

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        round_: None | str
        round_ = self.round_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "status": status,
                "version": version,
                "rules": rules,
                "currency": currency,
                "stake": stake,
                "table": table,
                "reference": reference,
                "deal": deal,
                "arrange_seconds": arrange_seconds,
                "created_at": created_at,
                "deadline": deadline,
                "settled_at": settled_at,
                "players": players,
                "round": round_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rules_echo import RulesEcho
        from ..models.susun_game_player import SusunGamePlayer

        d = dict(src_dict)
        id = d.pop("id")

        status = check_susun_game_status(d.pop("status"))

        version = d.pop("version")

        rules = RulesEcho.from_dict(d.pop("rules"))

        currency = d.pop("currency")

        stake = d.pop("stake")

        def _parse_table(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        table = _parse_table(d.pop("table"))

        def _parse_reference(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reference = _parse_reference(d.pop("reference"))

        deal = d.pop("deal")

        arrange_seconds = d.pop("arrange_seconds")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        deadline = datetime.datetime.fromisoformat(d.pop("deadline"))

        def _parse_settled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                settled_at_type_0 = datetime.datetime.fromisoformat(data)

                return settled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        settled_at = _parse_settled_at(d.pop("settled_at"))

        players = []
        _players = d.pop("players")
        for players_item_data in _players:
            players_item = SusunGamePlayer.from_dict(players_item_data)

            players.append(players_item)

        def _parse_round_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        round_ = _parse_round_(d.pop("round"))

        susun_game = cls(
            id=id,
            status=status,
            version=version,
            rules=rules,
            currency=currency,
            stake=stake,
            table=table,
            reference=reference,
            deal=deal,
            arrange_seconds=arrange_seconds,
            created_at=created_at,
            deadline=deadline,
            settled_at=settled_at,
            players=players,
            round_=round_,
        )

        return susun_game
