"""`capsa arrange CARD...`: the best settings of a 13-card hand, offline (no server, no database)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..domain.errors import CapsaError
from ..domain.susun.suggest.limits import LIMIT_MAX
from .exitcodes import ExitCode
from .inputs import STDIN, InputTooLarge, from_one_to, read_body


def _table(document: dict[str, Any]) -> str:
    lines = [f"rules: {document['rules']['preset']}    natural: {document['natural'] or '-'}"]
    for n, s in enumerate(document["suggestions"], 1):
        lines.append(f"#{n}  score {s['score']:+.4f}  bonus {s['bonus_total']}")
        for row in ("front", "middle", "back"):
            cards = " ".join(s["arrangement"][row])
            info = s["rows"][row]
            bonus = f"  +{info['bonus']}" if info["bonus"] else ""
            lines.append(f"    {row:<6}  {cards:<15} {info['category']}{bonus}")
    return "\n".join(lines)


def _arrange(args: argparse.Namespace) -> int:
    texts = list(args.cards)
    if STDIN in texts:  # `-`: the cards (or more of them) from standard input
        try:
            texts[texts.index(STDIN)] = read_body(STDIN).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"capsa: cannot read the cards from standard input: {exc}", file=sys.stderr)
            return ExitCode.UNREADABLE
        except InputTooLarge as exc:
            print(f"capsa: {exc}", file=sys.stderr)
            return ExitCode.UNREADABLE
    cards = [c for text in texts for c in text.replace(",", " ").split()]
    body = {"rules": args.rules, "hand": cards, "limit": args.limit}
    try:
        from ..domain.susun.suggest.search import suggest_request  # numpy: only when it searches

        document = suggest_request(body)
    except CapsaError as exc:
        print(f"capsa: {exc.title.lower()} ({exc.problem})", file=sys.stderr)
        for err in exc.errors or []:
            print(f"  {err.field}: {err.message}", file=sys.stderr)
        if not exc.errors:
            print(f"  {exc.message}", file=sys.stderr)
        return ExitCode.FAILED
    if args.json:
        json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(_table(document))
    return ExitCode.OK


def register(sub: Any) -> None:
    p = sub.add_parser(
        "arrange",
        help="suggest the best front, middle and back for 13 cards",
        description="Suggest the best legal settings of a 13-card hand, best first, by expected "
        "points against a baseline opponent. Cards in any notation: As 10h Td k♠ ...",
    )
    p.add_argument("cards", nargs="+", metavar="CARD", help="the 13 cards, separated by spaces or commas; - reads them from standard input")
    p.add_argument("--rules", default="capsa-susun-id", metavar="PRESET",
                   help="the rule preset to score with (default: capsa-susun-id)")
    p.add_argument("--limit", type=from_one_to(LIMIT_MAX), default=3, metavar="N",
                   help=f"how many suggestions to print, 1 to {LIMIT_MAX} (default: 3)")
    p.add_argument("--json", action="store_true", help="print the suggestions document (JSON) instead of a table")
    p.set_defaults(func=_arrange)
