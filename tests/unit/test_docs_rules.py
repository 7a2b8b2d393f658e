"""docs/rules.md against the engine: every worked example, every preset default, every link.

The rule book's numbers are machine-readable blocks (its section "How the examples are
checked" describes them); this module scores each block with the domain engine and compares
every number the book states. It also checks that every parameter of every preset appears
in the book's parameter tables with its default, so the book cannot drift from the code.

The engine's public functions are found by name anywhere under `service.domain`, not by
module path: the package is being split into one package per game, and the book's checks
should not depend on where a function lives.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import service.domain

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

_ENGINE_NAMES = (
    "score_round_request",
    "evaluate_arrangement_request",
    "resolve_rules",
    "PRESETS",
    "parse_currency_and_stake",
    "Card",
    "new_game",
    "apply_move",
    "Move",
    "settle_game",
    "settlement_document",
    "evaluate_play",
    "commitment",
    "deal",
)


@cache
def engine() -> SimpleNamespace:
    """The engine's public names, each defined once somewhere under `service.domain`."""
    found: dict[str, dict[int, Any]] = {n: {} for n in _ENGINE_NAMES}
    package = service.domain
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        namespace = vars(importlib.import_module(info.name))
        for name in _ENGINE_NAMES:
            if name in namespace:
                found[name][id(namespace[name])] = namespace[name]
    # Each game package may keep its own presets: their tables are merged.
    presets = list(found.pop("PRESETS").values())
    missing = [n for n, objs in found.items() if not objs] + ([] if presets else ["PRESETS"])
    twice = [n for n, objs in found.items() if len(objs) > 1]
    assert not missing and not twice, f"not found: {missing}; defined more than once: {twice}"
    names = {n: next(iter(objs.values())) for n, objs in found.items()}
    return SimpleNamespace(PRESETS={k: v for table in presets for k, v in table.items()}, **names)


# -- reading the book -------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A fenced block: its info string's two words (` ```json round `), text and line."""

    lang: str
    kind: str
    text: str
    line: int
    heading: str


_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*$", re.M)


def book() -> str:
    return DOC.read_text(encoding="utf-8")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def _without_fences(text: str) -> str:
    """The text with fenced blocks blanked, offsets kept (a `#` inside a block is no heading)."""
    return _FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def headings(text: str) -> list[tuple[int, str]]:
    """(offset, heading text) of every heading outside fenced blocks."""
    return [(m.start(), m.group(2)) for m in _HEADING.finditer(_without_fences(text))]


def blocks(text: str) -> list[Block]:
    heads = headings(text)
    out = []
    for m in _FENCE.finditer(text):
        words = m.group(1).split()
        if len(words) != 2:
            continue
        above = [h for offset, h in heads if offset < m.start()]
        out.append(
            Block(words[0], words[1], m.group(2), text.count("\n", 0, m.start()) + 1, above[-1] if above else "")
        )
    return out


REQUESTS = {"round", "game", "deal"}  # each is followed by its ```text expect block
LISTS = {"plays", "arrangements"}  # each item carries its own "expect"


@dataclass(frozen=True)
class Example:
    kind: str
    request: Any
    expect: str
    line: int
    name: str


def examples(text: str) -> list[Example]:
    found = blocks(text)
    out = []
    for i, block in enumerate(found):
        if block.kind not in REQUESTS:
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        assert nxt is not None and nxt.kind == "expect", f"line {block.line}: no expect block follows"
        out.append(Example(block.kind, json.loads(block.text), nxt.text, block.line, slug(block.heading)))
    return out


def _ids(items: list[Example]) -> list[str]:
    return [f"{e.name}-line-{e.line}" for e in items]


# -- expected numbers: tables of `pair` and `player` rows, `house_fee` and other lines ----------


@dataclass(frozen=True)
class Expected:
    pairs: dict[str, dict[str, str]]
    players: dict[str, dict[str, str]]
    lines: dict[str, str]


def parse_expect(text: str) -> Expected:
    pairs: dict[str, dict[str, str]] = {}
    players: dict[str, dict[str, str]] = {}
    lines: dict[str, str] = {}
    header: list[str] | None = None
    for raw in text.splitlines():
        words = raw.split()
        if not words:
            header = None
            continue
        if words[0] in ("pair", "player"):
            header = words
            continue
        if header is None:
            lines[words[0]] = " ".join(words[1:])
            continue
        assert len(words) == len(header), f"{raw!r} does not match the columns {header}"
        row = dict(zip(header[1:], words[1:]))
        (pairs if header[0] == "pair" else players)[words[0]] = row
    return Expected(pairs, players, lines)


_ROW_LETTER = {1: "W", 0: "T", -1: "L"}


def _formula(text: str) -> int:
    """`3x2+12`, `-(1+3+9)`: integers, x for times, + - and parentheses."""
    assert re.fullmatch(r"[0-9x+\-() ]+", text), f"not a formula: {text!r}"
    return int(eval(text.replace("x", "*"), {"__builtins__": {}}))  # only digits and operators reach eval


def _pair_key(pair: Mapping[str, Any]) -> str:
    return "-".join(pair["players"])


def _pair_values(pair: Mapping[str, Any]) -> dict[str, str]:
    rows = pair.get("rows")
    values = {
        "rows": "-" if rows is None else "".join(_ROW_LETTER[rows[r]] for r in ("front", "middle", "back")),
        "outcome": pair["outcome"],
        "mult": str(pair["multiplier"]),
        "points": str(pair["points"]),
        "formula": str(pair["points"]),
        "stake": pair["stake"],
        "amount": pair["amount"],
    }
    if "bonus" in pair:
        a, b = pair["players"]
        values["bonus"] = f"{pair['bonus'][a]}:{pair['bonus'][b]}"
    return values


def compare(document: Mapping[str, Any], expected: Expected) -> list[str]:
    """Every difference between a round document and the stated numbers (empty: all agree)."""
    problems = []
    pairs = {_pair_key(p): _pair_values(p) for p in document["pairs"]}
    for key, row in expected.pairs.items():
        if key not in pairs:
            problems.append(f"pair {key}: no such pair (pairs: {sorted(pairs)})")
            continue
        for column, stated in row.items():
            actual = pairs[key].get(column)
            if column == "formula":
                if _formula(stated) != int(pairs[key]["points"]):
                    problems.append(f"pair {key}: formula {stated} = {_formula(stated)}, points are {actual}")
            elif actual != stated:
                problems.append(f"pair {key}: {column} is {actual}, the book says {stated}")
    players = {p["id"]: p for p in document["players"]}
    for pid, row in expected.players.items():
        if pid not in players:
            problems.append(f"player {pid}: no such player")
            continue
        for column, stated in row.items():
            actual = str(players[pid].get(column))
            if actual != stated:
                problems.append(f"player {pid}: {column} is {actual}, the book says {stated}")
    for name, stated in expected.lines.items():
        if name not in document:
            problems.append(f"{name}: not in the document")
        elif str(document[name]) != stated:
            problems.append(f"{name} is {document[name]}, the book says {stated}")
    if not expected.pairs or not expected.players or "house_fee" not in expected.lines:
        problems.append("an expect block states pairs, players and house_fee")
    return problems


def invariants(document: Mapping[str, Any]) -> list[str]:
    """Sum of results is 0 and sum of nets plus the house fee is 0, exactly."""
    results = sum(Decimal(p["result"]) for p in document["players"])
    nets = sum(Decimal(p["net"]) for p in document["players"]) + Decimal(document["house_fee"])
    return [f"sum of result {results}, sum of net + house_fee {nets}"] if results or nets else []


# -- running the blocks through the engine ----------------------------------------------------


def score_round(body: Mapping[str, Any]) -> dict[str, Any]:
    return dict(engine().score_round_request(body).document)


def play_game(body: Mapping[str, Any]) -> dict[str, Any]:
    """A `POST /v1/banting/games` body with hands, plus `moves`: the move bodies in order."""
    e = engine()
    rules = e.resolve_rules(body.get("rules"), "banting")
    errors: list[Any] = []
    currency, stake = e.parse_currency_and_stake(body, errors)
    assert not errors, errors
    ids = [p["id"] for p in body["players"]]
    hands = [[e.Card.from_str(c) for c in p["hand"]] for p in body["players"]]
    state = e.new_game(ids, hands, rules.params)
    for move in body["moves"]:
        if move.get("pass"):
            state = e.apply_move(state, e.Move.pass_turn(move["player"]))
        else:
            state = e.apply_move(state, e.Move.play(move["player"], [e.Card.from_str(c) for c in move["play"]]))
    assert state.winner is not None, "the moves do not finish the game"
    document = dict(e.settlement_document(state, e.settle_game(state, stake), currency))
    document["winner"] = ids[state.winner]
    return document


def run(example: Example) -> dict[str, Any]:
    return score_round(example.request) if example.kind == "round" else play_game(example.request)


ALL = examples(book()) if DOC.exists() else []
ROUNDS = [e for e in ALL if e.kind == "round"]
GAMES = [e for e in ALL if e.kind == "game"]
DEALS = [e for e in ALL if e.kind == "deal"]


def test_the_book_exists_and_has_worked_examples_of_both_games_and_the_deal() -> None:
    assert DOC.exists()
    assert len(ROUNDS) >= 10 and len(GAMES) >= 2 and len(DEALS) == 1


def test_the_worked_examples_between_them_show_every_pair_outcome() -> None:
    outcomes = {p["outcome"] for e in ROUNDS + GAMES for p in run(e)["pairs"]}
    assert outcomes >= {"normal", "tie", "tembus", "super", "scoop", "foul", "natural", "surrender", "win", "bomb"}


@pytest.mark.parametrize("example", ROUNDS, ids=_ids(ROUNDS))
def test_a_susun_round_of_the_book_scores_as_the_book_says(example: Example) -> None:
    document = score_round(example.request)
    assert compare(document, parse_expect(example.expect)) == []
    assert invariants(document) == []


@pytest.mark.parametrize("example", GAMES, ids=_ids(GAMES))
def test_a_big_two_game_of_the_book_settles_as_the_book_says(example: Example) -> None:
    document = play_game(example.request)
    assert compare(document, parse_expect(example.expect)) == []
    assert invariants(document) == []


def test_the_deal_test_vector_of_the_book_reproduces() -> None:
    (example,) = DEALS
    e, req = engine(), example.request
    seed = bytes.fromhex(req["server_seed"])
    hands = e.deal(seed, req["client_seed"], req["nonce"], req["players"])
    stated = parse_expect(example.expect).lines
    assert stated.pop("commitment") == e.commitment(seed)
    assert stated, "the book states at least one dealt hand"
    for key, cards in stated.items():
        assert key.startswith("player") and cards == " ".join(str(c) for c in hands[int(key.removeprefix("player"))])


def _list_items(kind: str) -> list[tuple[str, dict[str, Any]]]:
    """(test id, item) of every item of every ```json <kind> block."""
    if not DOC.exists():
        return []
    items = []
    for b in blocks(book()):
        if b.kind == kind:
            items += [(f"{slug(b.heading)}-line-{b.line}-{i}", item) for i, item in enumerate(json.loads(b.text))]
    return items


PLAYS = _list_items("plays")
ARRANGEMENTS = _list_items("arrangements")


@pytest.mark.parametrize(("name", "item"), PLAYS, ids=[n for n, _ in PLAYS])
def test_a_big_two_play_of_the_book_is_judged_as_the_book_says(name: str, item: dict[str, Any]) -> None:
    e, item = engine(), dict(item)
    expect = item.pop("expect")
    params = e.resolve_rules(item.get("rules"), "banting").params
    beats = item.get("beats")
    doc = e.evaluate_play(
        [e.Card.from_str(c) for c in item["cards"]],
        None if beats is None else [e.Card.from_str(c) for c in beats],
        params,
    )
    if doc["reason"] is not None:
        doc["reason"] = doc["reason"].split(":")[0]  # the API's reason; details follow the colon
    assert expect and {k: doc[k] for k in expect} == expect


@pytest.mark.parametrize(("name", "item"), ARRANGEMENTS, ids=[n for n, _ in ARRANGEMENTS])
def test_an_arrangement_of_the_book_evaluates_as_the_book_says(name: str, item: dict[str, Any]) -> None:
    item = dict(item)
    expect = item.pop("expect")
    doc = engine().evaluate_arrangement_request(item)
    rows = ("front", "middle", "back")
    derived = {
        **doc,
        "categories": [doc["rows"][r]["category"] for r in rows],
        "bonuses": [doc["rows"][r]["bonus"] for r in rows],
        "cards": {r: doc["rows"][r]["cards"] for r in rows},
    }
    assert expect and {k: derived[k] for k in expect} == expect


def test_the_checker_finds_a_wrong_number() -> None:
    # The checks above can fail: one stated number changed by one is reported.
    example = ROUNDS[0]
    expected = parse_expect(example.expect)
    pid, row = next(iter(expected.players.items()))
    wrong = Expected(expected.pairs, {**expected.players, pid: {**row, "points": str(int(row["points"]) + 1)}},
                     expected.lines)
    assert compare(score_round(example.request), wrong) != []
    key, prow = next(iter(expected.pairs.items()))
    wrong = Expected({**expected.pairs, key: {**prow, "formula": prow.get("points", "0") + "+1"}},
                     expected.players, expected.lines)
    assert compare(score_round(example.request), wrong) != []


# -- parameter tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class ParamRow:
    name: str
    cells: dict[str, str]  # column header -> cell text
    line: int


def tables(text: str) -> Iterator[tuple[list[str], list[tuple[list[str], int]]]]:
    """Markdown tables outside fenced blocks: (header cells, [(row cells, line)])."""
    lines = _without_fences(text).splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[ :\-|]+$", lines[i + 1]):
            header = _cells(lines[i])
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append((_cells(lines[i]), i + 1))
                i += 1
            yield header, rows
        else:
            i += 1


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parameter_rows(text: str) -> list[ParamRow]:
    """Rows of every table whose first column is `parameter`, keyed by the name in backticks."""
    out = []
    for header, rows in tables(text):
        if header[0].lower() != "parameter":
            continue
        for cells, line in rows:
            m = re.fullmatch(r"`([a-z_][a-z0-9_.]*)`", cells[0])
            assert m, f"line {line}: the first cell must be a parameter name in backticks"
            out.append(ParamRow(m.group(1), dict(zip(header, cells)), line))
    return out


def presets() -> list[tuple[str, int, str, Any]]:
    """(name, version, game, params) of every shipped preset version."""
    return [(n, v, p.rules.game, p.rules.params) for (n, v), p in engine().PRESETS.items()]


def column_for(name: str, version: int, header: Mapping[str, str]) -> str | None:
    """The column of a preset version: `name vN`, or `name` when it is the only version."""
    versions = [v for n, v, _, _ in presets() if n == name]
    if f"{name} v{version}" in header:
        return f"{name} v{version}"
    if name in header and len(versions) == 1:
        return name
    return None


def _plain(cell: str) -> str:
    return cell.replace("`", "").replace('"', "").strip()


def _matches(cell: str, value: Any) -> bool:
    text = _plain(cell)
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int):
        return text == str(value)
    if isinstance(value, Decimal):
        return re.fullmatch(r"[0-9.]+", text) is not None and Decimal(text) == value
    if isinstance(value, str):
        return text == value
    if isinstance(value, tuple):
        return [t.strip() for t in text.split(",")] == [str(v) for v in value]
    if isinstance(value, Mapping):  # a rank table of `bonus_by_rank`: "6: 1, 7: 2" or "2-A: 2"
        return _rank_table(text) == dict(value)
    raise AssertionError(f"no rendering for {value!r}")


ABSENT = {"—", "-", "–"}
_RANK_ORDER = "23456789TJQKA"


def _rank_table(text: str) -> dict[str, int]:
    """`"6: 1, 7: 2"` or `"2-A: 2"` (every rank from 2 to A) as {rank: points}."""
    out: dict[str, int] = {}
    for item in text.split(","):
        ranks, _, points = item.partition(":")
        first, _, last = ranks.strip().partition("-")
        span = _RANK_ORDER[_RANK_ORDER.index(first) : _RANK_ORDER.index(last or first) + 1]
        out.update(dict.fromkeys(span, int(points)))
    return out


def _names(name: str, version: int) -> tuple[str, ...]:
    """The parameters a preset version has (a version 1 keeps its list as later ones grow)."""
    rules = engine().PRESETS[(name, version)].rules
    names = getattr(rules, "param_names", None)
    return tuple(names) if names is not None else tuple(f.name for f in fields(rules.params))


def _preset_cases() -> list[tuple[str, int, str, str]]:
    if not DOC.exists():
        return []
    return [(n, v, g, name) for n, v, g, _ in presets() for name in _names(n, v)]


@pytest.mark.parametrize(("preset", "version", "game", "parameter"), _preset_cases(),
                         ids=[f"{n}-v{v}-{p}" for n, v, _, p in _preset_cases()])
def test_every_parameter_of_every_preset_is_in_the_book_with_its_default(
    preset: str, version: int, game: str, parameter: str
) -> None:
    params = next(p for n, v, _, p in presets() if (n, v) == (preset, version))
    value = getattr(params, parameter)
    cells = {}  # parameter row name -> this preset version's cell
    for row in parameter_rows(book()):
        column = column_for(preset, version, row.cells)
        if column is not None:
            cells[row.name] = row.cells[column]
    assert parameter in cells, f"no parameter table row for {parameter!r} with a {preset} v{version} column"
    if value is None:
        # Not a parameter of this preset version (a later version added it, or replaced it).
        assert _plain(cells[parameter]) in ABSENT, f"{preset} v{version} has no {parameter!r}: the cell reads —"
        return
    if not isinstance(value, Mapping):
        assert _matches(cells[parameter], value), f"the book says {cells[parameter]!r}, the code {value!r}"
        return
    # A table-valued parameter: its cell links to a table with a row `parameter.key` per key,
    # and a key this preset lacks reads "—".
    assert re.search(r"\]\(#[\w-]+\)", cells[parameter]), f"{parameter}: the cell links to its table"
    keys = {name.removeprefix(parameter + ".") for name in cells if name.startswith(parameter + ".")}
    assert set(value) <= keys, f"{parameter}: keys {sorted(set(value) - keys)} have no row"
    for key in keys:
        cell = cells[f"{parameter}.{key}"]
        if key in value:
            assert _matches(cell, value[key]), f"{parameter}.{key}: the book says {cell!r}, the code {value[key]!r}"
        else:
            assert _plain(cell) in ABSENT, f"{parameter}.{key}: the preset has no such key, the book says {cell!r}"


def test_the_parameter_tables_name_only_parameters_the_code_has() -> None:
    names = {f.name for _, _, _, params in presets() for f in fields(params)}
    for row in parameter_rows(book()):
        base = row.name.split(".")[0]
        assert base in names, f"line {row.line}: {row.name!r} is no parameter of any preset"


def test_every_preset_has_a_column_in_a_parameter_table() -> None:
    headers = [h for h, _ in tables(book()) if h[0].lower() == "parameter"]
    for name, version, _, _ in presets():
        assert any(column_for(name, version, dict.fromkeys(h, "")) for h in headers), f"{name} v{version}"


# -- links and self-containment ---------------------------------------------------------------


def anchors(text: str) -> set[str]:
    return {slug(h) for _, h in headings(text)} | set(re.findall(r'<a id="([\w-]+)"', text))


def test_every_link_inside_the_book_leads_to_a_heading() -> None:
    text = _without_fences(book())
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert links, "the book links its sections"
    assert links <= anchors(book()), sorted(links - anchors(book()))


def test_no_two_headings_share_an_anchor() -> None:
    slugs = [slug(h) for _, h in headings(book())]
    assert len(slugs) == len(set(slugs)), sorted({s for s in slugs if slugs.count(s) > 1})


def test_the_book_stands_alone_without_files_outside_the_repository() -> None:
    text = book()
    for outside in ("../" + "shared", "RULES" + ".md", "API" + ".md", "/work/"):
        assert outside not in text, outside


def test_every_anchor_the_book_promises_to_code_exists() -> None:
    # The section "Anchors" lists the anchors code comments may cite: each must exist.
    text = book()
    section = text.split("## Anchors", 1)[1]
    promised = set(re.findall(r"`#([\w-]+)`", section))
    assert len(promised) >= 10 and promised <= anchors(text), sorted(promised - anchors(text))



def test_the_four_player_example_of_the_book_is_the_shipped_example_round() -> None:
    shipped = Path(service.__file__).parent / "examples" / "round-4p-capsa-susun-id.json"
    assert json.loads(shipped.read_text(encoding="utf-8")) in [e.request for e in ROUNDS]
