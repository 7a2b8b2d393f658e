"""Capsa Banting / Big Two rules: every parameter, its checks, its contradictions and the presets.

Version 1 of `capsa-banting-id` has the parameter list stored games were scored with
(`straights_with_two` among them); later versions replace `straights_with_two` by `straights`
and add `bombs`, `pass_locks`, `last_card_rule`, `first_lead` and `settlement`. A parameter a
version lacks is None in its `BantingParams` and absent from its JSON; the engine reads the
rule through the properties below, which give a version 1 rule set its old behaviour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any

from ..errors import FieldError, InvalidParameter, quoted, raise_collected
from ..parameters import _COMMON, FeeBasis, _Bad, _bool, _int, _option

BANTING = "banting"


class FlushOrder(StrEnum):
    """How flushes compare: by their top suit first, or by their ranks first."""

    SUIT_FIRST = "suit_first"
    RANK_FIRST = "rank_first"


class Straights(StrEnum):
    """Which runs are straights."""

    STANDARD = "standard"
    WITH_TWO = "with_two"
    CONSECUTIVE = "consecutive"


class Bombs(StrEnum):
    """What beats a 2 out of turn."""

    FIVE_CARD_ON_TWO = "five_card_on_two"
    NONE = "none"
    BARE_QUADS = "bare_quads"


class PassLock(StrEnum):
    """How long a pass keeps a player out: the trick, or the turn."""

    TRICK = "trick"
    TURN = "turn"


class LastCardRule(StrEnum):
    """What a player must do when the next holds one card."""

    NONE = "none"
    HIGHEST_SINGLE = "highest_single"
    HIGHEST_SINGLE_NO_PASS = "highest_single_no_pass"


class FirstLead(StrEnum):
    """Who leads the first trick."""

    LOWEST_CARD = "lowest_card"
    PREVIOUS_WINNER = "previous_winner"


class SettlementRule(StrEnum):
    """Who pays whom when a game ends."""

    WINNER_COLLECTS = "winner_collects"
    EVERYONE_PAYS_EVERYONE = "everyone_pays_everyone"


class StraightFlushOrder(StrEnum):
    """How straight flushes compare."""

    RANK_FIRST = "rank_first"
    SUIT_FIRST = "suit_first"


class LastCardPenalty(StrEnum):
    """Whether the player who let the last card go pays every loss."""

    NONE = "none"
    TAKES_ALL_LOSSES = "takes_all_losses"


@dataclass(frozen=True, slots=True)
class BantingParams:
    """Every parameter of Capsa Banting / Big Two (docs/rules.md#banting-parameters); None: not
    a parameter of this version."""

    suit_order: str
    flush_order: FlushOrder
    straights_with_two: bool | None
    bomb_ends_game: bool
    double_at: int
    triple_at: int
    fee_rate: Decimal
    fee_basis: FeeBasis
    straights: Straights | None = None
    bombs: Bombs | None = None
    pass_locks: PassLock | None = None
    last_card_rule: LastCardRule | None = None
    first_lead: FirstLead | None = None
    settlement: SettlementRule | None = None
    # Version 3 of capsa-banting-id and version 2 of the other presets add these two.
    straight_flush_order: StraightFlushOrder | None = None
    last_card_penalty: LastCardPenalty | None = None

    # The rules as the engine reads them, whatever the version.
    @property
    def straight_rule(self) -> Straights:
        if self.straights is not None:
            return self.straights
        return Straights.WITH_TWO if self.straights_with_two else Straights.STANDARD

    @property
    def bomb_rule(self) -> Bombs:
        return self.bombs or Bombs.FIVE_CARD_ON_TWO

    @property
    def pass_rule(self) -> PassLock:
        return self.pass_locks or PassLock.TRICK

    @property
    def last_card(self) -> LastCardRule:
        return self.last_card_rule or LastCardRule.NONE

    @property
    def lead_rule(self) -> FirstLead:
        return self.first_lead or FirstLead.LOWEST_CARD

    @property
    def payment(self) -> SettlementRule:
        return self.settlement or SettlementRule.WINNER_COLLECTS

    @property
    def straight_flushes(self) -> StraightFlushOrder:
        return self.straight_flush_order or StraightFlushOrder.RANK_FIRST

    @property
    def penalty(self) -> LastCardPenalty:
        return self.last_card_penalty or LastCardPenalty.NONE

    @property
    def names_loser_pairs(self) -> bool:
        """Whether a pair of two losers (everyone pays everyone) is labelled `lost_less` (or
        `even`) rather than `win`: from the versions that name `last_card_penalty`; earlier
        versions keep `win`, the label their stored rounds were hashed with."""
        return self.last_card_penalty is not None


def _suit_order(v: Any) -> str:
    if not isinstance(v, str) or sorted(v) != sorted("cdhs"):
        raise _Bad('must order the four suits, weakest first, e.g. "dchs"')
    return v


SPEC: dict[str, Callable[[Any], Any]] = {
    "suit_order": _suit_order,
    "flush_order": _option(FlushOrder),
    "straights_with_two": _bool,
    "bomb_ends_game": _bool,
    "double_at": _int(0),
    "triple_at": _int(0),
    **_COMMON,
    "straights": _option(Straights),
    "bombs": _option(Bombs),
    "pass_locks": _option(PassLock),
    "last_card_rule": _option(LastCardRule),
    "first_lead": _option(FirstLead),
    "settlement": _option(SettlementRule),
    "straight_flush_order": _option(StraightFlushOrder),
    "last_card_penalty": _option(LastCardPenalty),
}


def accepts(params: BantingParams, name: str) -> bool:
    """Whether a preset version takes `name` as an override: the parameters it has, and
    `straights_with_two` everywhere (from version 2 it is read as `straights`)."""
    return name == "straights_with_two" or getattr(params, name) is not None


def finish(params: BantingParams, given: set[str], field: str, stored: bool) -> BantingParams:
    """Overrides applied: map `straights_with_two` onto `straights` where the version has it,
    and refuse contradictory values (new requests only: a stored game re-scores as it was).
    """
    errors: list[FieldError] = []
    if params.straights is not None and params.straights_with_two is not None:
        implied = Straights.WITH_TWO if params.straights_with_two else Straights.STANDARD
        if "straights" in given and params.straights != implied and not stored:
            errors += _contradiction(
                field, "straights_with_two", params.straights_with_two, "straights", params.straights,
                f"straights_with_two {str(params.straights_with_two).lower()} means straights {implied.value!r}",
            )
        straights = params.straights if "straights" in given else implied
        params = replace(params, straights=straights, straights_with_two=None)
    if not stored:
        if ({"double_at", "triple_at"} & given) and params.double_at > params.triple_at:
            errors += _contradiction(
                field, "double_at", params.double_at, "triple_at", params.triple_at,
                "a loser pays triple from triple_at cards, so double_at above it never applies; "
                "to switch doubling off, set both above 13",
            )
        # Asked for, a bomb ending the game needs bombs (the preset's or given); bombs
        # switched off where the preset ends the game on one leave that flag nothing to do.
        if "bomb_ends_game" in given and params.bombs == Bombs.NONE and params.bomb_ends_game:
            errors += _contradiction(
                field, "bombs", "none", "bomb_ends_game", True, "without bombs no bomb can end the game"
            )
        if (
            {"last_card_rule", "last_card_penalty"} & given
            and params.penalty == LastCardPenalty.TAKES_ALL_LOSSES
            and params.last_card != LastCardRule.NONE
        ):
            errors += _contradiction(
                field, "last_card_penalty", "takes_all_losses", "last_card_rule", params.last_card,
                "the last-card rule refuses the very moves the penalty charges for; set "
                "last_card_rule 'none'",
            )
    raise_collected(errors, InvalidParameter)
    return params


def _contradiction(field: str, a: str, va: Any, b: str, vb: Any, why: str) -> list[FieldError]:
    def show(v: Any) -> str:  # as the request's JSON has it
        return quoted(v.value if isinstance(v, StrEnum) else v)

    return [
        FieldError(f"{field}.{a}", f"{show(va)} contradicts {b} {show(vb)}: {why}"),
        FieldError(f"{field}.{b}", f"{show(vb)} contradicts {a} {show(va)}: {why}"),
    ]


# -- presets ------------------------------------------------------------------------------------

DEFAULT_PRESET = "capsa-banting-id"

_ID_V1 = BantingParams(
    suit_order="dchs",
    flush_order=FlushOrder.SUIT_FIRST,
    straights_with_two=False,
    bomb_ends_game=True,
    double_at=10,
    triple_at=13,
    fee_rate=Decimal("0.03"),
    fee_basis=FeeBasis.WINNINGS,
)
# Version 2: every new parameter at the value that keeps version 1's behaviour.
_ID_V2 = replace(
    _ID_V1,
    straights_with_two=None,
    straights=Straights.STANDARD,
    bombs=Bombs.FIVE_CARD_ON_TWO,
    pass_locks=PassLock.TRICK,
    last_card_rule=LastCardRule.NONE,
    first_lead=FirstLead.LOWEST_CARD,
    settlement=SettlementRule.WINNER_COLLECTS,
)
_HK = replace(_ID_V2, bombs=Bombs.NONE, bomb_ends_game=False, last_card_rule=LastCardRule.HIGHEST_SINGLE)
# Version 3 of capsa-banting-id (version 2 of the others): straight_flush_order and
# last_card_penalty at the values that keep the earlier version's play, and a pair of two
# losers under everyone pays everyone labelled `lost_less` (`BantingParams.names_loser_pairs`).
def _v3(
    params: BantingParams,
    straight_flush_order: StraightFlushOrder = StraightFlushOrder.RANK_FIRST,
    last_card_penalty: LastCardPenalty = LastCardPenalty.NONE,
    last_card_rule: LastCardRule | None = None,
) -> BantingParams:
    return replace(
        params,
        straight_flush_order=straight_flush_order,
        last_card_penalty=last_card_penalty,
        last_card_rule=last_card_rule or params.last_card_rule,
    )


_PUSOY = replace(_ID_V2, suit_order="cshd", straights=Straights.CONSECUTIVE, bombs=Bombs.NONE, bomb_ends_game=False)
_TW = replace(_ID_V2, suit_order="cdhs", bomb_ends_game=False, pass_locks=PassLock.TURN)
_YAWNOC = replace(_HK, settlement=SettlementRule.EVERYONE_PAYS_EVERYONE, fee_rate=Decimal("0"))
_ID_TEXT = (
    "Capsa Banting (Big Two) as played in Indonesian rooms: 3d leads, bombs end the game, "
    "losers pay per card left (x2 from 10, x3 at 13), 3% table fee on winnings"
)
_PUSOY_TEXT = (
    "Pusoy Dos (Filipino Big Two): suits C < S < H < D so 3c leads, any five consecutive ranks "
    "are a straight (J-Q-K-A-2 the highest), flushes by suit first, no bombs"
)
_HK_TEXT = (
    "Hong Kong Big Two: suits D < C < H < S, no bombs, and when the next player holds one card "
    "a single must be the player's highest"
)
_TW_TEXT = (
    "Taiwanese Big Two: suits C < D < H < S so 3c leads, a pass skips one turn only, a four "
    "of a kind beats a single 2 without ending the game"
)
_YAWNOC_TEXT = (
    "Big Two scored as yawnoc/big-two-scorer does: every player pays its cards left (x2 from "
    "10, x3 at 13) to every other player, zero-sum, no table fee; Hong Kong play"
)

# (name, version) -> (parameters, one-line description); `rules.PRESETS` makes them rule sets.
SHIPPED_PRESETS: dict[tuple[str, int], tuple[BantingParams, str]] = {
    ("capsa-banting-id", 1): (_ID_V1, _ID_TEXT + "."),
    ("capsa-banting-id", 2): (_ID_V2, _ID_TEXT + " (version 2: every variant named)."),
    ("capsa-banting-id", 3): (
        _v3(_ID_V2),
        _ID_TEXT + " (version 3: straight flush order and the last-card penalty named).",
    ),
    ("pusoy-dos", 1): (_PUSOY, _PUSOY_TEXT + "."),
    ("pusoy-dos", 2): (
        _v3(_PUSOY, straight_flush_order=StraightFlushOrder.SUIT_FIRST),
        _PUSOY_TEXT + ", straight flushes by suit first too (version 2).",
    ),
    ("big-two-hk", 1): (_HK, _HK_TEXT + "."),
    ("big-two-hk", 2): (_v3(_HK), _HK_TEXT + " (version 2: every variant named)."),
    ("big-two-tw", 1): (_TW, _TW_TEXT + "."),
    ("big-two-tw", 2): (_v3(_TW), _TW_TEXT + " (version 2: every variant named)."),
    ("big-two-yawnoc", 1): (_YAWNOC, _YAWNOC_TEXT + "."),
    ("big-two-yawnoc", 2): (
        _v3(_YAWNOC, last_card_penalty=LastCardPenalty.TAKES_ALL_LOSSES, last_card_rule=LastCardRule.NONE),
        _YAWNOC_TEXT + "; a player who lets the next one go out on its last card, though it "
        "could have stopped it, takes on all losses (version 2).",
    ),
}

# Where each preset and each parameter comes from; `GET /v1/rules` lists them.
PRESET_SOURCES: dict[str, str] = {
    "capsa-banting-id": "seed 002 (Indonesian Capsa Banting); docs/rules.md#decisions",
    "pusoy-dos": "astralking-infinity/pusoy_dos (pusoy_dos.py, test_pusoy_dos.py)",
    "big-two-hk": "michaelelalam-glitch/Big-Two-Neo (one-card-left rule); Hong Kong suit order",
    "big-two-tw": "Taiwanese 大老二 rules (eagleplayingcard.com Big Two; clubs lowest)",
    "big-two-yawnoc": "yawnoc/big-two-scorer (big2.py, test_big2.py, README.md)",
}
PARAMETER_SOURCES: dict[str, str] = {
    "suit_order": "Decision (Indonesian rooms); pusoy-dos: astralking-infinity/pusoy_dos",
    "flush_order": "seed 002; Decision",
    "straights_with_two": "Decision (version 1 only; read as straights from version 2)",
    "bomb_ends_game": "seed 002",
    "double_at": "Decision (common count); yawnoc/big-two-scorer's fry threshold",
    "triple_at": "Decision (common count); yawnoc/big-two-scorer's triple fry at 13",
    "fee_rate": "Decision (as Susun)",
    "fee_basis": "Decision (as Susun)",
    "straights": "jmanchuck/bigtwo-rl, astralking-infinity/pusoy_dos (consecutive)",
    "bombs": "seed 002 (five_card_on_two); AdoryVo/big-two (bare_quads)",
    "pass_locks": "seed 002 (trick); jmanchuck/bigtwo-rl, AdoryVo/big-two (turn)",
    "last_card_rule": "michaelelalam-glitch/Big-Two-Neo; Hong Kong tables",
    "first_lead": "Decision (lowest_card); michaelelalam-glitch/Big-Two-Neo matches (previous_winner)",
    "settlement": "Decision (winner_collects); yawnoc/big-two-scorer (everyone_pays_everyone)",
    "straight_flush_order": "Decision (rank_first); astralking-infinity/pusoy_dos is_higher (suit_first)",
    "last_card_penalty": "Decision (none); yawnoc/big-two-scorer README 'Taking on all losses' (takes_all_losses)",
}
