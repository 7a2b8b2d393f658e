from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.round_document_game import RoundDocumentGame, check_round_document_game
from ..models.round_document_status import (
    RoundDocumentStatus,
    check_round_document_status,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audit import Audit
    from ..models.history_entry import HistoryEntry
    from ..models.pair_result import PairResult
    from ..models.player_result import PlayerResult
    from ..models.rules_echo import RulesEcho
    from ..models.void import Void


T = TypeVar("T", bound="RoundDocument")


@_attrs_define
class RoundDocument:
    """
    Attributes:
        id (str):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        game (RoundDocumentGame):  Example: susun.
        created_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
        table (None | str):  Example: table-7.
        reference (None | str):  Example: client-round-9912.
        currency (str):  Example: IDR.
        stake (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 1000.
        rules (RulesEcho):
        engine_version (str):  Example: 1.0.0.
        status (RoundDocumentStatus):  Example: settled.
        void (None | Void):
        players (list[PlayerResult]):
        pairs (list[PairResult]):
        house_fee (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 330.
        audit (Audit | None): null until the audit trail exists.
        game_id (str | Unset): Rounds of a server-run Capsa Susun game only: the game. Example:
            sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        history (list[HistoryEntry] | Unset): Capsa Banting only: the game's moves.
        turn_seconds (int | None | Unset): Capsa Banting games stored from the turn timers on: the game's turn timer
            (null: untimed).
    """

    id: str
    game: RoundDocumentGame
    created_at: datetime.datetime
    table: None | str
    reference: None | str
    currency: str
    stake: str
    rules: RulesEcho
    engine_version: str
    status: RoundDocumentStatus
    void: None | Void
    players: list[PlayerResult]
    pairs: list[PairResult]
    house_fee: str
    audit: Audit | None
    game_id: str | Unset = UNSET
    history: list[HistoryEntry] | Unset = UNSET
    turn_seconds: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit import Audit
        from ..models.void import Void

        id = self.id

        game: str = self.game

        created_at = self.created_at.isoformat()

        table: None | str
        table = self.table

        reference: None | str
        reference = self.reference

        currency = self.currency

        stake = self.stake

        rules = self.rules.to_dict()

        engine_version = self.engine_version

        status: str = self.status

        void: dict[str, Any] | None
        if isinstance(self.void, Void):
            void = self.void.to_dict()
        else:
            void = self.void

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)

        pairs = []
        for pairs_item_data in self.pairs:
            pairs_item = pairs_item_data.to_dict()
            pairs.append(pairs_item)

        house_fee = self.house_fee

        audit: dict[str, Any] | None
        if isinstance(self.audit, Audit):
            audit = self.audit.to_dict()
        else:
            audit = self.audit

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
                "id": id,
                "game": game,
                "created_at": created_at,
                "table": table,
                "reference": reference,
                "currency": currency,
                "stake": stake,
                "rules": rules,
                "engine_version": engine_version,
                "status": status,
                "void": void,
                "players": players,
                "pairs": pairs,
                "house_fee": house_fee,
                "audit": audit,
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
        from ..models.audit import Audit
        from ..models.history_entry import HistoryEntry
        from ..models.pair_result import PairResult
        from ..models.player_result import PlayerResult
        from ..models.rules_echo import RulesEcho
        from ..models.void import Void

        d = dict(src_dict)
        id = d.pop("id")

        game = check_round_document_game(d.pop("game"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

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

        status = check_round_document_status(d.pop("status"))

        def _parse_void(data: object) -> None | Void:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                void_type_0 = Void.from_dict(data)

                return void_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Void, data)

        void = _parse_void(d.pop("void"))

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

        def _parse_audit(data: object) -> Audit | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                audit_type_0 = Audit.from_dict(data)

                return audit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Audit | None, data)

        audit = _parse_audit(d.pop("audit"))

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

        round_document = cls(
            id=id,
            game=game,
            created_at=created_at,
            table=table,
            reference=reference,
            currency=currency,
            stake=stake,
            rules=rules,
            engine_version=engine_version,
            status=status,
            void=void,
            players=players,
            pairs=pairs,
            house_fee=house_fee,
            audit=audit,
            game_id=game_id,
            history=history,
            turn_seconds=turn_seconds,
        )

        return round_document
