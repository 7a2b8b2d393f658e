from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.banting_player import BantingPlayer
    from ..models.game_request_rules_type_1 import GameRequestRulesType1


T = TypeVar("T", bound="GameRequest")


@_attrs_define
class GameRequest:
    """
    Attributes:
        currency (str): ISO 4217 code known to CLDR. Example: IDR.
        stake (str): Stake per card owed. Example: 1000.
        players (list[BantingPlayer]): 2 to 4 players in seat order.
        rules (GameRequestRulesType1 | str | Unset): Rule set: a Banting preset name, or one with parameter overrides
            (docs/rules.md#banting-parameters). Omitted: capsa-banting-id; a Capsa Susun preset is 422 unknown-rules.
            Example: capsa-banting-id.
        table (None | str | Unset): The operator's table. Example: table-7.
        deal (None | str | Unset): A deal id: the players must be the deal's, in its order.
        turn_seconds (int | None | Unset): Optional turn timer, 1 to 86,400 seconds; null or absent: untimed. A turn
            lasts this long from the previous move (the game's start for the first); a player still in turn at its deadline
            is played for: it passes where the rules allow, otherwise it plays the hint. Such moves are `auto: true` in the
            history and the round, and the player's late move is 422 `illegal-move` (turn timed out). Example: 30.
    """

    currency: str
    stake: str
    players: list[BantingPlayer]
    rules: GameRequestRulesType1 | str | Unset = UNSET
    table: None | str | Unset = UNSET
    deal: None | str | Unset = UNSET
    turn_seconds: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.game_request_rules_type_1 import GameRequestRulesType1

        currency = self.currency

        stake = self.stake

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        rules: dict[str, Any] | str | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, GameRequestRulesType1):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        table: None | str | Unset
        if isinstance(self.table, Unset):
            table = UNSET
        else:
            table = self.table

        deal: None | str | Unset
        if isinstance(self.deal, Unset):
            deal = UNSET
        else:
            deal = self.deal

        turn_seconds: int | None | Unset
        if isinstance(self.turn_seconds, Unset):
            turn_seconds = UNSET
        else:
            turn_seconds = self.turn_seconds

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
        if deal is not UNSET:
            field_dict["deal"] = deal
        if turn_seconds is not UNSET:
            field_dict["turn_seconds"] = turn_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.banting_player import BantingPlayer
        from ..models.game_request_rules_type_1 import GameRequestRulesType1

        d = dict(src_dict)
        currency = d.pop("currency")

        stake = d.pop("stake")

        players = []
        _players = d.pop("players")
        for players_item_data in _players:
            players_item = BantingPlayer.from_dict(players_item_data)

            players.append(players_item)

        def _parse_rules(data: object) -> GameRequestRulesType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = GameRequestRulesType1.from_dict(data)

                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GameRequestRulesType1 | str | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        def _parse_table(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        table = _parse_table(d.pop("table", UNSET))

        def _parse_deal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deal = _parse_deal(d.pop("deal", UNSET))

        def _parse_turn_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn_seconds = _parse_turn_seconds(d.pop("turn_seconds", UNSET))

        game_request = cls(
            currency=currency,
            stake=stake,
            players=players,
            rules=rules,
            table=table,
            deal=deal,
            turn_seconds=turn_seconds,
        )

        return game_request
