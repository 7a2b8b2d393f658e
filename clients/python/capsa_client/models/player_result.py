from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.player_result_natural_type_1 import (
    PlayerResultNaturalType1,
    check_player_result_natural_type_1,
)
from ..models.player_result_natural_type_2_type_1 import (
    PlayerResultNaturalType2Type1,
    check_player_result_natural_type_2_type_1,
)
from ..models.player_result_natural_type_3_type_1 import (
    PlayerResultNaturalType3Type1,
    check_player_result_natural_type_3_type_1,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rows import Rows


T = TypeVar("T", bound="PlayerResult")


@_attrs_define
class PlayerResult:
    """
    Attributes:
        id (str):  Example: a.
        points (int):  Example: 11.
        result (str): Signed decimal string, minor-unit digits. Example: 11000.
        winnings (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 11000.
        fee (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 330.
        net (str): Signed decimal string, minor-unit digits. Example: 10670.
        rows (None | Rows | Unset): Capsa Susun only.
        foul (bool | Unset): Capsa Susun only. Example: False.
        natural (None | PlayerResultNaturalType1 | PlayerResultNaturalType2Type1 | PlayerResultNaturalType3Type1 |
            Unset): Capsa Susun only.
        surrender (bool | Unset): Capsa Susun only. Example: False.
        auto_arranged (bool | Unset): Rounds of a server-run Capsa Susun game only: the service set this hand. Example:
            False.
        cards_left (int | Unset): Capsa Banting only: cards left at the end. Example: 7.
    """

    id: str
    points: int
    result: str
    winnings: str
    fee: str
    net: str
    rows: None | Rows | Unset = UNSET
    foul: bool | Unset = UNSET
    natural: None | PlayerResultNaturalType1 | PlayerResultNaturalType2Type1 | PlayerResultNaturalType3Type1 | Unset = (
        UNSET
    )
    surrender: bool | Unset = UNSET
    auto_arranged: bool | Unset = UNSET
    cards_left: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.rows import Rows

        id = self.id

        points = self.points

        result = self.result

        winnings = self.winnings

        fee = self.fee

        net = self.net

        rows: dict[str, Any] | None | Unset
        if isinstance(self.rows, Unset):
            rows = UNSET
        elif isinstance(self.rows, Rows):
            rows = self.rows.to_dict()
        else:
            rows = self.rows

        foul = self.foul

        natural: None | str | Unset
        if isinstance(self.natural, Unset):
            natural = UNSET
        elif isinstance(self.natural, str) or isinstance(self.natural, str) or isinstance(self.natural, str):
            natural = self.natural
        else:
            natural = self.natural

        surrender = self.surrender

        auto_arranged = self.auto_arranged

        cards_left = self.cards_left

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "points": points,
                "result": result,
                "winnings": winnings,
                "fee": fee,
                "net": net,
            }
        )
        if rows is not UNSET:
            field_dict["rows"] = rows
        if foul is not UNSET:
            field_dict["foul"] = foul
        if natural is not UNSET:
            field_dict["natural"] = natural
        if surrender is not UNSET:
            field_dict["surrender"] = surrender
        if auto_arranged is not UNSET:
            field_dict["auto_arranged"] = auto_arranged
        if cards_left is not UNSET:
            field_dict["cards_left"] = cards_left

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rows import Rows

        d = dict(src_dict)
        id = d.pop("id")

        points = d.pop("points")

        result = d.pop("result")

        winnings = d.pop("winnings")

        fee = d.pop("fee")

        net = d.pop("net")

        def _parse_rows(data: object) -> None | Rows | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rows_type_0 = Rows.from_dict(data)

                return rows_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Rows | Unset, data)

        rows = _parse_rows(d.pop("rows", UNSET))

        foul = d.pop("foul", UNSET)

        def _parse_natural(
            data: object,
        ) -> None | PlayerResultNaturalType1 | PlayerResultNaturalType2Type1 | PlayerResultNaturalType3Type1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_1 = check_player_result_natural_type_1(data)

                return natural_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_2_type_1 = check_player_result_natural_type_2_type_1(data)

                return natural_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_3_type_1 = check_player_result_natural_type_3_type_1(data)

                return natural_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None | PlayerResultNaturalType1 | PlayerResultNaturalType2Type1 | PlayerResultNaturalType3Type1 | Unset,
                data,
            )

        natural = _parse_natural(d.pop("natural", UNSET))

        surrender = d.pop("surrender", UNSET)

        auto_arranged = d.pop("auto_arranged", UNSET)

        cards_left = d.pop("cards_left", UNSET)

        player_result = cls(
            id=id,
            points=points,
            result=result,
            winnings=winnings,
            fee=fee,
            net=net,
            rows=rows,
            foul=foul,
            natural=natural,
            surrender=surrender,
            auto_arranged=auto_arranged,
            cards_left=cards_left,
        )

        return player_result
