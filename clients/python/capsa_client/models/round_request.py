from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.pair_stake import PairStake
    from ..models.player import Player
    from ..models.round_request_rules_type_1 import RoundRequestRulesType1


T = TypeVar("T", bound="RoundRequest")


@_attrs_define
class RoundRequest:
    """
    Attributes:
        currency (str): ISO 4217 code known to CLDR. Example: IDR.
        stake (str): Stake per point, every pair unless `pair_stakes` says otherwise. Example: 1000.
        players (list[Player]): 2 to 4 players with unique ids.
        rules (RoundRequestRulesType1 | str | Unset): Rule set: a preset name, or a preset with parameter overrides.
            Omitted: capsa-susun-id. Example: capsa-susun-id.
        table (None | str | Unset): The operator's table. Example: table-7.
        reference (None | str | Unset): The operator's own id of the round, unique per client among rounds and Capsa
            Susun games. Example: client-round-9912.
        pair_stakes (list[PairStake] | Unset): Per-pair stakes. Example: [{'players': ['a', 'b'], 'stake': '5000'}].
        deal (None | str | Unset): A deal id (provably fair dealing), or null.
    """

    currency: str
    stake: str
    players: list[Player]
    rules: RoundRequestRulesType1 | str | Unset = UNSET
    table: None | str | Unset = UNSET
    reference: None | str | Unset = UNSET
    pair_stakes: list[PairStake] | Unset = UNSET
    deal: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.round_request_rules_type_1 import RoundRequestRulesType1

        currency = self.currency

        stake = self.stake

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        rules: dict[str, Any] | str | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, RoundRequestRulesType1):
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

        pair_stakes: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.pair_stakes, Unset):
            pair_stakes = []
            for pair_stakes_item_data in self.pair_stakes:
                pair_stakes_item = pair_stakes_item_data.to_dict()
                pair_stakes.append(pair_stakes_item)

        deal: None | str | Unset
        if isinstance(self.deal, Unset):
            deal = UNSET
        else:
            deal = self.deal

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "currency": currency,
                "stake": stake,
                "players": players,
            }
        )
        if rules is not UNSET:
            field_dict["rules"] = rules
        if table is not UNSET:
            field_dict["table"] = table
        if reference is not UNSET:
            field_dict["reference"] = reference
        if pair_stakes is not UNSET:
            field_dict["pair_stakes"] = pair_stakes
        if deal is not UNSET:
            field_dict["deal"] = deal

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pair_stake import PairStake
        from ..models.player import Player
        from ..models.round_request_rules_type_1 import RoundRequestRulesType1

        d = dict(src_dict)
        currency = d.pop("currency")

        stake = d.pop("stake")

        players = []
        _players = d.pop("players")
        for players_item_data in _players:
            players_item = Player.from_dict(players_item_data)

            players.append(players_item)

        def _parse_rules(data: object) -> RoundRequestRulesType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = RoundRequestRulesType1.from_dict(data)

                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(RoundRequestRulesType1 | str | Unset, data)

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

        _pair_stakes = d.pop("pair_stakes", UNSET)
        pair_stakes: list[PairStake] | Unset = UNSET
        if _pair_stakes is not UNSET:
            pair_stakes = []
            for pair_stakes_item_data in _pair_stakes:
                pair_stakes_item = PairStake.from_dict(pair_stakes_item_data)

                pair_stakes.append(pair_stakes_item)

        def _parse_deal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deal = _parse_deal(d.pop("deal", UNSET))

        round_request = cls(
            currency=currency,
            stake=stake,
            players=players,
            rules=rules,
            table=table,
            reference=reference,
            pair_stakes=pair_stakes,
            deal=deal,
        )

        return round_request
