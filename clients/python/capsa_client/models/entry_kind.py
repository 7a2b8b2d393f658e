from typing import Literal

EntryKind = Literal["fee", "reversal", "settlement"]

ENTRY_KIND_VALUES: set[EntryKind] = {
    "fee",
    "reversal",
    "settlement",
}


def check_entry_kind(value: str) -> EntryKind:
    if value in ENTRY_KIND_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ENTRY_KIND_VALUES!r}")
