from typing import Literal

StatementLineKind = Literal["fee", "reversal", "settlement"]

STATEMENT_LINE_KIND_VALUES: set[StatementLineKind] = {
    "fee",
    "reversal",
    "settlement",
}


def check_statement_line_kind(value: str) -> StatementLineKind:
    if value in STATEMENT_LINE_KIND_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {STATEMENT_LINE_KIND_VALUES!r}")
