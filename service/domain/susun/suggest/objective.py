"""Auto-arrange's objective: a setting's expected points against one opponent of a field.

A setting (front, middle, back) is scored by its expected points against ONE opponent of a
reference field: a random 13-card hand set by `baseline_arrangement` (strongest five at the
back, strongest five of the remaining eight in the middle, the other three in front). For
each row r, from per-row tables of the opponent's row strength (`tools/build_tables.py`,
200,000 seeded four-hand deals, 800,000 baseline hands):

- w_r = P(our row r beats the opponent's), l_r = P(it loses), t_r = 1 - w_r - l_r;
- B_r = the bonus our row earns if won (the rule set's bonus table, `royalty_flat`);
- X_r = E[the opponent's bonus in row r, counted when the opponent wins the row].

With rows treated as independent (they are not quite: one deck, one opponent hand), and
v_r the row's `row_points` weight (1 in every preset of version 1):

    score = sum_r [ v_r (w_r - l_r) + w_r B_r - X_r ]                   (rows and bonuses)
          + ((mult - 1) x sum_r v_r + scoop_bonus) x (P(sweep) - P(swept))  (tembus, scoop)
          + overall_unit x (P(overall won) - P(overall lost))          (overall)

    P(sweep) = w_f w_m w_b, P(swept) = l_f l_m l_b,
    `overall_rule` "two_rows": P(overall won) = P(win >= 2 rows)
                             = w_f w_m + w_f w_b + w_m w_b - 2 w_f w_m w_b (likewise lost),
    "more_rows": P(overall won) = P(win >= 2 rows) + sum_r w_r t_s t_u (one row won, two
                 tied; s, u the other rows; likewise lost),

where mult is `tembus_multiplier` (super needs a whole table and is not modelled). This is
exactly E[points(A, B)] of docs/rules.md#scoring-formula under the independence assumption, so
the sum term is "P(win row) x (weight + bonus) - P(lose row) x (weight + the opponent's expected
bonus in that row when it wins it)". B_r reads the rule set's `bonus_by_rank` where it lists
the row and category (the row's made rank is a function of its strength, so the tables
carry it), else `bonus`. The other bonus rules change only the bonus part: `bonus_paid` "cancel"
pays our B_r only when the opponent's row earns nothing and the opponent's only when ours
earns nothing; "both" pays every bonus whatever the row result (our B_r minus the
opponent's mean bonus); `max_one_royalty` takes the expected largest bonus paid, again with
independent rows. A setting that holds a natural of the rule set (`six_pairs_counts_trips`
included) is worth that natural's value (its rows are not compared); settings that tie
(every setting of a dragon does) are ordered by the row score above. The opponent's
naturals and fouls, and the cards our hand removes from the deck, are ignored.

Probability tables are indexed by the row's strength on the fast evaluator's one scale
(`evaluator.py`), with the suit of the most significant card (`suited`) when
`suit_tiebreak` is on; there is one table per `wheel` and `suit_tiebreak` setting, and the
bonus tables are applied when a rule set is first used, so overrides work. No other
parameter changes the field's row strengths (the baseline sets its rows by strength
alone), so `row_points`, `overall_rule`, `bonus_by_rank` and `six_pairs_counts_trips`
need no tables of their own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ...errors import InvalidParameter
from ...rules import RuleSet
from ..arrangement import ROWS, Arrangement, evaluate
from ..batch_evaluator import CATEGORY_BY_STRENGTH
from ..evaluator import MAX_STRENGTH, key_of
from ..hands import SUIT_STRENGTH, Category, HandValue, made_rank
from ..rules import RANKS, BonusPaid, OverallRule, SusunParams
from .tables import SCALE_SIZE, load_tables

F64 = npt.NDArray[np.float64]


# --- the objective, per rule set --------------------------------------------------------------


@dataclass(frozen=True)
class RowModel:
    """One row's tables over the index scale, for one rule set."""

    bonus: npt.NDArray[np.int64]  # our bonus by strength (fast evaluator's scale)
    weight: float  # the row's `row_points` weight
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
    sweep: float  # (tembus_multiplier - 1) x the sum of the weights + scoop_bonus
    overall: float
    more_rows: bool  # `overall_rule` "more_rows"
    bonus_paid: BonusPaid
    max_one: bool
    thresholds: tuple[int, ...]  # distinct positive bonuses, ascending
    natural_values: Mapping[str, int]
    naturals: tuple[str, ...]


@cache
def _made_rank_by_strength() -> npt.NDArray[np.intp]:
    """`hands.made_rank` of every strength (0 for the unused strength 0)."""
    ranks = [0] + [
        made_rank(Category(int(CATEGORY_BY_STRENGTH[s])), key_of(s)) for s in range(1, MAX_STRENGTH + 1)
    ]
    return np.array(ranks, dtype=np.intp)


def _bonus_by_strength(row: str, params: SusunParams) -> npt.NDArray[np.int64]:
    """The bonus a row of each strength earns if won (`arrangement.bonus_of`, vectorised):
    `bonus` by category, then `bonus_by_rank` by made rank for the categories it lists."""
    flat = params.royalty_flat
    by_category = [params.bonus.get(f"{row}.{c.label}", 0) for c in Category]
    categories = CATEGORY_BY_STRENGTH.astype(np.intp)
    values = np.array([1 if flat and b > 0 else b for b in by_category], dtype=np.int64)[categories]
    ranks = _made_rank_by_strength()
    for name, table in params.bonus_by_rank.items():
        where, label = name.split(".")
        if where != row:
            continue
        per_rank = np.zeros(15, dtype=np.int64)
        for rank, amount in table.items():
            per_rank[RANKS.index(rank) + 2] = 1 if flat and amount > 0 else amount
        listed = categories == int(Category[label.upper()])
        values = np.where(listed, per_rank[ranks], values)
    values[0] = 0
    result: npt.NDArray[np.int64] = values
    return result



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
        params.row_points,
        params.overall_rule,
        tuple(sorted((k, tuple(sorted(v.items()))) for k, v in params.bonus_by_rank.items())),
    )


# The models of the rule sets used last, most recent last, within MODELS_BYTES_MAX (a
# preset's is about 2 MB; one with `max_one_royalty` adds 0.75 MB per distinct bonus value,
# at most 64: 50 MB) and MODELS_MAX: rule sets a client varies cannot fill a worker's memory.
_MODELS: OrderedDict[tuple[Any, ...], Model] = OrderedDict()
_MODELS_LOCK = threading.Lock()
MODELS_MAX = 64
MODELS_BYTES_MAX = 128 * 2**20


def model_for(params: SusunParams) -> Model:
    """The objective's tables for a rule set (cached per distinct relevant parameters)."""
    model = cached_model(params)
    if model is not None:
        return model
    key = _params_key(params)
    model = _model(params)
    with _MODELS_LOCK:
        _MODELS[key] = model
        _MODELS.move_to_end(key)
        while len(_MODELS) > 1 and (len(_MODELS) > MODELS_MAX or cached_bytes() > MODELS_BYTES_MAX):
            _MODELS.popitem(last=False)
    return model


def cached_model(params: SusunParams) -> Model | None:
    """This rule set's model if the cache holds it (then the most recently used), else None."""
    key = _params_key(params)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            _MODELS.move_to_end(key)
        return model


def cached_bytes() -> int:
    return sum(model_bytes(m) for m in list(_MODELS.values()))


def model_bytes(model: Model) -> int:
    """The bytes of a model's tables."""
    return sum(
        row.bonus.nbytes + row.win.nbytes + row.lose.nbytes + row.win_clean.nbytes + row.opp_bonus_won.nbytes
        + sum(a.nbytes for a in row.opp_at_least)
        for row in model.rows
    )


def bonus_values(params: SusunParams) -> tuple[int, ...]:
    """The distinct positive bonuses a row can earn under `params`, ascending: what
    `max_one_royalty`'s term walks (no model is built)."""
    return _thresholds({r: _bonus_by_strength(r, params) for r in ROWS})


def _thresholds(by_row: Mapping[str, npt.NDArray[np.int64]]) -> tuple[int, ...]:
    return tuple(int(v) for v in np.unique(np.concatenate(list(by_row.values()))) if v > 0)


def _model(params: SusunParams) -> Model:
    tables = load_tables()
    suited = params.suit_tiebreak
    counts = tables.counts[params.wheel, suited]
    strength_of_index = np.arange(SCALE_SIZE) // 4
    by_row = {r: _bonus_by_strength(r, params) for r in ROWS}
    thresholds = _thresholds(by_row)
    # P(opponent's bonus >= t) per threshold serves `max_one_royalty` only: a table per
    # threshold per row, left out otherwise (237 thresholds made a model of 175 MB).
    walked = thresholds if params.max_one_royalty else ()
    rows = []
    for name, hist, weight in zip(ROWS, counts, params.row_points):
        # Plain tables hold each strength at index strength * 4, so ties stay out of both.
        p = hist.astype(np.float64) / tables.hands
        opp_bonus = by_row[name][strength_of_index].astype(np.float64)
        cum = np.cumsum(p)
        total = float(cum[-1])
        clean = p * (opp_bonus == 0)
        cum_b = np.cumsum(p * opp_bonus)
        at_least, at_least_any = [], []
        for t in walked:
            cq = np.cumsum(p * (opp_bonus >= t))
            at_least.append(cq[-1] - cq)
            at_least_any.append(float(cq[-1]))
        rows.append(
            RowModel(
                by_row[name],
                float(weight),
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
        float((params.tembus_multiplier - 1) * sum(params.row_points) + params.scoop_bonus),
        float(params.overall_unit),
        params.overall_rule == OverallRule.MORE_ROWS,
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
        bonus = int(row.bonus[x // 4])
        w.append(float(row.win[x]))
        lo.append(float(row.lose[x]))
        if model.bonus_paid == BonusPaid.BOTH:
            paid_chance = 1.0
            theirs_r = row.opp_bonus_mean
            theirs_at_least = list(row.opp_at_least_any)
        elif model.bonus_paid == BonusPaid.CANCEL:
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
    rows = sum(model.rows[r].weight * (w[r] - lo[r]) for r in range(3))
    score = rows + model.sweep * (sweep - swept) + model.overall * (two_won - two_lost)
    if model.more_rows:
        t = [1.0 - w[r] - lo[r] for r in range(3)]
        score += model.overall * sum(
            (w[r] - lo[r]) * t[(r + 1) % 3] * t[(r + 2) % 3] for r in range(3)
        )
    if model.max_one:
        score += _expected_max(model.thresholds, for_max_ours)
        score -= _expected_max(model.thresholds, for_max_theirs)
    else:
        score += sum(ours) - sum(theirs)
    return score


def expected_points(arrangement: Arrangement, rules: RuleSet) -> float:
    """The objective of one setting, from the readable evaluator (`arrangement.evaluate`).

    A natural is worth its value; a foul scores minus the foul payment (docs/rules.md#foul-payment) with the
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
        rows = sum(params.row_points) * params.foul_multiplier
        return -(rows + params.overall_unit + params.scoop_bonus + bonus)
    return objective_of_rows([r.value for r in result.rows], model)


def _susun(rules: RuleSet) -> SusunParams:
    if not isinstance(rules.params, SusunParams):
        raise InvalidParameter(f"{rules.preset!r} is not a Capsa Susun rule set", field="rules")
    return rules.params
