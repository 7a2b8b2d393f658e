from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.as_of import AsOf


T = TypeVar("T", bound="ChainVerify")


@_attrs_define
class ChainVerify:
    """
    Attributes:
        ok (bool):  Example: True.
        records_checked (int):  Example: 42.
        first_bad_sequence (int | None):
        reason (None | str): Why the first bad record is bad (missing, hash, rows changed).
        next_from_sequence (int | None): Where to continue (pass it as `from_sequence`) while records remain after the
            ones checked; null once the checked run reached the chain's head.
        as_of (AsOf):
    """

    ok: bool
    records_checked: int
    first_bad_sequence: int | None
    reason: None | str
    next_from_sequence: int | None
    as_of: AsOf

    def to_dict(self) -> dict[str, Any]:
        ok = self.ok

        records_checked = self.records_checked

        first_bad_sequence: int | None
        first_bad_sequence = self.first_bad_sequence

        reason: None | str
        reason = self.reason

        next_from_sequence: int | None
        next_from_sequence = self.next_from_sequence

        as_of = self.as_of.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ok": ok,
                "records_checked": records_checked,
                "first_bad_sequence": first_bad_sequence,
                "reason": reason,
                "next_from_sequence": next_from_sequence,
                "as_of": as_of,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.as_of import AsOf

        d = dict(src_dict)
        ok = d.pop("ok")

        records_checked = d.pop("records_checked")

        def _parse_first_bad_sequence(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        first_bad_sequence = _parse_first_bad_sequence(d.pop("first_bad_sequence"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_next_from_sequence(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_from_sequence = _parse_next_from_sequence(d.pop("next_from_sequence"))

        as_of = AsOf.from_dict(d.pop("as_of"))

        chain_verify = cls(
            ok=ok,
            records_checked=records_checked,
            first_bad_sequence=first_bad_sequence,
            reason=reason,
            next_from_sequence=next_from_sequence,
            as_of=as_of,
        )

        return chain_verify
