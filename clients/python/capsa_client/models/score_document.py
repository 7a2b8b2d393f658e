from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.score_document_game import ScoreDocumentGame, check_score_document_game
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.history_entry import HistoryEntry
    from ..models.pair_result import PairResult
    from ..models.player_result import PlayerResult
    from ..models.rules_echo import RulesEcho


T = TypeVar("T", bound="ScoreDocument")


@_attrs_define
class ScoreDocument:
    """
    Attributes:
        game (ScoreDocumentGame):  Example: susun.
        table (None | str):  Example: table-7.
        reference (None | str):  Example: client-round-9912.
        currency (str):  Example: IDR.
        stake (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 1000.
        rules (RulesEcho):
        engine_version (str):  Example: 1.0.0.
        players (list[PlayerResult]):
        pairs (list[PairResult]):
        house_fee (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 330.
        game_id (str | Unset): Rounds of a server-run Capsa Susun game only: the game. Example:
            sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        history (list[HistoryEntry] | Unset): Capsa Banting only: the game's moves.
        turn_seconds (int | None | Unset): Capsa Banting games stored from the turn timers on: the game's turn timer
            (null: untimed).
    """

    game: ScoreDocumentGame
    table: None | str
    reference: None | str
    currency: str
    stake: str
    rules: RulesEcho
    engine_version: str
    players: list[PlayerResult]
    pairs: list[PairResult]
    house_fee: str
    game_id: str | Unset = UNSET
    history: list[HistoryEntry] | Unset = UNSET
    turn_seconds: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game: str = self.game

        table: None | str
        table = self.table

        reference: None | str
        reference = self.reference

        currency = self.currency

        stake = self.stake

        rules = self.rules.to_dict()

        engine_version = self.engine_version

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        pairs = []
        for pairs_item_data in self.pairs:
            pairs_item = pairs_item_data.to_dict()
            pairs.append(pairs_item)

        house_fee = self.house_fee

        game_id = self.game_id

        history: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.history, Unset):
            history = []
            for history_item_data in self.history:
                history_item = history_item_data.to_dict()
                history.append(history_item)

        turn_seconds: int | None | Unset
        if isinstance(self.turn_seconds, Unset):
            turn_seconds = UNSET
        else:
            turn_seconds = self.turn_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "game": game,
                "table": table,
                "reference": reference,
                "currency": currency,
                "stake": stake,
                "rules": rules,
                "engine_version": engine_version,
                "players": players,
                "pairs": pairs,
                "house_fee": house_fee,
            }
        )
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if history is not UNSET:
            field_dict["history"] = history
        if turn_seconds is not UNSET:
            field_dict["turn_seconds"] = turn_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.history_entry import HistoryEntry
        from ..models.pair_result import PairResult
        from ..models.player_result import PlayerResult
        from ..models.rules_echo import RulesEcho

        d = dict(src_dict)
        game = check_score_document_game(d.pop("game"))

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

        currency = d.pop("currency")

        stake = d.pop("stake")

        rules = RulesEcho.from_dict(d.pop("rules"))

        engine_version = d.pop("engine_version")

        players = []
        _players = d.pop("players")
        for players_item_data in _players:
            players_item = PlayerResult.from_dict(players_item_data)

            players.append(players_item)

        pairs = []
        _pairs = d.pop("pairs")
        for pairs_item_data in _pairs:
            pairs_item = PairResult.from_dict(pairs_item_data)

            pairs.append(pairs_item)

        house_fee = d.pop("house_fee")

        game_id = d.pop("game_id", UNSET)

        _history = d.pop("history", UNSET)
        history: list[HistoryEntry] | Unset = UNSET
        if _history is not UNSET:
            history = []
            for history_item_data in _history:
                history_item = HistoryEntry.from_dict(history_item_data)

                history.append(history_item)

        def _parse_turn_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn_seconds = _parse_turn_seconds(d.pop("turn_seconds", UNSET))

        score_document = cls(
            game=game,
            table=table,
            reference=reference,
            currency=currency,
            stake=stake,
            rules=rules,
            engine_version=engine_version,
            players=players,
            pairs=pairs,
            house_fee=house_fee,
            game_id=game_id,
            history=history,
            turn_seconds=turn_seconds,
        )

        return score_document
