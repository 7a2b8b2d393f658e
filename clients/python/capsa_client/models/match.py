from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.match_status import MatchStatus, check_match_status

if TYPE_CHECKING:
    from ..models.match_game import MatchGame
    from ..models.match_player import MatchPlayer
    from ..models.rules_echo import RulesEcho


T = TypeVar("T", bound="Match")


@_attrs_define
class Match:
    """
    Attributes:
        id (str):  Example: mt_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        status (MatchStatus):  Example: playing.
        version (int): Bumped by every game started or finished, and by a void of one of its games. Example: 1.
        rules (RulesEcho):
        currency (str):  Example: IDR.
        stake (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 1000.
        table (None | str):  Example: table-7.
        target_points (int):  Example: 101.
        players (list[MatchPlayer]):
        played (int): How many games have finished, voided ones too (the last one's `n`). Example: 1.
        games (list[MatchGame]): The latest 100 finished games (all of them up to 100), voided ones too, oldest first;
            every game is in `GET /v1/banting/matches/{id}/games`.
        current_game (None | str): The game being played, if any.
        next_leader (None | str): Who leads the next game (first_lead previous_winner); null: the lowest card. Example:
            a.
        winners (list[str]): Once finished: the players with the lowest total. Example: [].
    """

    id: str
    status: MatchStatus
    version: int
    rules: RulesEcho
    currency: str
    stake: str
    table: None | str
    target_points: int
    players: list[MatchPlayer]
    played: int
    games: list[MatchGame]
    current_game: None | str
    next_leader: None | str
    winners: list[str]

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status: str = self.status

        version = self.version

        rules = self.rules.to_dict()

        currency = self.currency

        stake = self.stake

        table: None | str
        table = self.table

        target_points = self.target_points

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        played = self.played

        games = []
        for games_item_data in self.games:
            games_item = games_item_data.to_dict()
            games.append(games_item)

        current_game: None | str
        current_game = self.current_game

        next_leader: None | str
        next_leader = self.next_leader

        winners = self.winners

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
                "target_points": target_points,
                "players": players,
                "played": played,
                "games": games,
                "current_game": current_game,
                "next_leader": next_leader,
                "winners": winners,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.match_game import MatchGame
        from ..models.match_player import MatchPlayer
        from ..models.rules_echo import RulesEcho

        d = dict(src_dict)
        id = d.pop("id")

        status = check_match_status(d.pop("status"))

        version = d.pop("version")

        rules = RulesEcho.from_dict(d.pop("rules"))

        currency = d.pop("currency")

        stake = d.pop("stake")

        def _parse_table(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        table = _parse_table(d.pop("table"))

        target_points = d.pop("target_points")

        players = []
        _players = d.pop("players")
        for players_item_data in _players:
            players_item = MatchPlayer.from_dict(players_item_data)

            players.append(players_item)

        played = d.pop("played")

        games = []
        _games = d.pop("games")
        for games_item_data in _games:
            games_item = MatchGame.from_dict(games_item_data)

            games.append(games_item)

        def _parse_current_game(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        current_game = _parse_current_game(d.pop("current_game"))

        def _parse_next_leader(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_leader = _parse_next_leader(d.pop("next_leader"))

        winners = cast(list[str], d.pop("winners"))

        match = cls(
            id=id,
            status=status,
            version=version,
            rules=rules,
            currency=currency,
            stake=stake,
            table=table,
            target_points=target_points,
            players=players,
            played=played,
            games=games,
            current_game=current_game,
            next_leader=next_leader,
            winners=winners,
        )

        return match
