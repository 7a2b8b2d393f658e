"""The bound on a Capsa Susun round's amounts (`pair_points_bound`, `amounts_bound`) is safe:
no round scored under any shipped preset, or under large overrides, moves more points in a
pair, or books more in any amount at a stake of one minor unit, whatever the hands and
whatever the players do with them (legal settings, fouls, naturals, surrenders). A game's
stake is refused at creation above what the bound allows (tests/api/test_api_susun_games.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.cards import RANK_CHARS, SUIT_CHARS, parse_cards
from service.domain.money import settle
from service.domain.rules import PRESETS, RuleSet, resolve_rules
from service.domain.susun.arrangement import Arrangement
from service.domain.susun.rules import SusunParams
from service.domain.susun.scoring import PlayerHand, amounts_bound, pair_points_bound, score_round
from service.domain.susun.suggest.search import suggest

DECK = [r + s for r in RANK_CHARS for s in SUIT_CHARS]
SUSUN_PRESETS = sorted({name for (name, _), p in PRESETS.items() if p.rules.game == "susun"})
DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac".split()
LARGE = {"tembus_multiplier": 9, "super_multiplier": 12, "scoop_bonus": 7, "overall_unit": 5, "surrender_cost": 11}


def _cases() -> list[tuple[str, dict[str, Any]]]:
    return [(name, {}) for name in SUSUN_PRESETS] + [("capsa-susun-id", LARGE), ("chinese-poker-2-4", LARGE)]


def _arrangement(hand: list[str], how: int, rules: RuleSet, rng: random.Random) -> Arrangement | None:
    """Any order (mostly fouls), the service's best legal setting, or a surrender."""
    p = rules.params
    assert isinstance(p, SusunParams)
    if how == 0:
        cards = rng.sample(hand, 13)
        return Arrangement.from_strings(" ".join(cards[:3]), " ".join(cards[3:8]), " ".join(cards[8:]))
    if how == 3 and p.surrender_allowed:
        return None
    return suggest(parse_cards(hand, "hand"), rules, limit=1).suggestions[0].arrangement


@pytest.mark.parametrize(("preset", "overrides"), _cases())
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4), hows=st.lists(st.integers(0, 3), min_size=4, max_size=4),
       dragon=st.booleans())
def test_no_round_moves_more_than_the_bound(preset, overrides, seed, n, hows, dragon):
    rules = resolve_rules({"preset": preset, "params": overrides}, "susun")
    p = rules.params
    assert isinstance(p, SusunParams)
    rng = random.Random(seed)
    deck = [c for c in DECK if not dragon or c not in DRAGON]
    rng.shuffle(deck)
    hands = [DRAGON if dragon and i == 0 else deck[13 * i - (13 if dragon else 0): 13 * i + 13 - (13 if dragon else 0)]
             for i in range(n)]
    players = [PlayerHand("abcd"[i], _arrangement(h, hows[i], rules, rng)) for i, h in enumerate(hands)]
    result = score_round(players, p)
    bound = pair_points_bound(p)
    assert all(abs(pair.points) <= bound for pair in result.pairs), (result.pairs, bound)
    seat = {pl.id: i for i, pl in enumerate(result.players)}
    money = settle(n, [(seat[pr.a], seat[pr.b], pr.points) for pr in result.pairs], p.fee_rate, p.fee_basis)
    amounts = [pr.points for pr in result.pairs] + [money.house_fee] + [
        a for pm in money.players for a in (pm.result, pm.winnings, pm.fee, pm.net)]
    assert max(abs(a) for a in amounts) <= amounts_bound(p, n)
