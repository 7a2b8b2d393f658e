"""Benchmark of the offline verifier (`capsa audit verify-file`), each step against a reference.

One export of N records is built in memory by the service's own code (the README's
four-player round scored, recorded, chained and signed, with a void every tenth record), then
checked in one process, each step measured alone and against a reference of the same run:

(a) hashing and links (read each line, re-hash, re-link): records/s as a ratio of
    `hashlib.sha256` over the same bytes (previous hash hex + canonical bytes) (goal >= 0.5);
(b) receipts: signatures/s as a ratio of bare Ed25519 verifications/s over the same
    messages with the same key (`cryptography`; about 4,600/s a core here);
(c) re-scoring (and the ledger-line checks): rounds/s, against the engine's own
    `score_round_request` over the same requests;
(d) reading the export file with the line cap (`export_check.read_lines`, at most 1 MiB + 1
    bytes a line) against iterating the file object, which has no cap;
and the whole verification, records/s and MiB/s.

Times are CPU seconds of this process (utime + stime from /proc/self/stat), with the load
average beside each figure: the machine is shared with other work. Usage:

    .venv/bin/python bench/verify_file.py [--records 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.adapters.records import StoredRecord  # noqa: E402
from service.domain import audit as chain  # noqa: E402
from service.domain import export_check  # noqa: E402
from service.domain.signing import Keyring, receipt_message  # noqa: E402
from service.domain.susun.round import RoundRequest, score_round_request  # noqa: E402
from service.services.audit import receipts  # noqa: E402
from service.services.clock import new_id, utcnow_ms  # noqa: E402
from service.services.rounds.records import round_record, void_record  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
CLIENT = "cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ"


def cpu() -> float:
    """This process's CPU seconds from its own /proc counters."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best of `repeat` measures of one call's CPU seconds, each over as many calls as
    take at least 0.5 s (the counters tick every 10 ms), and the load average before the last."""
    best, load = float("inf"), 0.0
    for _ in range(repeat):
        load = os.getloadavg()[0]
        calls, start = 0, cpu()
        while True:
            fn()
            calls += 1
            spent = cpu() - start
            if spent >= 0.5:
                break
        best = min(best, spent / calls)
    return best, load


def build(records: int, ring: Keyring) -> tuple[list[bytes], list[RoundRequest]]:
    from service.adapters.ledger import BookedLine

    body = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
    body.pop("reference", None)
    lines: list[bytes] = []
    requests: list[RoundRequest] = []
    previous, last_round = chain.GENESIS_HASH, None
    for sequence in range(1, records + 1):
        now = utcnow_ms()
        if sequence % 10 == 0 and last_round is not None:
            round_id, scored = last_round
            booked = [BookedLine(r.player_id, r.kind, r.basis, r.amount, r.points, r.winnings) for r in scored.new.lines]
            built = void_record(CLIENT, round_id=round_id, created_at=now, reason="misdeal", booked=booked,
                                currency="IDR", table=None, engine_version="bench")
            last_round = None
        else:
            scored_round = score_round_request(body)
            round_id = new_id("rnd", now)
            built = round_record(
                CLIENT, round_id=round_id, created_at=now, game="susun", preset=scored_round.preset,
                currency=scored_round.currency, table=scored_round.table, reference=None,
                request=scored_round.request, document=scored_round.document, players=scored_round.players,
                house_fee=scored_round.house_fee, engine_version=str(scored_round.document["engine_version"]),
            )
            last_round = (round_id, built)
            requests.append(scored_round.request)
        canonical = chain.seal(built.new.unsealed, sequence)
        hash_ = chain.chain_hash(previous, canonical)
        kid, signature = ring.sign(receipt_message(CLIENT, sequence, hash_))
        record = StoredRecord(sequence, built.new.kind, round_id, previous, hash_, canonical, kid, signature)
        lines.append(receipts.export_line(CLIENT, record))
        previous = hash_
    return lines, requests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    ring = Keyring().rotated(utcnow_ms())[0]
    public = Keyring.from_json(ring.public_json(), public_only=True)
    lines, requests = build(args.records, ring)
    n = len(lines)
    size = sum(map(len, lines))
    parsed = [json.loads(x) for x in lines]
    hashed = [p["previous_hash"].encode("ascii") + bytes(export_check.parse_line(x)[1]) for p, x in zip(parsed, lines)]
    messages = [receipt_message(CLIENT, p["sequence"], p["hash"]) for p in parsed]
    signatures = [export_check.unb64(p["signature"]) for p in parsed]
    key = public._verifiers[ring.keys[0].kid]  # the bare cryptography key: the reference

    def sha() -> None:
        for data in hashed:
            hashlib.sha256(data).hexdigest()

    def ed25519() -> None:
        for message, signature in zip(messages, signatures):
            key.verify(signature, message)

    def scoring() -> None:
        for request in requests:
            score_round_request(request)

    def run(rescore: bool = True, receipts: bool = True, content: bool = True) -> Callable[[], None]:
        def go() -> None:
            report = export_check.verify_lines(lines, public, rescore=rescore, receipts=receipts, content=content)
            assert report.ok, report

        return go

    t_sha, l_sha = timed(sha, args.repeat)
    t_links, l_links = timed(run(rescore=False, receipts=False, content=False), args.repeat)
    t_ed, l_ed = timed(ed25519, args.repeat)
    t_receipts, l_receipts = timed(run(rescore=False, content=False), args.repeat)
    t_content, l_content = timed(run(rescore=False), args.repeat)
    t_score, l_score = timed(scoring, args.repeat)
    t_all, l_all = timed(run(), args.repeat)
    with tempfile.NamedTemporaryFile(suffix=".ndjson") as export:
        export.write(b"".join(lines))
        export.flush()

        def reading(lines_of: Callable[[IO[bytes]], Iterable[bytes]]) -> Callable[[], None]:
            def go() -> None:
                with open(export.name, "rb") as f:
                    assert sum(1 for _ in lines_of(f)) == n

            return go

        t_plain, l_plain = timed(reading(lambda f: f), args.repeat)
        t_capped, l_capped = timed(reading(export_check.read_lines), args.repeat)

    signature_time = max(t_receipts - t_links, 1e-9)
    rescore_time = max(t_all - t_content, 1e-9)
    rounds = len(requests)
    print(f"offline verifier over {n:,} records ({rounds:,} rounds, {n - rounds:,} voids), "
          f"{size / 2**20:.1f} MiB; best of {args.repeat}, CPU seconds of this process; "
          "the machine is shared: load average beside each figure")
    print(f"  (a) hashing + links   {n / t_links:10,.0f} records/s   hashlib.sha256 same bytes {n / t_sha:10,.0f}/s"
          f"   x{t_sha / t_links:.2f} (goal >= 0.5)   load {l_links:.2f}/{l_sha:.2f}")
    print(f"  (b) receipts          {n / signature_time:10,.0f} signatures/s   Ed25519 verify same messages "
          f"{n / t_ed:8,.0f}/s   x{t_ed / signature_time:.2f}   load {l_receipts:.2f}/{l_ed:.2f}")
    print(f"  (c) re-scoring        {rounds / rescore_time:10,.0f} rounds/s   score_round_request alone "
          f"{rounds / t_score:8,.0f}/s   x{t_score / rescore_time:.2f}   load {l_all:.2f}/{l_score:.2f}")
    print(f"      ledger lines and record checks: {n / max(t_content - t_receipts, 1e-9):,.0f} records/s   "
          f"load {l_content:.2f}")
    print(f"  (d) reading, capped   {n / t_capped:10,.0f} lines/s   iterating the file, no cap "
          f"{n / t_plain:10,.0f}/s   x{t_plain / t_capped:.2f}   {t_capped / n * 1e6:.2f} us a line"
          f"   load {l_capped:.2f}/{l_plain:.2f}")
    print(f"  whole verification    {n / t_all:10,.0f} records/s   {size / 2**20 / t_all:6.1f} MiB/s   "
          f"load {l_all:.2f}")
    print(f"  (medians differ from best-of when the load moves: load now {statistics.mean(os.getloadavg()):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
