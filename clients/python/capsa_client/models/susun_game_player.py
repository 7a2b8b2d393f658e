from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.arrangement import Arrangement


T = TypeVar("T", bound="SusunGamePlayer")


@_attrs_define
class SusunGamePlayer:
    """
    Attributes:
        id (str):  Example: a.
        submitted (bool): The player sent its rows or surrendered. Example: True.
        submitted_at (datetime.datetime | None):  Example: 2026-11-29T10:00:12.000Z.
        arrangement (Arrangement | None | Unset): Once settled only: the rows played.
        surrender (bool | Unset): Once settled only. Example: False.
        auto_arranged (bool | Unset): Once settled only: the service set this hand (no submission by the deadline).
            Example: False.
    """

    id: str
    submitted: bool
    submitted_at: datetime.datetime | None
    arrangement: Arrangement | None | Unset = UNSET
    surrender: bool | Unset = UNSET
    auto_arranged: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.arrangement import Arrangement

        id = self.id

        submitted = self.submitted

        submitted_at: None | str
        if isinstance(self.submitted_at, datetime.datetime):
            submitted_at = self.submitted_at.isoformat()
        else:
            submitted_at = self.submitted_at

        arrangement: dict[str, Any] | None | Unset
        if isinstance(self.arrangement, Unset):
            arrangement = UNSET
        elif isinstance(self.arrangement, Arrangement):
            arrangement = self.arrangement.to_dict()
        else:
            arrangement = self.arrangement

        surrender = self.surrender

        auto_arranged = self.auto_arranged

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "submitted": submitted,
                "submitted_at": submitted_at,
            }
        )
        if arrangement is not UNSET:
            field_dict["arrangement"] = arrangement
        if surrender is not UNSET:
            field_dict["surrender"] = surrender
        if auto_arranged is not UNSET:
            field_dict["auto_arranged"] = auto_arranged

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.arrangement import Arrangement

        d = dict(src_dict)
        id = d.pop("id")

        submitted = d.pop("submitted")

        def _parse_submitted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submitted_at_type_0 = datetime.datetime.fromisoformat(data)

                return submitted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        submitted_at = _parse_submitted_at(d.pop("submitted_at"))

        def _parse_arrangement(data: object) -> Arrangement | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                arrangement_type_0 = Arrangement.from_dict(data)

                return arrangement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Arrangement | None | Unset, data)

        arrangement = _parse_arrangement(d.pop("arrangement", UNSET))

        surrender = d.pop("surrender", UNSET)

        auto_arranged = d.pop("auto_arranged", UNSET)

        susun_game_player = cls(
            id=id,
            submitted=submitted,
            submitted_at=submitted_at,
            arrangement=arrangement,
            surrender=surrender,
            auto_arranged=auto_arranged,
        )

        return susun_game_player
