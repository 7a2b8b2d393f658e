from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.susun_game_request_rules_type_1 import SusunGameRequestRulesType1


T = TypeVar("T", bound="SusunGameRequest")


@_attrs_define
class SusunGameRequest:
    """
    Attributes:
        players (list[str]): 2 to 4 unique player ids, in seat (and deal) order. Example: ['a', 'b', 'c', 'd'].
        currency (str): ISO 4217 code known to CLDR. Example: IDR.
        stake (str): Stake per point, every pair. Example: 1000.
        arrange_seconds (int): Seconds the players have to arrange; the deadline is the game's creation time plus this.
            Example: 60.
        rules (str | SusunGameRequestRulesType1 | Unset): Rule set: a preset name, or a preset with parameter overrides.
            Omitted: capsa-susun-id. Example: capsa-susun-id.
        table (None | str | Unset): The operator's table. Example: table-7.
        reference (None | str | Unset): The operator's own id of the round the game becomes, unique per client (rounds
            and games). Example: client-round-9913.
        deal (None | str | Unset): A deal id (POST /v1/deals): its players, in its order. Omitted: the service makes a
            deal for the game.
        client_seed (None | str | Unset): Without `deal` only (with it, 422): the client seed of the deal the service
            makes (omitted: the game's id), read as for `POST /v1/deals`. Example: table-7:hand-88.
    """

    players: list[str]
    currency: str
    stake: str
    arrange_seconds: int
    rules: str | SusunGameRequestRulesType1 | Unset = UNSET
    table: None | str | Unset = UNSET
    reference: None | str | Unset = UNSET
    deal: None | str | Unset = UNSET
    client_seed: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.susun_game_request_rules_type_1 import SusunGameRequestRulesType1

        players = self.players

        currency = self.currency

        stake = self.stake

        arrange_seconds = self.arrange_seconds

        rules: dict[str, Any] | str | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, SusunGameRequestRulesType1):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        table: None | str | Unset
        if isinstance(self.table, Unset):
            table = UNSET
        else:
            table = self.table

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference

        deal: None | str | Unset
        if isinstance(self.deal, Unset):
            deal = UNSET
        else:
            deal = self.deal

        client_seed: None | str | Unset
        if isinstance(self.client_seed, Unset):
            client_seed = UNSET
        else:
            client_seed = self.client_seed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "players": players,
                "currency": currency,
                "stake": stake,
                "arrange_seconds": arrange_seconds,
            }
        )
        if rules is not UNSET:
            field_dict["rules"] = rules
        if table is not UNSET:
            field_dict["table"] = table
        if reference is not UNSET:
            field_dict["reference"] = reference
        if deal is not UNSET:
            field_dict["deal"] = deal
        if client_seed is not UNSET:
            field_dict["client_seed"] = client_seed

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.susun_game_request_rules_type_1 import SusunGameRequestRulesType1

        d = dict(src_dict)
        players = cast(list[str], d.pop("players"))

        currency = d.pop("currency")

        stake = d.pop("stake")

        arrange_seconds = d.pop("arrange_seconds")

        def _parse_rules(data: object) -> str | SusunGameRequestRulesType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = SusunGameRequestRulesType1.from_dict(data)

                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(str | SusunGameRequestRulesType1 | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        def _parse_table(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        table = _parse_table(d.pop("table", UNSET))

        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))

        def _parse_deal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deal = _parse_deal(d.pop("deal", UNSET))

        def _parse_client_seed(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_seed = _parse_client_seed(d.pop("client_seed", UNSET))

        susun_game_request = cls(
            players=players,
            currency=currency,
            stake=stake,
            arrange_seconds=arrange_seconds,
            rules=rules,
            table=table,
            reference=reference,
            deal=deal,
            client_seed=client_seed,
        )

        return susun_game_request
