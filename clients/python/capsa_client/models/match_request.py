from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.match_request_rules_type_1 import MatchRequestRulesType1


T = TypeVar("T", bound="MatchRequest")


@_attrs_define
class MatchRequest:
    """
    Attributes:
        currency (str): ISO 4217 code known to CLDR. Example: IDR.
        stake (str): Stake per point, for every game of the match. Example: 1000.
        players (list[str]): 2 to 4 unique player ids in seat order, for every game. Example: ['a', 'b', 'c', 'd'].
        rules (MatchRequestRulesType1 | str | Unset): Rule set: a Banting preset name, or one with parameter overrides
            (docs/rules.md#banting-parameters). Omitted: capsa-banting-id; a Capsa Susun preset is 422 unknown-rules.
            Example: capsa-banting-id.
        table (None | str | Unset): The operator's table. Example: table-7.
        target_points (int | Unset): The match ends once a player's total reaches it (default 101); lowest total wins.
            Example: 101.
    """

    currency: str
    stake: str
    players: list[str]
    rules: MatchRequestRulesType1 | str | Unset = UNSET
    table: None | str | Unset = UNSET
    target_points: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.match_request_rules_type_1 import MatchRequestRulesType1

        currency = self.currency

        stake = self.stake

        players = self.players

        rules: dict[str, Any] | str | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, MatchRequestRulesType1):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        table: None | str | Unset
        if isinstance(self.table, Unset):
            table = UNSET
        else:
            table = self.table

        target_points = self.target_points

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
        if target_points is not UNSET:
            field_dict["target_points"] = target_points

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.match_request_rules_type_1 import MatchRequestRulesType1

        d = dict(src_dict)
        currency = d.pop("currency")

        stake = d.pop("stake")

        players = cast(list[str], d.pop("players"))

        def _parse_rules(data: object) -> MatchRequestRulesType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = MatchRequestRulesType1.from_dict(data)

                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MatchRequestRulesType1 | str | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        def _parse_table(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        table = _parse_table(d.pop("table", UNSET))

        target_points = d.pop("target_points", UNSET)

        match_request = cls(
            currency=currency,
            stake=stake,
            players=players,
            rules=rules,
            table=table,
            target_points=target_points,
        )

        return match_request
