from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.statement_line_kind import StatementLineKind, check_statement_line_kind

T = TypeVar("T", bound="StatementLine")


@_attrs_define
class StatementLine:
    """
    Attributes:
        created_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
        round_ (str):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        sequence (int): The chain record that booked the line. Example: 42.
        kind (StatementLineKind):  Example: settlement.
        amount (str): Signed decimal string, minor-unit digits. Example: 11000.
        balance (str): The account's balance after this line. Example: 21000.
    """

    created_at: datetime.datetime
    round_: str
    sequence: int
    kind: StatementLineKind
    amount: str
    balance: str

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        round_ = self.round_

        sequence = self.sequence

        kind: str = self.kind

        amount = self.amount

        balance = self.balance

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "created_at": created_at,
                "round": round_,
                "sequence": sequence,
                "kind": kind,
                "amount": amount,
                "balance": balance,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        round_ = d.pop("round")

        sequence = d.pop("sequence")

        kind = check_statement_line_kind(d.pop("kind"))

        amount = d.pop("amount")

        balance = d.pop("balance")

        statement_line = cls(
            created_at=created_at,
            round_=round_,
            sequence=sequence,
            kind=kind,
            amount=amount,
            balance=balance,
        )

        return statement_line
