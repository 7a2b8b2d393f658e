from typing import Literal

GetV1LedgerSummaryGroupBy = Literal["day", "player", "table"]

GET_V1_LEDGER_SUMMARY_GROUP_BY_VALUES: set[GetV1LedgerSummaryGroupBy] = {
    "day",
    "player",
    "table",
}


def check_get_v1_ledger_summary_group_by(value: str) -> GetV1LedgerSummaryGroupBy:
    if value in GET_V1_LEDGER_SUMMARY_GROUP_BY_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_V1_LEDGER_SUMMARY_GROUP_BY_VALUES!r}")
