from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.as_of import AsOf
    from ..models.summary_row import SummaryRow


T = TypeVar("T", bound="Summary")


@_attrs_define
class Summary:
    """
    Attributes:
        currency (str):  Example: IDR.
        rows (list[SummaryRow]): Players' lines per group, ordered by key (null first, then by Unicode code point,
            whatever the database's collation).
        house_fee (str): Signed decimal string, minor-unit digits. Example: 330.
        as_of (AsOf):
    """

    currency: str
    rows: list[SummaryRow]
    house_fee: str
    as_of: AsOf

    def to_dict(self) -> dict[str, Any]:
        currency = self.currency

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)

        house_fee = self.house_fee

        as_of = self.as_of.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "currency": currency,
                "rows": rows,
                "house_fee": house_fee,
                "as_of": as_of,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.as_of import AsOf
        from ..models.summary_row import SummaryRow

        d = dict(src_dict)
        currency = d.pop("currency")

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in _rows:
            rows_item = SummaryRow.from_dict(rows_item_data)

            rows.append(rows_item)

        house_fee = d.pop("house_fee")

        as_of = AsOf.from_dict(d.pop("as_of"))

        summary = cls(
            currency=currency,
            rows=rows,
            house_fee=house_fee,
            as_of=as_of,
        )

        return summary
