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
from ..strictjson import MalformedJSON, loads
from .exitcodes import ExitCode
from .inputs import InputTooLarge, read_body, shown

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


# What each command reads, by the field only its document has: given the other one, the
# command says which command reads it instead of listing the fields it does not know.
_DOCUMENTS = {"score": ("players", "a round", "evaluate"), "evaluate": ("arrangement", "an arrangement", "score")}


def _wrong_command(command: str, body: Mapping[str, Any], path: str) -> str | None:
    """Why `body` is the other command's document, or None."""
    mine, _, other = _DOCUMENTS[command]
    theirs, what, _ = _DOCUMENTS[other]
    if mine in body or theirs not in body:
        return None
    return f"this is {what} (it has {theirs!r}): use `capsa {other} {path}`"


def _run(
    args: argparse.Namespace,
    command: str,
    work: Callable[[Mapping[str, Any]], Any],
    table: Callable[[Mapping[str, Any]], str],
) -> int:
    path = args.file
    name = shown(path)
    try:
        body = loads(read_body(path))
        if not isinstance(body, dict):
            raise MalformedJSON("the file must hold a JSON object")
    except OSError as exc:
        print(f"capsa: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return ExitCode.UNREADABLE
    except InputTooLarge as exc:
        print(f"capsa: {exc}", file=sys.stderr)
        return ExitCode.UNREADABLE
    except MalformedJSON as exc:
        print(f"capsa: {name} is not valid JSON: {exc}", file=sys.stderr)
        return ExitCode.UNREADABLE
    wrong = _wrong_command(command, body, path)
    if wrong is not None:
        print(f"capsa {command}: {name}: {wrong}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        document = work(body)
    except CapsaError as exc:
        print(f"capsa: {name}: {exc.title.lower()} ({exc.problem})", file=sys.stderr)
        for err in exc.errors or []:
            print(f"  {err.field}: {err.message}", file=sys.stderr)
        if not exc.errors:
            print(f"  {exc.message}", file=sys.stderr)
        return ExitCode.FAILED
    if args.json:
        json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(table(document))
    return ExitCode.OK


def _score(args: argparse.Namespace) -> int:
    from ..domain.susun.round import score_round_request

    return _run(args, "score", lambda body: score_round_request(body).document, score_table)


def _evaluate(args: argparse.Namespace) -> int:
    from ..domain.susun.round import evaluate_arrangement_request

    return _run(args, "evaluate", evaluate_arrangement_request, evaluate_table)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a round file: points and money for each player",
        description="Score a round offline (nothing is stored): the file is the body of "
        "POST /v1/rounds. Prints points, result, winnings, fee and net per player, the house "
        "fee, and the checks that results and nets balance.",
    )
    p.add_argument("file", metavar="ROUND.json",
                   help="the round: rules, currency, stake, players' arrangements (- reads standard input)")
    p.add_argument("--json", action="store_true", help="print the full score document (JSON) instead of the table")
    p.set_defaults(func=_score)
    p = sub.add_parser(
        "evaluate",
        help="check an arrangement file: rows, foul, natural, bonuses",
        description="Evaluate one arrangement offline: the file is the body of "
        "POST /v1/arrangements/evaluate. Prints each row's category and bonus, and whether "
        "the hand fouls or is a natural (a round file is for `capsa score`).",
    )
    p.add_argument("file", metavar="ARRANGEMENT.json",
                   help="the arrangement: rules and front, middle, back cards (- reads standard input)")
    p.add_argument("--json", action="store_true", help="print the evaluation document (JSON) instead of the table")
    p.set_defaults(func=_evaluate)
