from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.entry_kind import EntryKind, check_entry_kind

T = TypeVar("T", bound="Entry")


@_attrs_define
class Entry:
    """
    Attributes:
        round_ (str):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        sequence (int): The chain record that booked the line. Example: 42.
        created_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
        account (str): `player:<id>` or `house`. Example: player:a.
        kind (EntryKind):  Example: settlement.
        amount (str): Signed decimal string, minor-unit digits. Example: 11000.
        currency (str):  Example: IDR.
    """

    round_: str
    sequence: int
    created_at: datetime.datetime
    account: str
    kind: EntryKind
    amount: str
    currency: str

    def to_dict(self) -> dict[str, Any]:
        round_ = self.round_

        sequence = self.sequence

        created_at = self.created_at.isoformat()

        account = self.account

        kind: str = self.kind

        amount = self.amount

        currency = self.currency

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "round": round_,
                "sequence": sequence,
                "created_at": created_at,
                "account": account,
                "kind": kind,
                "amount": amount,
                "currency": currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        round_ = d.pop("round")

        sequence = d.pop("sequence")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        account = d.pop("account")

        kind = check_entry_kind(d.pop("kind"))

        amount = d.pop("amount")

        currency = d.pop("currency")

        entry = cls(
            round_=round_,
            sequence=sequence,
            created_at=created_at,
            account=account,
            kind=kind,
            amount=amount,
            currency=currency,
        )

        return entry
