"""Auto-arrange's search: the best legal settings of a 13-card hand, by the objective.

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

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ...cards import Card, parse_cards
from ...errors import CapsaError, FieldError, InvalidCard, InvalidParameter, raise_collected
from ...rules import RuleSet, resolve_rules
from ..arrangement import (
    ROWS,
    Arrangement,
    ArrangementResult,
    RowResult,
    foul_reason,
    row_bonus,
)
from ..batch_evaluator import CATEGORY_BY_STRENGTH, evaluate_batch3, evaluate_batch5, top_suits_batch
from ..evaluator import hand_value, key_of
from ..hands import Category
from ..naturals import TIER, detect_natural, six_pairs_of_counts
from ..rules import SUSUN, BonusPaid, FrontVsFive, Natural, SusunParams
from .baseline import Ints, _row, _shape, _sorted_indices
from .limits import LIMIT_DEFAULT
from .limits import LIMIT_MAX as LIMIT_MAX  # re-exported: its home is limits (no numpy)
from .objective import F64, Model, RowModel, _susun, bonus_values, cached_model, model_for

_NATURALS_BY_SETTING = ("three_straights", "three_flushes")
_STRAIGHTS = np.array(
    [c in (Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH) for c in Category]
)


def _row_keys(rows: Ints, strengths: npt.NDArray[np.int32], suited: bool) -> Ints:
    """Table indices of rows: strength * 4, plus the top suit when suits break ties."""
    keys = strengths.astype(np.intp) * 4
    if suited:
        keys += top_suits_batch(rows, strengths)
    return keys


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
        """The suggest document (docs/api.md#rules-evaluate-and-suggest)."""
        return {
            "natural": self.natural,
            "suggestions": [s.to_json() for s in self.suggestions],
            "rules": self.rules.to_json(),
        }


def _subset_terms(
    row: RowModel, keys: Ints, strengths: npt.NDArray[np.int32], model: Model
) -> tuple[F64, F64, F64, Ints]:
    """Per subset of one row: win, lose, the linear part of the score, our bonus."""
    bonus = row.bonus[strengths]
    win = row.win[keys]
    lose = row.lose[keys]
    lin = row.weight * (win - lose)
    if not model.max_one:
        if model.bonus_paid == BonusPaid.BOTH:
            lin += bonus - row.opp_bonus_mean
        elif model.bonus_paid == BonusPaid.CANCEL:
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
            if model.bonus_paid == BonusPaid.BOTH:
                paid = np.ones(n)
                theirs = np.full(n, row.opp_at_least_any[k])
            elif model.bonus_paid == BonusPaid.CANCEL:
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
    """Naturals read from the 13 cards (docs/rules.md#naturals): dragon, six pairs."""
    ranks = Counter((indices >> 2).tolist())
    held = []
    if len(ranks) == 13:
        held.append("dragon")
    if six_pairs_of_counts(ranks.values(), params.six_pairs_counts_trips):
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
) -> tuple[Ints, F64, list[str]]:
    """Settings holding three flushes or three straights (both orientations of the two
    fives), as their ids (`_setting_id`, ascending, each once) with the value of the best
    natural each holds, and the naturals found. In arrays throughout: a hand of one suit
    holds three flushes in every one of its 72,072 settings."""
    shape = _shape()
    ids: list[Ints] = []
    values: list[F64] = []
    names: list[str] = []
    for name in _NATURALS_BY_SETTING:
        if name not in params.naturals:
            continue
        if name == Natural.THREE_FLUSHES:
            front_ok = (cards3 & 3 == (cards3[:, :1] & 3)).all(axis=1)
            five_ok = (cards5 & 3 == (cards5[:, :1] & 3)).all(axis=1)
        else:
            front_ok = _front_straights(cards3 >> 2)
            five_ok = _STRAIGHTS[CATEGORY_BY_STRENGTH[s5]]
        if not front_ok.any() or five_ok.sum() < 2:
            continue
        f, a, b = shape.split_front, shape.split_a, shape.split_b
        hit = np.flatnonzero(front_ok[f] & five_ok[a] & five_ok[b])
        if not len(hit):
            continue
        names.append(name)
        both = np.concatenate([_setting_id(f[hit], a[hit], b[hit]), _setting_id(f[hit], b[hit], a[hit])])
        ids.append(both)
        values.append(np.full(len(both), float(params.natural_values.get(name, 0))))
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0), names
    unique, at = np.unique(np.concatenate(ids), return_inverse=True)
    best = np.full(len(unique), -np.inf)
    np.maximum.at(best, at, np.concatenate(values))
    return unique, best, names


def _setting_id(front: Ints, middle: Ints, back: Ints) -> Ints:
    """A setting (front, middle and back subset numbers) as one integer, in their order."""
    result: Ints = (front.astype(np.int64) * 1287 + middle) * 1287 + back
    return result


def _front_ties(s3: npt.NDArray[np.int32], s5: npt.NDArray[np.int32], f: Ints, mid: Ints) -> npt.NDArray[np.bool_]:
    """Per setting, whether its front ties its middle under `front_vs_five` `tie` (the
    five's first ranks are the front's: `arrangement.front_against_five`), a foul under
    `strict_order`. Each distinct strength's key is looked up once."""
    fronts, at3 = np.unique(s3, return_inverse=True)
    fives, at5 = np.unique(s5, return_inverse=True)
    front_keys = [key_of(int(v)) for v in fronts]
    ids = {key: i for i, key in enumerate(front_keys)}
    lengths = sorted({len(key) for key in front_keys})
    id3 = np.arange(len(fronts), dtype=np.intp)[at3]
    five_ids = [next((ids[key[:n]] for n in lengths if key[:n] in ids), -1) for key in map(key_of, map(int, fives))]
    id5 = np.array(five_ids, dtype=np.intp)[at5]
    tied: npt.NDArray[np.bool_] = id3[f] == id5[mid]
    return tied


def _best_natural(names: Sequence[str], params: SusunParams) -> str | None:
    """The most valuable natural, as `naturals.detect_natural` picks it (docs/rules.md#naturals)."""
    if not names:
        return None
    return max(
        names,
        key=lambda n: (params.natural_values.get(n, 0), TIER[n], n == Natural.THREE_STRAIGHTS),
    )


# `max_one_royalty`'s term walks every distinct bonus value over all the settings: about
# 1.1 ms each (237 of them made a search 0.3 s, against 18 ms under a preset, whose rules
# have at most 25). Rules with more are refused where a suggestion is asked for, and where
# a game is made that will ask for them (docs/limits.md).
MAX_ONE_BONUS_VALUES = 64


def refuse_slow_rules(rules: RuleSet) -> None:
    """InvalidParameter on `rules.params.max_one_royalty` when a suggestion under `rules`
    would walk more than MAX_ONE_BONUS_VALUES bonus values: counted without building the
    suggestion's model (a Capsa Susun game checks its rules when it starts)."""
    params = _susun(rules)
    if params.max_one_royalty:
        _refuse_over(len(bonus_values(params)))


def _refuse_over(values: int) -> None:
    """InvalidParameter when `max_one_royalty`'s term would walk more than MAX_ONE_BONUS_VALUES."""
    if values > MAX_ONE_BONUS_VALUES:
        raise InvalidParameter(
            f"max_one_royalty with {values} distinct bonus values (bonus and bonus_by_rank): "
            f"a suggestion walks each of them, at most {MAX_ONE_BONUS_VALUES}",
            field="rules.params.max_one_royalty",
        )


def suggest(hand: Sequence[Card], rules: RuleSet, limit: int = LIMIT_DEFAULT) -> SuggestResult:
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
    model = cached_model(params)
    if model is None:
        refuse_slow_rules(rules)  # counted before its model is built: a refused model is the largest
        model = model_for(params)
    elif model.max_one:
        _refuse_over(len(model.thresholds))  # counted once, with the model
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
    if params.strict_order and params.front_vs_five == FrontVsFive.TIE:
        legal &= ~_front_ties(s3, s5, f, mid)
    chosen = np.flatnonzero(legal)
    pf, pm, pb = f[chosen], mid[chosen], back[chosen]

    wf, lf, linf, bf = _subset_terms(model.rows[0], keys3, s3, model)
    wm, lm, linm, bm = _subset_terms(model.rows[1], keys5, s5, model)
    wb, lb, linb, bb = _subset_terms(model.rows[2], keys5, s5, model)
    # score = P + lin_f + w_f Q - l_f R, with P, Q, R from the middle and back (objective.py)
    u, c = model.overall, model.sweep - 2 * model.overall
    w1, w2, l1, l2 = wm[pm], wb[pb], lm[pm], lb[pb]
    ww, ll = w1 * w2, l1 * l2
    score = linm[pm] + linb[pb] + linf[pf]
    score += u * (ww - ll)
    score += wf[pf] * (u * (w1 + w2) + c * ww)
    score -= lf[pf] * (u * (l1 + l2) + c * ll)
    if model.more_rows:  # one row won (or lost) and two tied also decides the overall unit
        t1, t2 = 1.0 - w1 - l1, 1.0 - w2 - l2
        won_f, tied_f = wf[pf] - lf[pf], 1.0 - wf[pf] - lf[pf]
        score += u * (won_f * t1 * t2 + tied_f * ((w1 - l1) * t2 + t1 * (w2 - l2)))
    if model.max_one:
        per_row = ((keys3, cat3, wf, bf), (keys5, cat5, wm, bm), (keys5, cat5, wb, bb))
        score += _max_one_terms(model, per_row, (pf, pm, pb))

    # Naturals: a setting holding one is worth its value; ties ordered by the row score.
    held = _hand_naturals(indices, params)
    found, found_value, by_setting = _setting_naturals(cards3, cards5, s5, params)
    secondary = None
    if held or len(found):
        hand_value = max((float(params.natural_values.get(n, 0)) for n in held), default=-np.inf)
        value = np.full(len(score), hand_value)
        if len(found):
            held += by_setting
            ids = _setting_id(pf, pm, pb)
            listed = np.zeros(len(found), dtype=np.bool_)  # no legal setting: every one is extra
            if len(ids):
                order = np.argsort(ids)
                at = np.searchsorted(ids, found, sorter=order)
                i = order[np.minimum(at, len(ids) - 1)]
                listed = (at < len(ids)) & (ids[i] == found)
                np.maximum.at(value, i[listed], found_value[listed])
            # out of order as rows, legal all the same: a natural never fouls
            extra = found[~listed]
            if len(extra):
                ef, rest = np.divmod(extra, 1287 * 1287)
                em, eb = np.divmod(rest, 1287)
                pf, pm, pb = (np.concatenate([p, e.astype(np.intp)]) for p, e in ((pf, ef), (pm, em), (pb, eb)))
                value = np.concatenate([value, np.maximum(found_value[~listed], hand_value)])
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
    """The body of `POST /v1/arrangements/suggest` to its document (docs/api.md#rules-evaluate-and-suggest)."""
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
