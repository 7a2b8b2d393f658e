from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.audit import Audit


T = TypeVar("T", bound="Void")


@_attrs_define
class Void:
    """
    Attributes:
        at (datetime.datetime):  Example: 2026-11-29T11:00:00.000Z.
        reason (str):  Example: dealer error.
        audit (Audit | None): The void's own record in the chain and its receipt.
    """

    at: datetime.datetime
    reason: str
    audit: Audit | None

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit import Audit

        at = self.at.isoformat()

        reason = self.reason

        audit: dict[str, Any] | None
        if isinstance(self.audit, Audit):
            audit = self.audit.to_dict()
        else:
            audit = self.audit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "at": at,
                "reason": reason,
                "audit": audit,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit import Audit

        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        reason = d.pop("reason")

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

        void = cls(
            at=at,
            reason=reason,
            audit=audit,
        )

        return void
