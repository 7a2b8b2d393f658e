from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.hint_combination_type_1 import (
    HintCombinationType1,
    check_hint_combination_type_1,
)
from ..models.hint_combination_type_2_type_1 import (
    HintCombinationType2Type1,
    check_hint_combination_type_2_type_1,
)
from ..models.hint_combination_type_3_type_1 import (
    HintCombinationType3Type1,
    check_hint_combination_type_3_type_1,
)

if TYPE_CHECKING:
    from ..models.hint_move import HintMove


T = TypeVar("T", bound="Hint")


@_attrs_define
class Hint:
    """
    Attributes:
        game (str):  Example: gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        version (int): The game version the hint was made on (If-Match). Example: 3.
        move (HintMove):
        combination (HintCombinationType1 | HintCombinationType2Type1 | HintCombinationType3Type1 | None): null for a
            pass. Example: straight.
        deadline (datetime.datetime | None): When the player's turn runs out; null when untimed.
    """

    game: str
    version: int
    move: HintMove
    combination: HintCombinationType1 | HintCombinationType2Type1 | HintCombinationType3Type1 | None
    deadline: datetime.datetime | None

    def to_dict(self) -> dict[str, Any]:
        game = self.game

        version = self.version

        move = self.move.to_dict()

        combination: None | str
        if isinstance(self.combination, str) or isinstance(self.combination, str) or isinstance(self.combination, str):
            combination = self.combination
        else:
            combination = self.combination

        deadline: None | str
        if isinstance(self.deadline, datetime.datetime):
            deadline = self.deadline.isoformat()
        else:
            deadline = self.deadline

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "game": game,
                "version": version,
                "move": move,
                "combination": combination,
                "deadline": deadline,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.hint_move import HintMove

        d = dict(src_dict)
        game = d.pop("game")

        version = d.pop("version")

        move = HintMove.from_dict(d.pop("move"))

        def _parse_combination(
            data: object,
        ) -> HintCombinationType1 | HintCombinationType2Type1 | HintCombinationType3Type1 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                combination_type_1 = check_hint_combination_type_1(data)

                return combination_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                combination_type_2_type_1 = check_hint_combination_type_2_type_1(data)

                return combination_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                combination_type_3_type_1 = check_hint_combination_type_3_type_1(data)

                return combination_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HintCombinationType1 | HintCombinationType2Type1 | HintCombinationType3Type1 | None, data)

        combination = _parse_combination(d.pop("combination"))

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

        hint = cls(
            game=game,
            version=version,
            move=move,
            combination=combination,
            deadline=deadline,
        )

        return hint
