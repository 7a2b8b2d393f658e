from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.game_state_status import GameStateStatus, check_game_state_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.game_player import GamePlayer
    from ..models.history_entry import HistoryEntry
    from ..models.rules_echo import RulesEcho
    from ..models.table_play import TablePlay


T = TypeVar("T", bound="GameState")


@_attrs_define
class GameState:
    """
    Attributes:
        id (str):  Example: gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        status (GameStateStatus):  Example: playing.
        version (int): Bumped by every move; send it as If-Match. Example: 1.
        rules (RulesEcho):
        currency (str):  Example: IDR.
        stake (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 1000.
        table (None | str):  Example: table-7.
        players (list[GamePlayer]):
        turn (None | str): Whose turn; null once finished. Example: a.
        turn_seconds (int | None): The turn timer; null when untimed.
        deadline (datetime.datetime | None): When the current turn runs out (the last move's time + turn_seconds); null
            when untimed or finished.
        leader (str): Who led the current trick. Example: a.
        table_play (None | TablePlay):
        history (list[HistoryEntry]):
        winner (None | str):  Example: a.
        round_ (None | str): The round the finished game became.
        match (str | Unset): Only for a game of a match. Example: mt_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
    """

    id: str
    status: GameStateStatus
    version: int
    rules: RulesEcho
    currency: str
    stake: str
    table: None | str
    players: list[GamePlayer]
    turn: None | str
    turn_seconds: int | None
    deadline: datetime.datetime | None
    leader: str
    table_play: None | TablePlay
    history: list[HistoryEntry]
    winner: None | str
    round_: None | str
    match: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.table_play import TablePlay

        id = self.id

        status: str = self.status

        version = self.version

        rules = self.rules.to_dict()

        currency = self.currency

        stake = self.stake

        table: None | str
        table = self.table

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        turn: None | str
        turn = self.turn

        turn_seconds: int | None
        turn_seconds = self.turn_seconds

        deadline: None | str
        if isinstance(self.deadline, datetime.datetime):
            deadline = self.deadline.isoformat()
        else:
            deadline = self.deadline

        leader = self.leader

        table_play: dict[str, Any] | None
        if isinstance(self.table_play, TablePlay):
            table_play = self.table_play.to_dict()
        else:
            table_play = self.table_play

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        winner: None | str
        winner = self.winner

        round_: None | str
        round_ = self.round_

        match = self.match

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
                "players": players,
                "turn": turn,
                "turn_seconds": turn_seconds,
                "deadline": deadline,
                "leader": leader,
                "table_play": table_play,
                "history": history,
                "winner": winner,
                "round": round_,
            }
        )
        if match is not UNSET:
            field_dict["match"] = match

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.game_player import GamePlayer
        from ..models.history_entry import HistoryEntry
        from ..models.rules_echo import RulesEcho
        from ..models.table_play import TablePlay

        d = dict(src_dict)
        id = d.pop("id")

        status = check_game_state_status(d.pop("status"))

        version = d.pop("version")

        rules = RulesEcho.from_dict(d.pop("rules"))

        currency = d.pop("currency")

        stake = d.pop("stake")

        def _parse_table(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        table = _parse_table(d.pop("table"))

        players = []
        _players = d.pop("players")
        for players_item_data in _players:
            players_item = GamePlayer.from_dict(players_item_data)

            players.append(players_item)

        def _parse_turn(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        turn = _parse_turn(d.pop("turn"))

        def _parse_turn_seconds(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        turn_seconds = _parse_turn_seconds(d.pop("turn_seconds"))

        def _parse_deadline(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deadline_type_0 = datetime.datetime.fromisoformat(data)

                return deadline_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        deadline = _parse_deadline(d.pop("deadline"))

        leader = d.pop("leader")

        def _parse_table_play(data: object) -> None | TablePlay:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                table_play_type_0 = TablePlay.from_dict(data)

                return table_play_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TablePlay, data)

        table_play = _parse_table_play(d.pop("table_play"))

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = HistoryEntry.from_dict(history_item_data)

            history.append(history_item)

        def _parse_winner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        winner = _parse_winner(d.pop("winner"))

        def _parse_round_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        round_ = _parse_round_(d.pop("round"))

        match = d.pop("match", UNSET)

        game_state = cls(
            id=id,
            status=status,
            version=version,
            rules=rules,
            currency=currency,
            stake=stake,
            table=table,
            players=players,
            turn=turn,
            turn_seconds=turn_seconds,
            deadline=deadline,
            leader=leader,
            table_play=table_play,
            history=history,
            winner=winner,
            round_=round_,
            match=match,
        )

        return game_state
