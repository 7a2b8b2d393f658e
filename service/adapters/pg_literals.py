"""Array literals for PostgreSQL: a column of values sent as one text parameter.

psycopg adapts a Python list element by element in Python; a literal joined here is one
text parameter that PostgreSQL parses in C (`CAST(:x AS text[])`, `%(x)s::int8[]`). The
write statement's ledger lines and the receipts riding in it go this way.
"""

from __future__ import annotations

from collections.abc import Iterable


def _escaped(value: str) -> str:
    # inside double quotes only a backslash and a double quote are special
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def text_array(values: Iterable[str | None]) -> str:
    """A text[] literal: each value quoted (a value spelled NULL stays that text), None a NULL."""
    return "{" + ",".join(
        "NULL" if v is None else f'"{v}"' if '"' not in v and "\\" not in v else _escaped(v) for v in values
    ) + "}"


def int_array(values: Iterable[int]) -> str:
    """An integer (or bigint) array literal."""
    return "{" + ",".join(map(str, values)) + "}"


__all__ = ["int_array", "text_array"]
