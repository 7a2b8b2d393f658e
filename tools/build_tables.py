"""Build the auto-arrange tables: the baseline opponent's row strengths over seeded deals.

Run: .venv/bin/python tools/build_tables.py [--deals 200000] [--out service/data/arranging_tables.npz]

Each deal gives four 13-card hands of one shuffled deck (numpy PCG64, seed `SEED`); each
hand is set by `suggest.baseline.baseline_arrangement` (strongest five at the back, strongest
five of the other eight in the middle, the rest in front) under both `wheel` settings, with and
without suit tie-breaks. For every variant and row the file holds a histogram of the row's
index on the evaluator's scale (strength * 4, plus the top suit in the suited variants).
`service/domain/susun/suggest/objective.py` turns them into win/lose/bonus tables for any
rule set.

The output is a zip of `.npy` files with fixed entry dates and order, so the same inputs
rebuild it byte for byte (check with `sha256sum`). Not run in CI; the output is committed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.domain.susun.batch_evaluator import evaluate_batch3, evaluate_batch5, top_suits_batch  # noqa: E402
from service.domain.susun.evaluator import MAX_STRENGTH  # noqa: E402
from service.domain.susun.suggest.baseline import _shape, baseline_batch  # noqa: E402
from service.domain.susun.suggest.tables import SCALE_SIZE, TABLES_RESOURCE, scale_digest, table_name  # noqa: E402

SEED = 20_240_613
DEALS = 200_000
CHUNK = 2_500  # deals per batch (10,000 hands)
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "service" / "data" / TABLES_RESOURCE
ROWS = ("front", "middle", "back")
_DATE = (1980, 1, 1, 0, 0, 0)


def _indices(rows: np.ndarray, strengths: np.ndarray, suited: bool) -> np.ndarray:
    keys = strengths.astype(np.intp) * 4
    if suited:
        keys += top_suits_batch(rows, strengths)
    return keys


def build(deals: int, progress: bool = True) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    counts = {
        table_name(w, s, r): np.zeros(SCALE_SIZE, dtype=np.int64)
        for w in ("low", "second")
        for s in (False, True)
        for r in ROWS
    }
    fives = _shape().fives
    started = time.perf_counter()
    done = 0
    while done < deals:
        n = min(CHUNK, deals - done)
        decks = rng.permuted(np.tile(np.arange(52), (n, 1)), axis=1)
        hands = np.sort(decks.reshape(n * 4, 13), axis=1)
        rows5 = hands[:, fives].reshape(-1, 5)
        for wheel in ("low", "second"):
            strengths = evaluate_batch5(rows5, wheel).reshape(len(hands), len(fives))
            for suited in (False, True):
                rows = baseline_batch(hands, wheel, suited, strengths)
                parts = (rows[:, :3], rows[:, 3:8], rows[:, 8:])
                values = (
                    evaluate_batch3(parts[0]),
                    evaluate_batch5(parts[1], wheel),
                    evaluate_batch5(parts[2], wheel),
                )
                for row, cards, s in zip(ROWS, parts, values):
                    index = _indices(cards, s, suited)
                    counts[table_name(wheel, suited, row)] += np.bincount(index, minlength=SCALE_SIZE)
        done += n
        if progress:
            print(f"{done:>8,} deals  {time.perf_counter() - started:7.1f} s", file=sys.stderr)
    return counts


def write(path: Path, counts: dict[str, np.ndarray], deals: int) -> str:
    meta = {
        "seed": SEED,
        "deals": deals,
        "hands": deals * 4,
        "max_strength": MAX_STRENGTH,
        "scale_sha256": scale_digest(),
        "index": "strength * 4 + top suit (suited) or strength * 4 (plain)",
        "arranger": "baseline: strongest five at the back, strongest five of the rest in the middle",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        entries = [("meta.json", json.dumps(meta, indent=1, sort_keys=True).encode())]
        for name in sorted(counts):
            npy = io.BytesIO()
            np.lib.format.write_array(npy, counts[name].astype("<u4"), allow_pickle=False)
            entries.append((name + ".npy", npy.getvalue()))
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data, compresslevel=9)
    data = buffer.getvalue()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=DEALS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    counts = build(args.deals)
    digest = write(args.out, counts, args.deals)
    print(f"{args.out}: {args.out.stat().st_size:,} bytes, sha256 {digest}")


if __name__ == "__main__":
    main()
