"""Auto-arrange: the best legal settings of a 13-card hand, by expected points against a field.

The objective
-------------
A setting (front, middle, back) is scored by its expected points against ONE opponent of a
reference field: a random 13-card hand set by `baseline_arrangement` (strongest five at the
back, strongest five of the remaining eight in the middle, the other three in front). For
each row r, from per-row tables of the opponent's row strength (`tools/build_tables.py`,
200,000 seeded four-hand deals, 800,000 baseline hands):

- w_r = P(our row r beats the opponent's), l_r = P(it loses), t_r = 1 - w_r - l_r;
- B_r = the bonus our row earns if won (the rule set's bonus table, `royalty_flat`);
- X_r = E[the opponent's bonus in row r, counted when the opponent wins the row].

With rows treated as independent (they are not quite: one deck, one opponent hand):

    score = sum_r [ w_r (1 + B_r) - l_r - X_r ]                     (rows and bonuses)
          + ((mult - 1) x 3 + scoop_bonus) x (P(sweep) - P(swept))   (tembus, scoop)
          + overall_unit x (P(win >= 2 rows) - P(lose >= 2 rows))   (overall)

    P(sweep) = w_f w_m w_b, P(swept) = l_f l_m l_b,
    P(win >= 2 rows) = w_f w_m + w_f w_b + w_m w_b - 2 w_f w_m w_b (likewise for losses),

where mult is `tembus_multiplier` (super needs a whole table and is not modelled). This is
exactly E[points(A, B)] of RULES.md 3.1 under the independence assumption, so the sum term
is "P(win row) x (1 + bonus) - P(lose row) x (1 + the opponent's expected bonus in that row
when it wins it)". The other bonus rules change only the bonus part: `bonus_paid` "cancel"
pays our B_r only when the opponent's row earns nothing and the opponent's only when ours
earns nothing; "both" pays every bonus whatever the row result (our B_r minus the
opponent's mean bonus); `max_one_royalty` takes the expected largest bonus paid, again with
independent rows. A setting that holds a natural of the rule set is worth that natural's
value (its rows are not compared); settings that tie (every setting of a dragon does) are
ordered by the row score above. The opponent's naturals and fouls, and the cards our hand
removes from the deck, are ignored.

Probability tables are indexed by the row's strength on the fast evaluator's one scale
(`evaluator.py`), with the suit of the most significant card (`suited`) when
`suit_tiebreak` is on; there is one table per `wheel` and `suit_tiebreak` setting, and the
bonus table is applied when a rule set is first used, so overrides work.

Exactness
---------
All 72,072 settings (286 fronts x 252 ways to split the other ten cards) are considered.
For a front, each split of the ten cards into two fives is taken once, in the orientation
that keeps the order rule (the weaker five in the middle); the other orientation is a foul
unless both fives are equally strong, in which case both are kept (their scores are equal).
Settings whose front beats the middle are fouls and are dropped, except that a setting
holding three flushes or three straights (a natural never fouls) is added back in either
orientation. Nothing else is skipped, and the best of what is left is taken exactly (ties
by the smaller setting number). Rows whose table index equals the opponent's count as a tie
(t_r): equal strength without suit tie-breaks; with them, a sampling artefact only. The API
document rounds `score` to 6 decimals.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from ...cards import DECK, Card, parse_cards
from ...errors import CapsaError, FieldError, InvalidCard, InvalidParameter, raise_collected
from ...rules import RuleSet, resolve_rules
from ..arrangement import (
    ROWS,
    Arrangement,
    ArrangementResult,
    RowResult,
    evaluate,
    foul_reason,
    row_bonus,
)
from ..evaluator import (
    CATEGORY_BY_STRENGTH,
    MAX_STRENGTH,
    combinations,
    evaluate_batch3,
    evaluate_batch5,
    hand_value,
    key_of,
    top_suits_batch,
)
from ..hands import SUIT_STRENGTH, Category, HandValue
from ..naturals import TIER, detect_natural
from ..rules import SUSUN, SusunParams

F64 = npt.NDArray[np.float64]
Ints = npt.NDArray[np.intp]

TABLES_RESOURCE = "arranging_tables.npz"
LIMIT_MAX = 20
# Index of a row on the table scale: strength * 4 + suit strength (suited tables).
SCALE_SIZE = (MAX_STRENGTH + 1) * 4
_NATURALS_BY_SETTING = ("three_straights", "three_flushes")
_STRAIGHTS = np.array(
    [c in (Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH) for c in Category]
)


def scale_digest() -> str:
    """SHA-256 of the evaluator's strength scale: tables built on another scale are refused."""
    text = repr([key_of(s) for s in range(1, MAX_STRENGTH + 1)])
    return hashlib.sha256(text.encode()).hexdigest()


# --- the static shape of a 13-card hand ---------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """Index arrays over positions 0..12 of a sorted hand, shared by every hand."""

    fives: Ints  # (1287, 5) positions of each five
    fronts: Ints  # (286, 3)
    split_front: Ints  # (36036,) front of each (front, unordered split of the other ten)
    split_a: Ints  # (36036,) one five (holds the lowest remaining position)
    split_b: Ints  # (36036,) the other five
    rest8: Ints  # (1287, 8) positions not in each five
    fives_of_8: Ints  # (56, 5) positions (into rest8) of each five of eight
    front_of_8: Ints  # (56, 3) the other three


@cache
def _shape() -> _Shape:
    fives = combinations(13, 5)
    fronts = combinations(13, 3)
    bit = 1 << np.arange(13, dtype=np.intp)
    index5 = np.full(1 << 13, -1, dtype=np.intp)
    index5[(bit[fives]).sum(axis=1)] = np.arange(len(fives))
    full = (1 << 13) - 1
    rest10 = np.array(
        [[p for p in range(13) if p not in set(f)] for f in fronts.tolist()], dtype=np.intp
    )
    picks = combinations(9, 4) + 1  # the five holding rest10[0]: it and 4 of the other 9
    mask_a = bit[rest10[:, 0]][:, None] + bit[rest10[:, picks]].sum(axis=2)  # (286, 126)
    mask_rest = full - bit[fronts].sum(axis=1)
    mask_b = mask_rest[:, None] - mask_a
    split_front = np.repeat(np.arange(len(fronts), dtype=np.intp), picks.shape[0])
    rest8 = np.array(
        [[p for p in range(13) if p not in set(f)] for f in fives.tolist()], dtype=np.intp
    )
    fives_of_8 = combinations(8, 5)
    front_of_8 = np.array(
        [[p for p in range(8) if p not in set(f)] for f in fives_of_8.tolist()], dtype=np.intp
    )
    shape = _Shape(
        fives,
        fronts,
        split_front,
        index5[mask_a.ravel()],
        index5[mask_b.ravel()],
        rest8,
        fives_of_8,
        front_of_8,
    )
    for array in vars(shape).values():
        array.flags.writeable = False
    return shape


def _sorted_indices(hand: Sequence[Card]) -> Ints:
    if len(hand) != 13 or len(set(hand)) != 13:
        raise InvalidCard(f"a hand has 13 distinct cards, got {len(set(hand))} of {len(hand)}")
    return np.array(sorted(c.index for c in hand), dtype=np.intp)


def _row_keys(rows: Ints, strengths: npt.NDArray[np.int32], suited: bool) -> Ints:
    """Table indices of rows: strength * 4, plus the top suit when suits break ties."""
    keys = strengths.astype(np.intp) * 4
    if suited:
        keys += top_suits_batch(rows, strengths)
    return keys


# --- the baseline arranger ----------------------------------------------------------------


def _strongest(
    hands: Ints, wheel: str, suited: bool, strengths: npt.NDArray[np.int32] | None = None
) -> Ints:
    """Per row of an (N, k) array of hands, the number of its strongest five (first of equals)."""
    n, k = hands.shape
    fives = combinations(k, 5)
    rows = hands[:, fives]  # (N, C(k, 5), 5)
    s = strengths
    if s is None:
        s = evaluate_batch5(rows.reshape(-1, 5), wheel).reshape(n, len(fives))
    best = s.argmax(axis=1)
    if suited:  # equal strengths: the higher top suit wins (only those hands need suits)
        top = s.max(axis=1)
        tied = np.flatnonzero((s == top[:, None]).sum(axis=1) > 1)
        if len(tied):
            sub = rows[tied].reshape(-1, 5)
            keys = s[tied].astype(np.intp) * 4 + top_suits_batch(sub, s[tied].ravel()).reshape(
                len(tied), -1
            )
            best[tied] = keys.argmax(axis=1)
    result: Ints = best.astype(np.intp)
    return result


def baseline_batch(
    hands: npt.ArrayLike,
    wheel: str = "low",
    suited: bool = False,
    strengths: npt.NDArray[np.int32] | None = None,
) -> Ints:
    """The baseline setting of each row of an (N, 13) array of deck indices.

    Returns (N, 13) deck indices: front (3), middle (5), back (5). The back is the strongest
    five of the thirteen, the middle the strongest five of the other eight (the first of
    equally strong fives in lexicographic order of positions, or the higher top suit when
    `suited`), the front the rest. It never fouls, except under `strict_order` when the
    middle ties the back. `strengths`: those of the (N, 1287) fives of the sorted hands, if
    already known.
    """
    shape = _shape()
    array = np.sort(np.asarray(hands, dtype=np.intp), axis=1)
    back_pos = _strongest(array, wheel, suited, strengths)
    rest = np.take_along_axis(array, shape.rest8[back_pos], axis=1)  # (N, 8)
    mid_pos = _strongest(rest, wheel, suited)
    middle = np.take_along_axis(rest, shape.fives_of_8[mid_pos], axis=1)
    front = np.take_along_axis(rest, shape.front_of_8[mid_pos], axis=1)
    back = np.take_along_axis(array, shape.fives[back_pos], axis=1)
    result: Ints = np.concatenate([front, middle, back], axis=1)
    return result


def _row(indices: Sequence[int]) -> tuple[Card, ...]:
    return tuple(DECK[i] for i in sorted(indices, reverse=True))


def baseline_arrangement(hand: Sequence[Card], params: SusunParams) -> Arrangement:
    """The reference field's setting: strongest five at the back, next five in the middle."""
    rows = baseline_batch(_sorted_indices(hand)[None, :], params.wheel, params.suit_tiebreak)[0]
    return Arrangement(_row(rows[:3].tolist()), _row(rows[3:8].tolist()), _row(rows[8:].tolist()))


# --- tables ---------------------------------------------------------------------------------


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


# --- the objective, per rule set --------------------------------------------------------------


@dataclass(frozen=True)
class RowModel:
    """One row's tables over the index scale, for one rule set."""

    bonus: npt.NDArray[np.int64]  # our bonus by Category value
    win: F64  # P(opponent's row is weaker)
    lose: F64  # P(opponent's row is stronger)
    win_clean: F64  # P(weaker and earns no bonus)
    opp_bonus_won: F64  # E[opponent's bonus; it wins the row]
    opp_bonus_mean: float  # E[opponent's bonus]
    opp_at_least: tuple[F64, ...]  # per threshold t: P(opponent wins the row with bonus >= t)
    opp_at_least_any: tuple[float, ...]  # per threshold t: P(opponent's bonus >= t)


@dataclass(frozen=True)
class Model:
    """Everything the objective needs for one rule set."""

    suited: bool
    wheel: str
    rows: tuple[RowModel, RowModel, RowModel]
    sweep: float  # (tembus_multiplier - 1) x 3 + scoop_bonus
    overall: float
    bonus_paid: str
    max_one: bool
    thresholds: tuple[int, ...]  # distinct positive bonuses, ascending
    natural_values: Mapping[str, int]
    naturals: tuple[str, ...]


def _bonus_by_category(row: str, params: SusunParams) -> npt.NDArray[np.int64]:
    values = []
    for category in Category:
        amount = params.bonus.get(f"{row}.{category.label}", 0)
        values.append(1 if params.royalty_flat and amount > 0 else amount)
    return np.array(values, dtype=np.int64)


def _params_key(params: SusunParams) -> tuple[Any, ...]:
    return (
        params.wheel,
        params.suit_tiebreak,
        tuple(sorted(params.bonus.items())),
        params.royalty_flat,
        params.bonus_paid,
        params.max_one_royalty,
        params.tembus_multiplier,
        params.overall_unit,
        params.scoop_bonus,
        tuple(params.naturals),
        tuple(sorted(params.natural_values.items())),
    )


_MODELS: dict[tuple[Any, ...], Model] = {}
_MODELS_MAX = 64


def model_for(params: SusunParams) -> Model:
    """The objective's tables for a rule set (cached per distinct relevant parameters)."""
    key = _params_key(params)
    model = _MODELS.get(key)
    if model is None:
        if len(_MODELS) >= _MODELS_MAX:
            _MODELS.clear()
        model = _MODELS[key] = _model(params)
    return model


def _model(params: SusunParams) -> Model:
    tables = load_tables()
    suited = params.suit_tiebreak
    counts = tables.counts[params.wheel, suited]
    strength_of_index = np.arange(SCALE_SIZE) // 4
    category = CATEGORY_BY_STRENGTH[strength_of_index].astype(np.intp)
    by_row = {r: _bonus_by_category(r, params) for r in ROWS}
    thresholds = tuple(sorted({int(v) for b in by_row.values() for v in b if v > 0}))
    rows = []
    for name, hist in zip(ROWS, counts):
        # Plain tables hold each strength at index strength * 4, so ties stay out of both.
        p = hist.astype(np.float64) / tables.hands
        opp_bonus = by_row[name][category].astype(np.float64)
        cum = np.cumsum(p)
        total = float(cum[-1])
        clean = p * (opp_bonus == 0)
        cum_b = np.cumsum(p * opp_bonus)
        at_least, at_least_any = [], []
        for t in thresholds:
            cq = np.cumsum(p * (opp_bonus >= t))
            at_least.append(cq[-1] - cq)
            at_least_any.append(float(cq[-1]))
        rows.append(
            RowModel(
                by_row[name],
                cum - p,
                total - cum,
                np.cumsum(clean) - clean,
                cum_b[-1] - cum_b,
                float(cum_b[-1]),
                tuple(at_least),
                tuple(at_least_any),
            )
        )
    return Model(
        suited,
        params.wheel,
        (rows[0], rows[1], rows[2]),
        float((params.tembus_multiplier - 1) * 3 + params.scoop_bonus),
        float(params.overall_unit),
        params.bonus_paid,
        params.max_one_royalty,
        thresholds,
        dict(params.natural_values),
        tuple(params.naturals),
    )


# --- the readable objective (the test oracle, and the documentation in code) --------------


@cache
def _strength_of_key() -> dict[tuple[int, ...], int]:
    return {key_of(s): s for s in range(1, MAX_STRENGTH + 1)}


def row_index(value: HandValue, suited: bool) -> int:
    """A row's index on the table scale, from the readable evaluator's value."""
    strength = _strength_of_key()[value.key] * 4
    return strength + SUIT_STRENGTH[value.top.suit] if suited else strength


def _expected_max(thresholds: Sequence[int], chances: Sequence[Sequence[float]]) -> float:
    """E[max of independent row payments]: chances[r][k] = P(row r pays >= thresholds[k])."""
    total, previous = 0.0, 0
    for k, t in enumerate(thresholds):
        none = 1.0
        for row in chances:
            none *= 1.0 - row[k]
        total += (t - previous) * (1.0 - none)
        previous = t
    return total


def objective_of_rows(values: Sequence[HandValue], model: Model) -> float:
    """The row score of a legal setting given its three hand values (see the module doc)."""
    w, lo, ours, theirs = [], [], [], []
    for_max_ours: list[list[float]] = []
    for_max_theirs: list[list[float]] = []
    for r, value in enumerate(values):
        row = model.rows[r]
        x = row_index(value, model.suited)
        bonus = int(row.bonus[int(value.category)])
        w.append(float(row.win[x]))
        lo.append(float(row.lose[x]))
        if model.bonus_paid == "both":
            paid_chance = 1.0
            theirs_r = row.opp_bonus_mean
            theirs_at_least = list(row.opp_at_least_any)
        elif model.bonus_paid == "cancel":
            paid_chance = float(row.win_clean[x])
            theirs_r = float(row.opp_bonus_won[x]) if bonus == 0 else 0.0
            theirs_at_least = [float(a[x]) if bonus == 0 else 0.0 for a in row.opp_at_least]
        else:
            paid_chance = w[-1]
            theirs_r = float(row.opp_bonus_won[x])
            theirs_at_least = [float(a[x]) for a in row.opp_at_least]
        ours.append(bonus * paid_chance)
        theirs.append(theirs_r)
        for_max_ours.append([paid_chance if bonus >= t else 0.0 for t in model.thresholds])
        for_max_theirs.append(theirs_at_least)
    sweep = w[0] * w[1] * w[2]
    swept = lo[0] * lo[1] * lo[2]
    two_won = w[0] * w[1] + w[0] * w[2] + w[1] * w[2] - 2 * sweep
    two_lost = lo[0] * lo[1] + lo[0] * lo[2] + lo[1] * lo[2] - 2 * swept
    score = sum(w) - sum(lo) + model.sweep * (sweep - swept) + model.overall * (two_won - two_lost)
    if model.max_one:
        score += _expected_max(model.thresholds, for_max_ours)
        score -= _expected_max(model.thresholds, for_max_theirs)
    else:
        score += sum(ours) - sum(theirs)
    return score


def expected_points(arrangement: Arrangement, rules: RuleSet) -> float:
    """The objective of one setting, from the readable evaluator (`arrangement.evaluate`).

    A natural is worth its value; a foul scores minus the foul payment (RULES.md 3.4) with the
    opponent's bonuses in all three rows; a legal setting scores `objective_of_rows`.
    """
    params = _susun(rules)
    model = model_for(params)
    result = evaluate(arrangement, params)
    if result.natural is not None:
        return float(model.natural_values.get(result.natural, 0))
    if result.foul:
        if model.max_one:
            bonus = _expected_max(model.thresholds, [r.opp_at_least_any for r in model.rows])
        else:
            bonus = sum(r.opp_bonus_mean for r in model.rows)
        return -(3 * params.foul_multiplier + params.overall_unit + params.scoop_bonus + bonus)
    return objective_of_rows([r.value for r in result.rows], model)


# --- the search -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One suggested setting: its evaluation and objective value."""

    evaluation: ArrangementResult
    score: float

    @property
    def arrangement(self) -> Arrangement:
        return self.evaluation.arrangement

    def to_json(self) -> dict[str, Any]:
        return {
            "arrangement": self.arrangement.to_json(),
            "rows": {r.row: r.to_json() for r in self.evaluation.rows},
            "bonus_total": self.evaluation.bonus_total,
            "score": round(self.score, 6),
        }


@dataclass(frozen=True, slots=True)
class SuggestResult:
    """The natural the hand can hold (if any) and the best settings, best first."""

    natural: str | None
    suggestions: tuple[Suggestion, ...]
    rules: RuleSet

    def to_json(self) -> dict[str, Any]:
        """The suggest document of API.md."""
        return {
            "natural": self.natural,
            "suggestions": [s.to_json() for s in self.suggestions],
            "rules": self.rules.to_json(),
        }


def _susun(rules: RuleSet) -> SusunParams:
    if not isinstance(rules.params, SusunParams):
        raise InvalidParameter(f"{rules.preset!r} is not a Capsa Susun rule set", field="rules")
    return rules.params


def _subset_terms(
    row: RowModel, keys: Ints, categories: Ints, model: Model
) -> tuple[F64, F64, F64, Ints]:
    """Per subset of one row: win, lose, the linear part of the score, our bonus."""
    bonus = row.bonus[categories]
    win = row.win[keys]
    lose = row.lose[keys]
    lin = win - lose
    if not model.max_one:
        if model.bonus_paid == "both":
            lin += bonus - row.opp_bonus_mean
        elif model.bonus_paid == "cancel":
            lin += bonus * row.win_clean[keys] - np.where(bonus == 0, row.opp_bonus_won[keys], 0.0)
        else:
            lin += bonus * win - row.opp_bonus_won[keys]
    return win, lose, lin, bonus


def _max_one_terms(
    model: Model, per_row: Sequence[tuple[Ints, Ints, F64, Ints]], picks: Sequence[Ints]
) -> F64:
    """Per setting: E[largest bonus we are paid] - E[largest the opponent is paid]."""
    n = len(picks[0])
    total = np.zeros(n)
    previous = 0
    for k, t in enumerate(model.thresholds):
        none_ours = np.ones(n)
        none_theirs = np.ones(n)
        for r, (keys, _, win, bonus) in enumerate(per_row):
            row, pick = model.rows[r], picks[r]
            x = keys[pick]
            b = bonus[pick]
            if model.bonus_paid == "both":
                paid = np.ones(n)
                theirs = np.full(n, row.opp_at_least_any[k])
            elif model.bonus_paid == "cancel":
                paid = row.win_clean[x]
                theirs = np.where(b == 0, row.opp_at_least[k][x], 0.0)
            else:
                paid = win[pick]
                theirs = row.opp_at_least[k][x]
            none_ours *= 1.0 - np.where(b >= t, paid, 0.0)
            none_theirs *= 1.0 - theirs
        total += (t - previous) * (none_theirs - none_ours)
        previous = t
    return total


def _hand_naturals(indices: Ints, params: SusunParams) -> list[str]:
    """Naturals read from the 13 cards (RULES.md 2): dragon, six pairs."""
    ranks = Counter((indices >> 2).tolist())
    held = []
    if len(ranks) == 13:
        held.append("dragon")
    if sum(n // 2 for n in ranks.values()) >= 6:
        held.append("six_pairs")
    return [n for n in held if n in params.naturals]


def _front_straights(ranks: Ints) -> npt.NDArray[np.bool_]:
    r = np.sort(ranks, axis=1)
    distinct = (r[:, 0] != r[:, 1]) & (r[:, 1] != r[:, 2])
    run = (r[:, 2] - r[:, 0] == 2) | ((r[:, 0] == 0) & (r[:, 1] == 1) & (r[:, 2] == 12))
    result: npt.NDArray[np.bool_] = distinct & run
    return result


def _setting_naturals(
    cards3: Ints, cards5: Ints, s5: npt.NDArray[np.int32], params: SusunParams
) -> tuple[dict[tuple[int, int, int], float], list[str]]:
    """Settings (front, middle, back subset numbers, both orientations) holding three
    flushes or three straights, with the value of the best natural each holds."""
    shape = _shape()
    found: dict[tuple[int, int, int], float] = {}
    names: list[str] = []
    for name in _NATURALS_BY_SETTING:
        if name not in params.naturals:
            continue
        if name == "three_flushes":
            front_ok = (cards3 & 3 == (cards3[:, :1] & 3)).all(axis=1)
            five_ok = (cards5 & 3 == (cards5[:, :1] & 3)).all(axis=1)
        else:
            front_ok = _front_straights(cards3 >> 2)
            five_ok = _STRAIGHTS[CATEGORY_BY_STRENGTH[s5]]
        if not front_ok.any() or five_ok.sum() < 2:
            continue
        f, a, b = shape.split_front, shape.split_a, shape.split_b
        hit = np.flatnonzero(front_ok[f] & five_ok[a] & five_ok[b])
        if len(hit):
            names.append(name)
        value = float(params.natural_values.get(name, 0))
        for i in hit.tolist():
            for m, k in ((a[i], b[i]), (b[i], a[i])):
                setting = (int(f[i]), int(m), int(k))
                found[setting] = max(found.get(setting, value), value)
    return found, names


def _best_natural(names: Sequence[str], params: SusunParams) -> str | None:
    """The most valuable natural, as `naturals.detect_natural` picks it (RULES.md 2)."""
    if not names:
        return None
    return max(
        names,
        key=lambda n: (params.natural_values.get(n, 0), TIER[n], n == "three_straights"),
    )


def suggest(hand: Sequence[Card], rules: RuleSet, limit: int = 3) -> SuggestResult:
    """The natural the hand can hold and the `limit` best legal settings, best first.

    >>> from service.domain.rules import resolve_rules
    >>> hand = [Card.from_str(t) for t in '2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac'.split()]
    >>> result = suggest(hand, resolve_rules('capsa-susun-id', 'susun'), limit=1)
    >>> result.natural, result.suggestions[0].score
    ('dragon', 208.0)
    """
    params = _susun(rules)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidParameter(f"limit must be a positive integer, got {limit!r}", field="limit")
    model = model_for(params)
    shape = _shape()
    indices = _sorted_indices(hand)
    cards5 = indices[shape.fives]
    cards3 = indices[shape.fronts]
    s5 = evaluate_batch5(cards5, params.wheel)
    s3 = evaluate_batch3(cards3)
    keys5 = _row_keys(cards5, s5, model.suited)
    keys3 = _row_keys(cards3, s3, model.suited)
    cat5 = CATEGORY_BY_STRENGTH[s5].astype(np.intp)
    cat3 = CATEGORY_BY_STRENGTH[s3].astype(np.intp)

    # Orient each split: the weaker five in the middle; equal fives in both orientations.
    f, a, b = shape.split_front, shape.split_a, shape.split_b
    ka, kb = keys5[a], keys5[b]
    swap = ka > kb
    mid = np.where(swap, b, a)
    back = np.where(swap, a, b)
    legal = keys3[f] < np.minimum(ka, kb)  # front and fives never tie
    if params.strict_order or not model.suited:
        equal = ka == kb
        if params.strict_order:
            legal &= ~equal
        elif equal.any():
            twins = np.flatnonzero(equal & legal)
            f = np.concatenate([f, f[twins]])
            mid = np.concatenate([mid, b[twins]])
            back = np.concatenate([back, a[twins]])
            legal = np.concatenate([legal, np.ones(len(twins), dtype=bool)])
    chosen = np.flatnonzero(legal)
    pf, pm, pb = f[chosen], mid[chosen], back[chosen]

    wf, lf, linf, bf = _subset_terms(model.rows[0], keys3, cat3, model)
    wm, lm, linm, bm = _subset_terms(model.rows[1], keys5, cat5, model)
    wb, lb, linb, bb = _subset_terms(model.rows[2], keys5, cat5, model)
    # score = P + lin_f + w_f Q - l_f R, with P, Q, R from the middle and back (module doc)
    u, c = model.overall, model.sweep - 2 * model.overall
    w1, w2, l1, l2 = wm[pm], wb[pb], lm[pm], lb[pb]
    ww, ll = w1 * w2, l1 * l2
    score = linm[pm] + linb[pb] + linf[pf]
    score += u * (ww - ll)
    score += wf[pf] * (u * (w1 + w2) + c * ww)
    score -= lf[pf] * (u * (l1 + l2) + c * ll)
    if model.max_one:
        per_row = ((keys3, cat3, wf, bf), (keys5, cat5, wm, bm), (keys5, cat5, wb, bb))
        score += _max_one_terms(model, per_row, (pf, pm, pb))

    # Naturals: a setting holding one is worth its value; ties ordered by the row score.
    held = _hand_naturals(indices, params)
    found, by_setting = _setting_naturals(cards3, cards5, s5, params)
    secondary = None
    if held or found:
        hand_value = max((float(params.natural_values.get(n, 0)) for n in held), default=-np.inf)
        value = np.full(len(score), hand_value)
        if found:
            held += by_setting
            ids = (pf * 1287 + pm) * 1287 + pb
            order = np.argsort(ids)
            extra: list[tuple[int, int, int]] = []
            extra_value: list[float] = []
            for (x, y, z), v in sorted(found.items()):
                at = int(np.searchsorted(ids, (x * 1287 + y) * 1287 + z, sorter=order))
                i = int(order[at]) if at < len(ids) else -1
                if i < 0 or ids[i] != (x * 1287 + y) * 1287 + z:
                    # out of order as rows, legal all the same: a natural never fouls
                    extra.append((x, y, z))
                    extra_value.append(max(v, hand_value))
                else:
                    value[i] = max(value[i], v)
            if extra:
                ef, em, eb = (np.array(column, dtype=np.intp) for column in zip(*extra))
                pf, pm, pb = np.concatenate([pf, ef]), np.concatenate([pm, em]), np.concatenate([pb, eb])
                value = np.concatenate([value, extra_value])
                score = np.concatenate([score, np.full(len(extra), -np.inf)])
        secondary = score
        score = np.where(np.isfinite(value), value, score)

    top = _top(score, secondary, limit)
    suggestions = []
    for i in top.tolist():
        rows = (cards3[pf[i]].tolist(), cards5[pm[i]].tolist(), cards5[pb[i]].tolist())
        suggestions.append(Suggestion(_evaluated(rows, params), float(score[i])))
    return SuggestResult(_best_natural(held, params), tuple(suggestions), rules)


def _top(score: F64, secondary: F64 | None, limit: int) -> Ints:
    """Positions of the `limit` best settings: by score, then secondary, then position."""
    n = len(score)
    k = min(limit, n)
    if k == 0:
        return np.zeros(0, dtype=np.intp)
    # The k-th largest of the block maxima bounds the k-th largest score from below (the k
    # best blocks each hold a score at least that high), so the winners are all >= it.
    block = 128
    if n >= 4 * block:
        full = n // block * block
        maxima = score[:full].reshape(-1, block).max(axis=1)
        bound = np.partition(maxima, len(maxima) - k)[len(maxima) - k]
        candidates = np.flatnonzero(score >= bound)
    else:
        candidates = np.arange(n)
    if len(candidates) > 8 * k:
        kth = np.partition(score[candidates], len(candidates) - k)[len(candidates) - k]
        candidates = candidates[score[candidates] >= kth]
    if secondary is None:
        order = np.lexsort((candidates, -score[candidates]))
    else:
        order = np.lexsort((candidates, -secondary[candidates], -score[candidates]))
    result: Ints = candidates[order[:k]]
    return result


def _evaluated(rows: Sequence[Sequence[int]], params: SusunParams) -> ArrangementResult:
    """`arrangement.evaluate` with the fast evaluator's hand values (equal to the readable)."""
    arrangement = Arrangement(*(_row(r) for r in rows))
    values = (
        hand_value(sorted(rows[0])),
        hand_value(sorted(rows[1]), params.wheel),
        hand_value(sorted(rows[2]), params.wheel),
    )
    natural = detect_natural(arrangement.rows, values, params)
    reason = None if natural else foul_reason(values, params)
    plays = natural is None and reason is None
    results = tuple(
        RowResult(name, cards, value, row_bonus(name, value, params) if plays else 0)
        for name, cards, value in zip(ROWS, arrangement.rows, values)
    )
    return ArrangementResult(
        arrangement, (results[0], results[1], results[2]), reason is not None, reason, natural
    )


# --- the request ------------------------------------------------------------------------------


def suggest_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body of `POST /v1/arrangements/suggest` to its document (API.md)."""
    if not isinstance(body, Mapping):
        raise CapsaError("the body must be a JSON object", field="body")
    unknown = sorted(set(body) - {"rules", "hand", "limit"})
    raise_collected([FieldError(k, f"unknown field {k!r}") for k in unknown], CapsaError)
    rules = resolve_rules(body.get("rules"), SUSUN)
    limit = body.get("limit", 3)
    if limit is None:
        limit = 3
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LIMIT_MAX:
        raise InvalidParameter(
            f"limit must be an integer from 1 to {LIMIT_MAX}, got {limit!r}", field="limit"
        )
    texts = body.get("hand")
    if not isinstance(texts, list) or len(texts) != 13:
        n = len(texts) if isinstance(texts, list) else texts
        raise InvalidCard(f"a hand has 13 cards, got {n!r}", field="hand")
    hand = parse_cards(texts, "hand")
    return suggest(hand, rules, limit).to_json()
