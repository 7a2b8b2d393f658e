from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.arrangement import Arrangement


T = TypeVar("T", bound="SubmissionRequest")


@_attrs_define
class SubmissionRequest:
    """
    Attributes:
        arrangement (Arrangement | None | Unset): The rows, using exactly the player's hand.
        surrender (bool | Unset): true to surrender instead (where the rules allow it). Example: False.
    """

    arrangement: Arrangement | None | Unset = UNSET
    surrender: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.arrangement import Arrangement

        arrangement: dict[str, Any] | None | Unset
        if isinstance(self.arrangement, Unset):
            arrangement = UNSET
        elif isinstance(self.arrangement, Arrangement):
            arrangement = self.arrangement.to_dict()
        else:
            arrangement = self.arrangement

        surrender = self.surrender

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if arrangement is not UNSET:
            field_dict["arrangement"] = arrangement
        if surrender is not UNSET:
            field_dict["surrender"] = surrender

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.arrangement import Arrangement

        d = dict(src_dict)

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

        submission_request = cls(
            arrangement=arrangement,
            surrender=surrender,
        )

        return submission_request
