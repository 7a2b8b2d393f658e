from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.evaluation_foul_reason_type_1 import (
    EvaluationFoulReasonType1,
    check_evaluation_foul_reason_type_1,
)
from ..models.evaluation_foul_reason_type_2_type_1 import (
    EvaluationFoulReasonType2Type1,
    check_evaluation_foul_reason_type_2_type_1,
)
from ..models.evaluation_foul_reason_type_3_type_1 import (
    EvaluationFoulReasonType3Type1,
    check_evaluation_foul_reason_type_3_type_1,
)
from ..models.evaluation_natural_type_1 import (
    EvaluationNaturalType1,
    check_evaluation_natural_type_1,
)
from ..models.evaluation_natural_type_2_type_1 import (
    EvaluationNaturalType2Type1,
    check_evaluation_natural_type_2_type_1,
)
from ..models.evaluation_natural_type_3_type_1 import (
    EvaluationNaturalType3Type1,
    check_evaluation_natural_type_3_type_1,
)

if TYPE_CHECKING:
    from ..models.rows import Rows
    from ..models.rules_echo import RulesEcho


T = TypeVar("T", bound="Evaluation")


@_attrs_define
class Evaluation:
    """
    Attributes:
        rows (Rows):
        foul (bool):  Example: False.
        foul_reason (EvaluationFoulReasonType1 | EvaluationFoulReasonType2Type1 | EvaluationFoulReasonType3Type1 |
            None):
        natural (EvaluationNaturalType1 | EvaluationNaturalType2Type1 | EvaluationNaturalType3Type1 | None):
        bonus_total (int):  Example: 11.
        rules (RulesEcho):
    """

    rows: Rows
    foul: bool
    foul_reason: EvaluationFoulReasonType1 | EvaluationFoulReasonType2Type1 | EvaluationFoulReasonType3Type1 | None
    natural: EvaluationNaturalType1 | EvaluationNaturalType2Type1 | EvaluationNaturalType3Type1 | None
    bonus_total: int
    rules: RulesEcho

    def to_dict(self) -> dict[str, Any]:
        rows = self.rows.to_dict()

        foul = self.foul

        foul_reason: None | str
        if isinstance(self.foul_reason, str) or isinstance(self.foul_reason, str) or isinstance(self.foul_reason, str):
            foul_reason = self.foul_reason
        else:
            foul_reason = self.foul_reason

        natural: None | str
        if isinstance(self.natural, str) or isinstance(self.natural, str) or isinstance(self.natural, str):
            natural = self.natural
        else:
            natural = self.natural

        bonus_total = self.bonus_total

        rules = self.rules.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "rows": rows,
                "foul": foul,
                "foul_reason": foul_reason,
                "natural": natural,
                "bonus_total": bonus_total,
                "rules": rules,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rows import Rows
        from ..models.rules_echo import RulesEcho

        d = dict(src_dict)
        rows = Rows.from_dict(d.pop("rows"))

        foul = d.pop("foul")

        def _parse_foul_reason(
            data: object,
        ) -> EvaluationFoulReasonType1 | EvaluationFoulReasonType2Type1 | EvaluationFoulReasonType3Type1 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                foul_reason_type_1 = check_evaluation_foul_reason_type_1(data)

                return foul_reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                foul_reason_type_2_type_1 = check_evaluation_foul_reason_type_2_type_1(data)

                return foul_reason_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                foul_reason_type_3_type_1 = check_evaluation_foul_reason_type_3_type_1(data)

                return foul_reason_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                EvaluationFoulReasonType1 | EvaluationFoulReasonType2Type1 | EvaluationFoulReasonType3Type1 | None, data
            )

        foul_reason = _parse_foul_reason(d.pop("foul_reason"))

        def _parse_natural(
            data: object,
        ) -> EvaluationNaturalType1 | EvaluationNaturalType2Type1 | EvaluationNaturalType3Type1 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_1 = check_evaluation_natural_type_1(data)

                return natural_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_2_type_1 = check_evaluation_natural_type_2_type_1(data)

                return natural_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_3_type_1 = check_evaluation_natural_type_3_type_1(data)

                return natural_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EvaluationNaturalType1 | EvaluationNaturalType2Type1 | EvaluationNaturalType3Type1 | None, data)

        natural = _parse_natural(d.pop("natural"))

        bonus_total = d.pop("bonus_total")

        rules = RulesEcho.from_dict(d.pop("rules"))

        evaluation = cls(
            rows=rows,
            foul=foul,
            foul_reason=foul_reason,
            natural=natural,
            bonus_total=bonus_total,
            rules=rules,
        )

        return evaluation
