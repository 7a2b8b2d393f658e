"""A round request end to end (docs/rules.md#money, docs/api.md#rounds): money, stakes, errors."""

from decimal import Decimal

import pytest

from service.domain.cards import ACCEPTED
from service.domain.errors import CapsaError, InvalidCard, UnknownRules
from service.domain.money import settle
from service.domain.susun.round import score_round_request

# Four hands of distinct cards (52 in all).
S = ("Kc Qd 9h", "Jc Jh 6c 8d Th", "Ts Jd Qh Ks Ad")  # K-high, pair J, A-high straight
W = ("2c 3d 5h", "3c 3h 6h 8s Tc", "5c 6d 7h 8c 9c")  # 5-high, pair 3, 9-high straight
X = ("Ac Ah 2d", "7c 7d 7s Kd Kh", "4c 4d 4h 4s 2h")  # pair A, full house (3), quads (7)
Y = ("Qc Qs Td", "9d 9s 5d 5s 8h", "2s 3s 6s Js As")  # pair Q, two pair, flush
HANDS = {"S": S, "W": W, "X": X, "Y": Y}


def player(pid, rows=None, **extra):
    rows = rows or HANDS[pid]
    doc = {"id": pid, "arrangement": dict(zip(("front", "middle", "back"), (r.split() for r in rows)))}
    doc.update(extra)
    return doc


def make_round(*ids, rules="capsa-susun-id", currency="IDR", stake="1000", **extra):
    body = {"rules": rules, "currency": currency, "stake": stake, "players": [player(i) for i in ids]}
    body.update(extra)
    return score_round_request(body).document


def money(doc):
    return {p["id"]: (p["points"], p["result"], p["winnings"], p["fee"], p["net"]) for p in doc["players"]}


def test_the_api_example_a_sweeps_b_with_three_of_a_kind_in_front():
    a = ("7c 7d 7h", "8c 9d Th Js Qc", "2s 4s 6s 9s Ks")
    b = ("2h 4d 5c", "3c 3h 6d 8s Td", "4c 5h 6c 7s 8d")
    doc = score_round_request({
        "rules": "capsa-susun-id", "currency": "IDR", "stake": "1000",
        "players": [player("a", a), player("b", b)],
    }).document
    # 3 rows x 2 (tembus) + 5 (trips in front) = 11; fee 3% of 11000 = 330
    assert doc["pairs"] == [{
        "players": ["a", "b"], "stake": "1000", "rows": {"front": 1, "middle": 1, "back": 1},
        "bonus": {"a": 5, "b": 0}, "outcome": "tembus", "multiplier": 2, "points": 11,
        "amount": "11000"}]
    assert money(doc) == {"a": (11, "11000", "11000", "330", "10670"),
                          "b": (-11, "-11000", "0", "0", "-11000")}
    assert doc["house_fee"] == "330"


def test_the_seed_000_money_check_of_rules_3_7():
    # back rows only: i +3, ii +1, iii -1, iv -3 at Rp 1,000; winnings 3000/2000/1000/0
    pairs = [(0, 1, 1000), (0, 2, 1000), (0, 3, 1000), (1, 2, 1000), (1, 3, 1000), (2, 3, 1000)]
    s = settle(4, pairs, Decimal("0.03"), "winnings")
    assert [(p.result, p.winnings, p.fee) for p in s.players] == [
        (3000, 3000, 90), (1000, 2000, 60), (-1000, 1000, 30), (-3000, 0, 0)]
    assert s.house_fee == 180


def test_three_players_fee_on_winnings_charges_a_loser_who_beat_someone():
    # S sweeps W: 6. X sweeps S and W: 6 + 10 bonus = 16 each (no super at 3 players).
    # S: 6 - 16 = -10, winnings 6000, fee 180; W: -22; X: +32, fee 960. House 1140.
    doc = make_round("S", "W", "X")
    assert money(doc) == {
        "S": (-10, "-10000", "6000", "180", "-10180"),
        "W": (-22, "-22000", "0", "0", "-22000"),
        "X": (32, "32000", "32000", "960", "31040"),
    }
    assert doc["house_fee"] == "1140"


def test_fee_on_result_charges_only_a_positive_result():
    doc = make_round("S", "W", "X", rules={"preset": "capsa-susun-id", "params": {"fee_basis": "result"}})
    assert {k: v[3] for k, v in money(doc).items()} == {"S": "0", "W": "0", "X": "960"}
    assert doc["house_fee"] == "960"


def test_super_in_a_four_player_round():
    # X sweeps everyone: 3 x 4 + 10 = 22 each, 66 in all. S-W 6, Y sweeps S and W: 6 each.
    doc = make_round("X", "S", "W", "Y")
    assert {p["id"]: p["points"] for p in doc["players"]} == {"X": 66, "S": -22, "W": -34, "Y": -10}
    assert [p["outcome"] for p in doc["pairs"][:3]] == ["super"] * 3
    assert [p["multiplier"] for p in doc["pairs"][:3]] == [4] * 3


def test_a_pair_may_play_its_own_stake():
    # S-X at 5000 a point: -16 x 5000 = -80000; the other pairs at 1000.
    doc = make_round("S", "W", "X", pair_stakes=[{"players": ["X", "S"], "stake": "5000"}])
    assert [(p["players"], p["stake"], p["amount"]) for p in doc["pairs"]] == [
        (["S", "W"], "1000", "6000"), (["S", "X"], "5000", "-80000"), (["W", "X"], "1000", "-16000")]
    assert money(doc)["S"] == (-10, "-74000", "6000", "180", "-74180")
    assert money(doc)["X"] == (32, "96000", "96000", "2880", "93120")
    assert doc["house_fee"] == "3060"


@pytest.mark.parametrize(
    "currency, stake, amount, fee, net",
    [
        ("IDR", "25", "150", "5", "145"),  # 150 x 0.03 = 4.5 -> 5 (half up)
        ("JPY", "25", "150", "5", "145"),
        ("USD", "0.25", "1.50", "0.05", "1.45"),  # 150 cents x 0.03 = 4.5 -> 5 cents
        ("USD", "0.10", "0.60", "0.02", "0.58"),  # 60 x 0.03 = 1.8 -> 2 cents
        ("IDR", "1000.00", "6000", "180", "5820"),  # "1000.00" accepted, echoed "1000"
    ],
)
def test_fees_round_half_up_to_the_minor_unit(currency, stake, amount, fee, net):
    doc = make_round("S", "W", currency=currency, stake=stake)  # S sweeps W: 6 points
    s = money(doc)["S"]
    assert (s[1], s[3], s[4]) == (amount, fee, net)
    assert doc["stake"] == ("1000" if stake == "1000.00" else stake)


@pytest.mark.parametrize(
    "currency, stake, message",
    [
        ("IDR", "0.5", "finer than the minor unit"),
        ("USD", "0.001", "finer than the minor unit"),
        ("JPY", "1.5", "finer than the minor unit"),
        ("IDR", "0", "must be positive"),
        ("IDR", "-5", "not a plain positive decimal"),
        ("IDR", "1e3", "not a plain positive decimal"),
        ("IDR", 1000, "not the JSON value 1000"),
        ("IDR", "1" + "0" * 300, "not a plain positive decimal"),
        ("IDR", "1" + "0" * 16, "above the limit"),
    ],
)
def test_bad_stakes_are_refused_naming_the_value(currency, stake, message):
    with pytest.raises(CapsaError, match=message) as exc:
        make_round("S", "W", currency=currency, stake=stake)
    assert exc.value.problem == "validation"
    assert exc.value.errors[0].field == "stake"


def test_an_unknown_currency_is_refused():
    with pytest.raises(CapsaError, match="unknown currency 'XYZ'"):
        make_round("S", "W", currency="XYZ")


def test_a_card_held_by_two_players_is_an_error_at_its_position():
    body = {"currency": "IDR", "stake": "1000",
            "players": [player("a", S), player("b", ("Kc 3d 5h", W[1], W[2]))]}
    with pytest.raises(InvalidCard) as exc:
        score_round_request(body)
    assert [(e.field, e.message) for e in exc.value.errors] == [
        ("players[1].arrangement.front[0]", "'Kc' is also held by players[0]")]


def test_rows_must_use_exactly_the_dealt_hand():
    hand_w = " ".join(W).split()
    body = {"currency": "IDR", "stake": "1000",
            "players": [player("a", S), player("b", W, hand=hand_w[:12] + ["2s"])]}
    with pytest.raises(InvalidCard) as exc:
        score_round_request(body)
    assert [(e.field, e.message) for e in exc.value.errors] == [(  # the row and the card
        "players[1].arrangement.back[4]", "'9c' is not in the dealt hand (unused: ['2s'])")]


def test_wrong_counts_and_bad_cards_are_reported_with_paths():
    body = {"currency": "IDR", "stake": "1000",
            "players": [player("a", ("Kc Qd", S[1], S[2])), player("b", ("2c 3d Xx", W[1], W[2]))]}
    with pytest.raises(InvalidCard) as exc:
        score_round_request(body)
    assert {(e.field, e.message) for e in exc.value.errors} == {
        ("players[0].arrangement.front", "the front needs 3 cards, got 2"),
        ("players[1].arrangement.front[2]", "unknown card 'Xx': " + ACCEPTED),
    }


@pytest.mark.parametrize("n", [0, 1, 5])
def test_a_round_has_two_to_four_players(n):
    body = {"currency": "IDR", "stake": "1000", "players": [player(p) for p in "SWXY"] + [player("S")]}
    body["players"] = body["players"][:n]
    with pytest.raises(CapsaError, match="2 to 4 players"):
        score_round_request(body)


def test_player_ids_are_unique_identifiers():
    body = {"currency": "IDR", "stake": "1000", "players": [player("S"), player("W")]}
    body["players"][1]["id"] = "S"
    with pytest.raises(CapsaError, match="is also players\\[0\\]"):
        score_round_request(body)
    body["players"][1]["id"] = "no spaces"
    with pytest.raises(CapsaError, match="not an identifier"):
        score_round_request(body)


def test_surrender_is_refused_where_the_rules_do_not_allow_it():
    body = {"currency": "IDR", "stake": "1000", "players": [player("S"), {"id": "W", "surrender": True}]}
    with pytest.raises(CapsaError) as exc:
        score_round_request(body)
    assert exc.value.errors[0].field == "players[1].surrender"
    body["rules"] = "chinese-poker-2-4"
    doc = score_round_request(body).document
    assert doc["players"][1]["surrender"] is True and doc["players"][1]["rows"] is None
    assert doc["pairs"][0]["points"] == 3 and doc["pairs"][0]["outcome"] == "surrender"


def test_unknown_rules_name_the_field():
    with pytest.raises(UnknownRules) as exc:
        make_round("S", "W", rules={"preset": "capsa-susun-id", "params": {"tembus": 3}})
    assert exc.value.errors[0].field == "rules.params.tembus"
    with pytest.raises(UnknownRules):
        make_round("S", "W", rules="capsa-banting-id")


def test_the_document_echoes_every_parameter_of_the_resolved_rules():
    doc = make_round("S", "W", rules={"preset": "chinese-poker-1-6", "params": {"fee_rate": "0.05"}})
    assert doc["rules"]["preset"] == "chinese-poker-1-6" and doc["rules"]["version"] == 3
    assert doc["rules"]["params"]["fee_rate"] == "0.05"
    assert len(doc["rules"]["params"]) == 24  # every parameter of the latest version


# -- the round a server-run game settles into ------------------------------------------------


def _game_round(**player_extra):
    hands = {pid: [c for row in HANDS[pid] for c in row.split()] for pid in ("S", "W")}
    return {
        "rules": "capsa-susun-id", "currency": "IDR", "stake": "1000", "game_id": "sg_1",
        "players": [player(pid, hand=hands[pid], auto_arranged=pid == "W", **player_extra) for pid in ("S", "W")],
    }


def test_a_game_round_carries_its_game_and_who_was_auto_arranged_and_scores_as_a_round():
    body = _game_round()
    scored = score_round_request(body, game_round=True)
    assert scored.document["game_id"] == scored.request["game_id"] == "sg_1"
    assert [p["auto_arranged"] for p in scored.document["players"]] == [False, True]
    assert [p["auto_arranged"] for p in scored.request["players"]] == [False, True]
    # S sweeps W: 3 x 2 = 6, the same points as the plain round body
    plain = make_round("S", "W")
    assert [p["points"] for p in scored.document["players"]] == [p["points"] for p in plain["players"]] == [6, -6]
    assert score_round_request(scored.request, game_round=True).document == scored.document


@pytest.mark.parametrize(("change", "fields"), [
    (lambda b: b.pop("game_id"), {"game_id"}),
    (lambda b: b["players"][0].pop("auto_arranged"), {"players[0].auto_arranged"}),
    (lambda b: b["players"][1].pop("hand"), {"players[1].hand"}),
    (lambda b: b["players"][1].update(auto_arranged="yes"), {"players[1].auto_arranged"}),
    (lambda b: b["players"][1].update(arrangement=None, surrender=True), {"players[1].auto_arranged"}),
])
def test_a_game_round_needs_its_game_a_hand_and_auto_arranged_for_every_player(change, fields):
    body = _game_round()
    change(body)
    with pytest.raises(CapsaError) as refused:
        score_round_request(body, game_round=True)
    assert {e.field for e in refused.value.errors} >= fields


def test_a_plain_round_body_refuses_the_game_fields():
    with pytest.raises(CapsaError) as refused:
        score_round_request(_game_round())
    assert {e.field for e in refused.value.errors} == {
        "game_id", "players[0].auto_arranged", "players[1].auto_arranged"}



def test_a_version_1_document_echoes_exactly_the_19_parameters_of_version_1():
    rules = {"preset": "chinese-poker-1-6", "version": 1, "params": {"fee_rate": "0.05"}}
    doc = make_round("S", "W", rules=rules)
    assert doc["rules"]["version"] == 1 and len(doc["rules"]["params"]) == 19
    assert "row_points" not in doc["rules"]["params"]


# -- the 10^18 bound, on each amount a round stores -------------------------------------------

from service.domain.errors import InvalidMoney  # noqa: E402
from service.domain.money import MAX_AMOUNT, PlayerMoney, Settlement, check_amounts  # noqa: E402

_AMOUNT_FIELDS = ("a pair amount", "a result", "winnings", "a fee", "a net", "the house fee")


def _with_amount(what, amount):
    """A settlement that is zero everywhere but `what`."""
    pairs = [("a", "b", amount if what == "a pair amount" else 0)]
    values = {name: amount if name == what else 0 for name in _AMOUNT_FIELDS}
    player_a = PlayerMoney(values["a result"], values["winnings"], values["a fee"], values["a net"])
    return pairs, Settlement((PlayerMoney(0, 0, 0, 0), player_a), values["the house fee"])


@pytest.mark.parametrize("what", _AMOUNT_FIELDS)
@pytest.mark.parametrize("sign", [1, -1])
def test_each_amount_may_reach_10_18_minor_units_and_not_one_more(what, sign):
    check_amounts(*_with_amount(what, sign * MAX_AMOUNT))  # at the bound: stored
    with pytest.raises(InvalidMoney) as caught:
        check_amounts(*_with_amount(what, sign * (MAX_AMOUNT + 1)))
    message = (f"{what} of this round would be {sign * (MAX_AMOUNT + 1)} minor units, beyond the "
               "limit of 10^18: lower the stake")
    assert [(e.field, e.message) for e in caught.value.errors] == [("stake", message)]


# -- stakes, fees and winnings at one minor unit ----------------------------------------------

from service.domain.errors import FieldError  # noqa: E402
from service.domain.money import NOT_A_STRING, fee_of, format_money, minor_units, parse_stake  # noqa: E402


@pytest.mark.parametrize("value", [1000, 10.5, None, True, ["1000"]])
def test_a_stake_that_is_not_a_string_is_refused_naming_the_value(value):
    with pytest.raises(InvalidMoney) as caught:
        parse_stake(value, "IDR", "players[1].stake")
    assert caught.value.errors == [FieldError("players[1].stake", NOT_A_STRING.format(value=value))]
    assert caught.value.message == NOT_A_STRING.format(value=value)


def test_the_smallest_stake_is_one_minor_unit():
    assert (parse_stake("1", "IDR", "stake"), parse_stake("0.01", "USD", "stake")) == (1, 1)
    with pytest.raises(InvalidMoney):
        parse_stake("0.00", "USD", "stake")


@pytest.mark.parametrize(
    "basis, rate, fee",
    [
        (0, "0.5", 0), (-100, "0.5", 0),  # nothing on a basis <= 0, whatever the rate
        (1, "0.5", 1), (1, "0.49", 0),  # half-up at the minor unit
        (17, "0.03", 1), (16, "0.03", 0), (11000, "0.03", 330), (250, "0.05", 13),
        (3, "0.5", 2),  # 1.5 -> 2
    ],
)
def test_a_fee_rounds_half_up_to_the_minor_unit(basis, rate, fee):
    assert fee_of(basis, Decimal(rate)) == fee


def test_every_currency_is_formatted_with_its_own_minor_digits():
    assert [format_money(-12345, c) for c in ("IDR", "USD", "JPY", "KWD", "EUR")] == [
        "-12345", "-123.45", "-12345", "-12.345", "-123.45"]


def test_a_documents_money_string_is_read_back_as_minor_units_and_nothing_else_is():
    assert [minor_units(t) for t in ("-12.50", "1000", "0.05", "-11000", "12.345")] == [-1250, 1000, 5, -11000, 12345]
    for text in ("1.2.3", "1..2", "abc"):  # an export's line that is not money is refused
        with pytest.raises(ValueError):
            minor_units(text)


def test_winnings_count_each_pair_won_even_by_one_minor_unit():
    # seats 0, 1, 2: 0 beats 1 by 1, ties 2 (0), 2 beats 1 by 5
    s = settle(3, [(0, 1, 1), (0, 2, 0), (1, 2, -5)], Decimal("0.5"), "winnings")
    assert [(p.result, p.winnings, p.fee, p.net) for p in s.players] == [
        (1, 1, 1, 0), (-6, 0, 0, -6), (5, 5, 3, 2)]  # 0.5 x 1 = 0.5 -> 1; 2.5 -> 3
    assert s.house_fee == 4
