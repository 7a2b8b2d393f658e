from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.pair_result_outcome import PairResultOutcome, check_pair_result_outcome
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.pair_result_bonus import PairResultBonus
    from ..models.pair_rows import PairRows


T = TypeVar("T", bound="PairResult")


@_attrs_define
class PairResult:
    """
    Attributes:
        players (list[str]):  Example: ['a', 'b'].
        stake (str): Decimal string in plain notation with the currency's minor-unit digits (never a JSON number).
            Example: 1000.
        rows (None | PairRows):
        outcome (PairResultOutcome):  Example: tembus.
        multiplier (int):  Example: 2.
        points (int): From the first player's side. Example: 11.
        amount (str): Signed decimal string, minor-unit digits. Example: 11000.
        bonus (PairResultBonus | Unset): What each side was paid in this pair (Capsa Susun only). Example: {'a': 5, 'b':
            0}.
    """

    players: list[str]
    stake: str
    rows: None | PairRows
    outcome: PairResultOutcome
    multiplier: int
    points: int
    amount: str
    bonus: PairResultBonus | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.pair_rows import PairRows

        players = self.players

        stake = self.stake

        rows: dict[str, Any] | None
        if isinstance(self.rows, PairRows):
            rows = self.rows.to_dict()
        else:
            rows = self.rows

        outcome: str = self.outcome

        multiplier = self.multiplier

        points = self.points

        amount = self.amount

        bonus: dict[str, Any] | Unset = UNSET
        if not isinstance(self.bonus, Unset):
            bonus = self.bonus.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "players": players,
                "stake": stake,
                "rows": rows,
                "outcome": outcome,
                "multiplier": multiplier,
                "points": points,
                "amount": amount,
            }
        )
        if bonus is not UNSET:
            field_dict["bonus"] = bonus

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pair_result_bonus import PairResultBonus
        from ..models.pair_rows import PairRows

        d = dict(src_dict)
        players = cast(list[str], d.pop("players"))

        stake = d.pop("stake")

        def _parse_rows(data: object) -> None | PairRows:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rows_type_0 = PairRows.from_dict(data)

                return rows_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PairRows, data)

        rows = _parse_rows(d.pop("rows"))

        outcome = check_pair_result_outcome(d.pop("outcome"))

        multiplier = d.pop("multiplier")

        points = d.pop("points")

        amount = d.pop("amount")

        _bonus = d.pop("bonus", UNSET)
        bonus: PairResultBonus | Unset
        if isinstance(_bonus, Unset):
            bonus = UNSET
        else:
            bonus = PairResultBonus.from_dict(_bonus)

        pair_result = cls(
            players=players,
            stake=stake,
            rows=rows,
            outcome=outcome,
            multiplier=multiplier,
            points=points,
            amount=amount,
            bonus=bonus,
        )

        return pair_result
