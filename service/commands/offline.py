"""`capsa score` and `capsa evaluate`: offline scoring of JSON files, no server, no database.

Both print a table for people; `--json` prints the API's document instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from ..domain.errors import CapsaError
from ..domain.susun.round import evaluate_arrangement_request, score_round_request
from ..strictjson import MalformedJSON, loads

SCORE_COLUMNS = ("player", "points", "result", "winnings", "fee", "net")


def score_table(document: Mapping[str, Any]) -> str:
    """The score document as the README shows it: one line per player, then the house fee
    and the two invariants (results sum to zero; nets and the house fee sum to zero)."""
    players = document["players"]
    rows = [list(SCORE_COLUMNS)]
    rows += [[str(p["id"]), str(p["points"]), p["result"], p["winnings"], p["fee"], p["net"]] for p in players]
    widths = [max(len(row[i]) for row in rows) for i in range(len(SCORE_COLUMNS))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    results = sum((Decimal(p["result"]) for p in players), Decimal(0))
    nets = sum((Decimal(p["net"]) for p in players), Decimal(document["house_fee"]))
    lines.append(
        f"house fee {document['house_fee']} {document['currency']}; "
        f"sum of result = {results:f}; sum of net + house fee = {nets:f}"
    )
    return "\n".join(lines)


def evaluate_table(document: Mapping[str, Any]) -> str:
    """An evaluated arrangement: each row's cards, category and bonus; foul and natural."""
    foul = f"yes ({document['foul_reason']})" if document["foul"] and document.get("foul_reason") else (
        "yes" if document["foul"] else "no"
    )
    lines = [
        f"rules: {document['rules']['preset']}    foul: {foul}    natural: {document['natural'] or '-'}"
        f"    bonus total: {document['bonus_total']}"
    ]
    for row in ("front", "middle", "back"):
        info = document["rows"][row]
        bonus = f"  +{info['bonus']}" if info["bonus"] else ""
        lines.append(f"    {row:<6}  {' '.join(info['cards']):<15} {info['category']}{bonus}")
    return "\n".join(lines)


def _run(
    args: argparse.Namespace,
    work: Callable[[Mapping[str, Any]], Any],
    table: Callable[[Mapping[str, Any]], str],
) -> int:
    path = args.file
    try:
        with open(path, "rb") as fh:
            body = loads(fh.read())
        if not isinstance(body, dict):
            raise MalformedJSON("the file must hold a JSON object")
        document = work(body)
    except OSError as exc:
        print(f"capsa: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except MalformedJSON as exc:
        print(f"capsa: {path} is not valid JSON: {exc}", file=sys.stderr)
        return 1
    except CapsaError as exc:
        print(f"capsa: {path}: {exc.title.lower()} ({exc.problem})", file=sys.stderr)
        for err in exc.errors or []:
            print(f"  {err.field}: {err.message}", file=sys.stderr)
        if not exc.errors:
            print(f"  {exc.message}", file=sys.stderr)
        return 1
    if args.json:
        json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(table(document))
    return 0


def _score(args: argparse.Namespace) -> int:
    return _run(args, lambda body: score_round_request(body).document, score_table)


def _evaluate(args: argparse.Namespace) -> int:
    return _run(args, evaluate_arrangement_request, evaluate_table)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a round file: points and money for each player",
        description="Score a round offline (nothing is stored): the file is the body of "
        "POST /v1/rounds. Prints points, result, winnings, fee and net per player, the house "
        "fee, and the checks that results and nets balance.",
    )
    p.add_argument("file", metavar="ROUND.json", help="the round: rules, currency, stake, players' arrangements")
    p.add_argument("--json", action="store_true", help="print the full score document (JSON) instead of the table")
    p.set_defaults(func=_score)
    p = sub.add_parser(
        "evaluate",
        help="check an arrangement file: rows, foul, natural, bonuses",
        description="Evaluate one arrangement offline: the file is the body of "
        "POST /v1/arrangements/evaluate. Prints each row's category and bonus, and whether "
        "the hand fouls or is a natural.",
    )
    p.add_argument("file", metavar="ARRANGEMENT.json", help="the arrangement: rules and front, middle, back cards")
    p.add_argument("--json", action="store_true", help="print the evaluation document (JSON) instead of the table")
    p.set_defaults(func=_evaluate)
