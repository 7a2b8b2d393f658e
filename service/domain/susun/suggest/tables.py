"""The reference field's tables: histograms of baseline opponents' row strengths, shipped as data.

`tools/build_tables.py` builds them (`service/data/arranging_tables.npz`) on the fast evaluator's
strength scale; `load_tables` refuses tables built on another scale.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from ..arrangement import ROWS
from ..evaluator import MAX_STRENGTH, key_of

TABLES_RESOURCE = "arranging_tables.npz"
# Index of a row on the table scale: strength * 4 + suit strength (suited tables).
SCALE_SIZE = (MAX_STRENGTH + 1) * 4


def scale_digest() -> str:
    """SHA-256 of the evaluator's strength scale: tables built on another scale are refused."""
    text = repr([key_of(s) for s in range(1, MAX_STRENGTH + 1)])
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class FieldTables:
    """Histograms of the baseline opponent's row indices, per `wheel` and `suit_tiebreak`."""

    hands: int
    counts: Mapping[tuple[str, bool], tuple[npt.NDArray[np.int64], ...]]  # front, middle, back
    meta: Mapping[str, Any]


def table_name(wheel: str, suited: bool, row: str) -> str:
    return f"{wheel}_{'suited' if suited else 'plain'}_{row}"


@cache
def load_tables() -> FieldTables:
    """The shipped tables (`service/data/arranging_tables.npz`), checked against the scale."""
    data = resources.files("service").joinpath("data", TABLES_RESOURCE).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        meta = json.loads(zf.read("meta.json"))
        if meta["scale_sha256"] != scale_digest():
            raise RuntimeError("arranging tables were built on another strength scale: rebuild them")
        counts: dict[tuple[str, bool], tuple[npt.NDArray[np.int64], ...]] = {}
        for wheel in ("low", "second"):
            for suited in (False, True):
                counts[wheel, suited] = tuple(
                    np.load(io.BytesIO(zf.read(table_name(wheel, suited, r) + ".npy"))).astype(
                        np.int64
                    )
                    for r in ROWS
                )
    return FieldTables(int(meta["hands"]), counts, meta)
