"""`capsa score` and `capsa evaluate`: offline scoring of JSON files, no server, no database."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import Any

from ..domain.errors import CapsaError
from ..domain.susun.round import evaluate_arrangement_request, score_round_request
from ..strictjson import MalformedJSON, loads


def _run(path: str, work: Callable[[Mapping[str, Any]], Any]) -> int:
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
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _score(args: argparse.Namespace) -> int:
    return _run(args.file, lambda body: score_round_request(body).document)


def _evaluate(args: argparse.Namespace) -> int:
    return _run(args.file, evaluate_arrangement_request)


def register(sub: Any) -> None:
    p = sub.add_parser("score", help="score a round file (the body of POST /v1/rounds)")
    p.add_argument("file", metavar="ROUND.json")
    p.set_defaults(func=_score)
    p = sub.add_parser("evaluate", help="evaluate an arrangement file (POST /v1/arrangements/evaluate)")
    p.add_argument("file", metavar="ARRANGEMENT.json")
    p.set_defaults(func=_evaluate)
