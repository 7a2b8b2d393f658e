from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.as_of import AsOf
    from ..models.entry import Entry


T = TypeVar("T", bound="EntryList")


@_attrs_define
class EntryList:
    """
    Attributes:
        items (list[Entry]):
        next_cursor (None | str): Pass as `cursor` for the next page; null on the last.
        as_of (AsOf):
    """

    items: list[Entry]
    next_cursor: None | str
    as_of: AsOf

    def to_dict(self) -> dict[str, Any]:
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        next_cursor: None | str
        next_cursor = self.next_cursor

        as_of = self.as_of.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "items": items,
                "next_cursor": next_cursor,
                "as_of": as_of,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.as_of import AsOf
        from ..models.entry import Entry

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = Entry.from_dict(items_item_data)

            items.append(items_item)

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        as_of = AsOf.from_dict(d.pop("as_of"))

        entry_list = cls(
            items=items,
            next_cursor=next_cursor,
            as_of=as_of,
        )

        return entry_list
