"""Head-to-head scoring of a Capsa Susun / Chinese Poker round (docs/rules.md#scoring-formula to docs/rules.md#outcomes).

Every preset uses the one formula; the presets differ only in parameter values:

    points(A, B) = rows x mult + overall + scoop + bonus

where rows = the sum over the rows of `row_points` weight x (+1 won, 0 tied, -1 lost), and
`overall` goes to the side that won two rows or more (`overall_rule` "two_rows") or more
rows than it lost ("more_rows").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations

from .arrangement import Arrangement, ArrangementResult, evaluate
from .naturals import compare_naturals
from .rules import BonusPaid, OverallRule, SusunParams

LEGAL, FOUL, NATURAL, SURRENDER = "legal", "foul", "natural", "surrender"


class PairOutcome(StrEnum):
    """How a Capsa Susun pair was decided (docs/rules.md#outcomes); the value is the API's."""

    NORMAL = "normal"  # rows compared, points changed hands
    TIE = "tie"  # rows compared, no points
    TEMBUS = "tembus"  # a sweep paid at `tembus_multiplier`
    SUPER = "super"  # a sweep of the whole table paid at `super_multiplier`
    SCOOP = "scoop"  # a sweep with no multiplier (`tembus_multiplier` 1)
    FOUL = "foul"
    NATURAL = "natural"
    SURRENDER = "surrender"


@dataclass(frozen=True, slots=True)
class PlayerHand:
    """A player's input to scoring: an arrangement, or None when it surrenders."""

    id: str
    arrangement: Arrangement | None


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """A player's evaluated hand, whether it was super, and its round points."""

    id: str
    evaluation: ArrangementResult | None
    status: str
    super_: bool
    points: int


@dataclass(frozen=True, slots=True)
class PairResult:
    """One head-to-head settlement, from `a`'s side: `rows` per row +1/0/-1 or None."""

    a: str
    b: str
    rows: tuple[int, int, int] | None
    bonus_a: int
    bonus_b: int
    outcome: PairOutcome
    multiplier: int
    points: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    """Players in seat order and the pairs (i < j in seat order)."""

    players: tuple[PlayerResult, ...]
    pairs: tuple[PairResult, ...]


def _status(evaluation: ArrangementResult | None) -> str:
    if evaluation is None:
        return SURRENDER
    if evaluation.natural:
        return NATURAL
    return FOUL if evaluation.foul else LEGAL


def _row_compare(a: ArrangementResult, b: ArrangementResult, params: SusunParams) -> tuple[int, int, int]:
    ra, rb = a.rows, b.rows
    return (
        ra[0].value.compare(rb[0].value, params.suit_tiebreak),
        ra[1].value.compare(rb[1].value, params.suit_tiebreak),
        ra[2].value.compare(rb[2].value, params.suit_tiebreak),
    )


def _paid(bonuses: Sequence[int], params: SusunParams) -> int:
    """What a player is paid from the bonuses it earns in one pair (`max_one_royalty`)."""
    if params.max_one_royalty:
        return max(bonuses, default=0)
    return sum(bonuses)


def _bonuses(
    a: ArrangementResult, b: ArrangementResult, cmp: tuple[int, int, int], params: SusunParams
) -> tuple[int, int]:
    """Bonuses paid to A and to B in a compared pair, per `bonus_paid` (docs/rules.md#bonuses)."""
    ba = [r.bonus for r in a.rows]
    bb = [r.bonus for r in b.rows]
    if params.bonus_paid == BonusPaid.BOTH:
        return _paid(ba, params), _paid(bb, params)
    cancel = params.bonus_paid == BonusPaid.CANCEL
    to_a, to_b = [], []
    for i, c in enumerate(cmp):
        if cancel and ba[i] > 0 and bb[i] > 0:
            continue
        if c > 0:
            to_a.append(ba[i])
        elif c < 0:
            to_b.append(bb[i])
    return _paid(to_a, params), _paid(to_b, params)


def _compared_pair(
    a: PlayerResult,
    b: PlayerResult,
    cmp: tuple[int, int, int],
    params: SusunParams,
) -> PairResult:
    assert a.evaluation is not None and b.evaluation is not None  # pragma: no mutate (for mypy)
    won_a, won_b = cmp.count(1), cmp.count(-1)
    w = params.row_points
    rows = w[0] * cmp[0] + w[1] * cmp[1] + w[2] * cmp[2]
    bonus_a, bonus_b = _bonuses(a.evaluation, b.evaluation, cmp, params)
    sign = 1 if won_a == 3 else -1 if won_b == 3 else 0
    mult = 1
    outcome: PairOutcome | None = None
    if sign:
        sweeper = a if won_a == 3 else b
        if sweeper.super_:
            mult = params.super_multiplier
            outcome = PairOutcome.SUPER if params.super_multiplier > 1 else None
        else:
            mult = params.tembus_multiplier
        if outcome is None:
            outcome = PairOutcome.TEMBUS if params.tembus_multiplier > 1 else PairOutcome.SCOOP
    if params.overall_rule == OverallRule.MORE_ROWS:
        overall = params.overall_unit * ((won_a > won_b) - (won_b > won_a))
    else:
        overall = params.overall_unit * (1 if won_a >= 2 else -1 if won_b >= 2 else 0)
    points = rows * mult + overall + sign * params.scoop_bonus + bonus_a - bonus_b
    if outcome is None:
        outcome = PairOutcome.NORMAL if points else PairOutcome.TIE
    return PairResult(a.id, b.id, cmp, bonus_a, bonus_b, outcome, mult, points)


def _foul_payment(winner: ArrangementResult, params: SusunParams) -> tuple[int, int]:
    """(points, bonus) a legal hand takes from a fouling one (docs/rules.md#foul-payment): all
    three rows, as a sweep at `foul_multiplier` (the sum of the `row_points` weights in place
    of 3)."""
    bonus = _paid([r.bonus for r in winner.rows], params)
    rows = sum(params.row_points) * params.foul_multiplier
    return rows + params.overall_unit + params.scoop_bonus + bonus, bonus


def pair_points_bound(params: SusunParams) -> int:
    """A bound on the points one pair can move under `params`, whatever the hands: the
    weighted rows at the largest multiplier, the overall and scoop points, every row's
    largest bonus on both sides, the largest natural and the surrender cost, all added.
    Loose on purpose (no pair earns all of them at once): it only has to be safe, so that a
    stake it allows can book any round (`amounts_bound`)."""
    row_bonus = max([abs(v) for v in params.bonus.values()]
                    + [abs(v) for table in params.bonus_by_rank.values() for v in table.values()] + [0])
    if params.royalty_flat:
        row_bonus = min(row_bonus, 1)
    multiplier = max(1, abs(params.tembus_multiplier), abs(params.super_multiplier), abs(params.foul_multiplier))
    return (
        sum(abs(w) for w in params.row_points) * multiplier
        + abs(params.overall_unit)
        + abs(params.scoop_bonus)
        + 6 * row_bonus
        + max([abs(v) for v in params.natural_values.values()] + [0])
        + abs(params.surrender_cost)
    )


def amounts_bound(params: SusunParams, n_players: int) -> int:
    """A bound on every amount of a round of `n_players` at a stake of one minor unit: a
    pair's, a player's result, winnings, fee and net (its n - 1 pairs), and the house fee
    (the fees of all n players, each at most its basis)."""
    return n_players * max(1, n_players - 1) * pair_points_bound(params)


def _uncompared_pair(a: PlayerResult, b: PlayerResult, params: SusunParams) -> PairResult:
    """A pair decided by a foul, a natural or a surrender (the table of docs/rules.md#outcomes)."""
    sa, sb = a.status, b.status
    ea, eb = a.evaluation, b.evaluation
    if SURRENDER in (sa, sb):
        if sa == sb or FOUL in (sa, sb):
            points = 0
        else:
            points = params.surrender_cost if sb == SURRENDER else -params.surrender_cost
        return PairResult(a.id, b.id, None, 0, 0, PairOutcome.SURRENDER, 1, points)
    if NATURAL in (sa, sb):
        # Invariants for the type checker; a weakened one changes nothing.
        assert ea is not None and eb is not None and (ea.natural or eb.natural)  # pragma: no mutate
        values = params.natural_values
        if sa == sb:
            assert ea.natural is not None and eb.natural is not None  # pragma: no mutate
            c = compare_naturals(
                ea.natural,
                ea.arrangement.rows,
                [r.value for r in ea.rows],
                eb.natural,
                eb.arrangement.rows,
                [r.value for r in eb.rows],
                params,
            )
            # c is 1, 0 or -1; the winner is paid its own natural's value, a tie nothing
            natural = ea.natural if c == 1 else eb.natural
            points = c * values.get(natural, 0)
        elif sa == NATURAL:
            assert ea.natural is not None
            points = values.get(ea.natural, 0)
        else:
            assert eb.natural is not None
            points = -values.get(eb.natural, 0)
        return PairResult(a.id, b.id, None, 0, 0, PairOutcome.NATURAL, 1, points)
    # at least one foul, no natural, no surrender
    if sa == sb:
        return PairResult(a.id, b.id, None, 0, 0, PairOutcome.FOUL, 1, 0)
    if sb == FOUL:
        assert ea is not None
        points, bonus = _foul_payment(ea, params)
        return PairResult(a.id, b.id, None, bonus, 0, PairOutcome.FOUL, params.foul_multiplier, points)
    assert eb is not None
    points, bonus = _foul_payment(eb, params)
    return PairResult(a.id, b.id, None, 0, bonus, PairOutcome.FOUL, params.foul_multiplier, -points)


def score_round(players: Sequence[PlayerHand], params: SusunParams) -> RoundResult:
    """Score a round of 2-4 players head to head; points are zero-sum.

    Super (docs/rules.md#super): a legal player who sweeps every other player, where fouled
    opponents count as swept and a natural or a surrender prevents it, at a table of at
    least `super_min_players`.
    """
    evaluations = [None if p.arrangement is None else evaluate(p.arrangement, params) for p in players]
    statuses = [_status(e) for e in evaluations]
    n = len(players)
    cmps: dict[tuple[int, int], tuple[int, int, int]] = {}
    for i, j in combinations(range(n), 2):
        if statuses[i] == LEGAL and statuses[j] == LEGAL:
            ei, ej = evaluations[i], evaluations[j]
            assert ei is not None and ej is not None  # pragma: no mutate (for mypy)
            front, middle, back = cmps[(i, j)] = _row_compare(ei, ej, params)
            cmps[(j, i)] = (-front, -middle, -back)  # the same rows from j's side

    def swept(i: int, j: int) -> bool:
        if statuses[j] == FOUL:
            return True
        if statuses[j] != LEGAL:
            return False
        return all(c > 0 for c in cmps[(i, j)])

    supers = [
        statuses[i] == LEGAL
        and n >= params.super_min_players
        and all(swept(i, j) for j in range(n) if j != i)
        for i in range(n)
    ]
    provisional = [
        PlayerResult(
            p.id,
            evaluations[i],
            statuses[i],
            supers[i],
            0,  # points, added up below from the pairs: never read  # pragma: no mutate
        )
        for i, p in enumerate(players)
    ]
    pairs = []
    for i, j in combinations(range(n), 2):
        if (i, j) in cmps:
            pairs.append(_compared_pair(provisional[i], provisional[j], cmps[(i, j)], params))
        else:
            pairs.append(_uncompared_pair(provisional[i], provisional[j], params))
    points = [0] * n
    index = {p.id: i for i, p in enumerate(players)}
    for pair in pairs:
        points[index[pair.a]] += pair.points
        points[index[pair.b]] -= pair.points
    return RoundResult(
        tuple(
            PlayerResult(p.id, p.evaluation, p.status, p.super_, points[i])
            for i, p in enumerate(provisional)
        ),
        tuple(pairs),
    )
