"""The round view page over HTTP: security headers, money as the currency is written, the void's
reversal, Big Two outcomes per side, and view-link secret rotation."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from babel.numbers import format_currency
from conftest import make_app
from httpkit import four_player_round, two_player_round

from service.api.blueprints import CONTENT_SECURITY_POLICY, round_pages
from service.services import view_links as viewlinks

EXPECTED_CSP = {
    "default-src": ["'none'"],
    "style-src": ["'self'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
    "frame-ancestors": ["'none'"],
}


def stored(http: Any, tenant: Any, body: dict[str, Any]) -> dict[str, Any]:
    answer = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return dict(answer.get_json())


def view_url(http: Any, tenant: Any, round_id: str) -> str:
    answer = http.post(f"/v1/rounds/{round_id}/view-link", headers=tenant.read_headers)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return str(answer.get_json()["url"])


def csp(response: Any) -> dict[str, list[str]]:
    policy = response.headers["Content-Security-Policy"]
    return {d.split()[0]: d.split()[1:] for d in (p.strip() for p in policy.split(";")) if d}


def assert_secured(response: Any) -> None:
    assert csp(response) == EXPECTED_CSP
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"


# -- security headers ------------------------------------------------------------------------------


def test_the_page_its_404s_and_its_stylesheet_carry_the_security_headers(http, tenant):
    doc = stored(http, tenant, four_player_round())
    url = view_url(http, tenant, doc["id"])
    page = http.get(url)
    assert page.status_code == 200
    assert_secured(page)
    assert page.headers["Cache-Control"] == "private, no-store"
    html = page.get_data(as_text=True)
    # Nothing the policy would block: no script, no inline style; one stylesheet of our own.
    assert "<script" not in html and "<style" not in html and " style=" not in html
    sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)">', html)
    assert sheets == ["/view/static/round.css"]
    sheet = http.get(sheets[0])
    assert sheet.status_code == 200 and sheet.mimetype == "text/css"
    assert_secured(sheet)
    assert ".money" in sheet.get_data(as_text=True)
    sheet.close()
    for missing in (url + "x", "/view/rounds/nonsense", "/view/static/nothing.css", "/view/elsewhere"):
        answer = http.get(missing)
        assert answer.status_code == 404, missing
        assert_secured(answer)
    not_found = http.get(url + "x")
    assert not_found.mimetype == "text/html" and "<style" not in not_found.get_data(as_text=True)
    assert not_found.headers["Cache-Control"] == "private, no-store"
    # A doubled slash is redirected to the page: the token is in Location, and a 308 is
    # cacheable by default, so it must say no-store too.
    moved = http.get(url.replace("/view/rounds/", "/view//rounds/"))
    assert moved.status_code == 308 and moved.headers["Location"].endswith(url)
    assert moved.headers["Cache-Control"] == "private, no-store"
    assert_secured(moved)


def test_the_api_gets_no_page_policy_and_the_docs_their_own(http, tenant):
    assert "Content-Security-Policy" not in http.get("/v1/rules", headers=tenant.headers).headers
    docs = http.get("/docs").headers["Content-Security-Policy"]
    assert "'nonce-" in docs and docs != CONTENT_SECURITY_POLICY  # test_api_service.py


# -- what the page says ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("currency", "amount", "shown"),
    [
        ("IDR", "-49000", "-Rp49.000"),
        ("IDR", "1860", "Rp1.860"),
        ("USD", "1234.50", "$1,234.50"),
        ("USD", "-3.40", "-$3.40"),
        ("JPY", "1000", "￥1,000"),
        ("EUR", "1234.50", "1.234,50\xa0€"),
        ("BRL", "10.00", "R$10.00"),  # not in the table: en_US
    ],
)
def test_money_is_formatted_by_babel_in_the_currencys_locale(currency, amount, shown):
    assert round_pages.money(amount, currency) == shown
    locale = round_pages.CURRENCY_LOCALES.get(currency, "en_US")
    assert shown == format_currency(Decimal(amount), currency, locale=locale)


def test_every_amount_on_the_page_is_babels_and_labels_sit_over_their_values(http, tenant):
    doc = stored(http, tenant, four_player_round(currency="USD", stake="2.50"))
    html = http.get(view_url(http, tenant, doc["id"])).get_data(as_text=True)
    amounts = re.findall(r'data-amount="([^"]*)">([^<]*)<', html)
    assert len(amounts) > 20
    for amount, text in amounts:
        assert text == format_currency(Decimal(amount), "USD", locale="en_US")
    for player in doc["players"]:
        article = html.split(f'id="player-{player["id"]}"')[1].split("</article>")[0]
        for field in ("result", "winnings", "fee", "net"):
            shown = format_currency(Decimal(player[field]), "USD", locale="en_US")
            # the label and its value are one box: <div class="m"><span class="k">net</span><span ...>
            assert re.search(
                rf'<div class="m"><span class="k">{field}</span><span class="v num "'
                rf' data-field="{field}" data-amount="{re.escape(player[field])}">{re.escape(shown)}</span></div>',
                article,
            ), (player["id"], field)


def test_a_voided_round_lists_every_line_and_its_negated_reversal(http, tenant):
    doc = stored(http, tenant, two_player_round())
    http.post(f"/v1/rounds/{doc['id']}/void", json={"reason": "misdeal"}, headers=tenant.headers)
    html = http.get(view_url(http, tenant, doc["id"])).get_data(as_text=True)
    assert 'id="reversal"' in html and "misdeal" in html and "Every ledger line of this round was reversed" in html
    rows = re.findall(
        r'<tr><td>([^<]+)</td><td>([^<]+)</td><td class="num"><span [^>]*data-amount="([^"]+)">[^<]*</span></td>'
        r'<td class="num"><span [^>]*data-amount="([^"]+)">',
        html,
    )
    assert [(a, k, b, r) for a, k, b, r in rows] == [
        ("a", "settlement", "11000", "-11000"),
        ("a", "fee", "-330", "330"),
        ("b", "settlement", "-11000", "11000"),
        ("house", "fee", "330", "-330"),
    ]
    assert html.count("reversed by the void") == 2


def test_a_settled_round_has_no_reversal_panel(http, tenant):
    doc = stored(http, tenant, two_player_round())
    html = http.get(view_url(http, tenant, doc["id"])).get_data(as_text=True)
    assert 'id="reversal"' not in html and "reversed by the void" not in html


@pytest.mark.parametrize(
    ("outcome", "points", "label"),
    [
        ("win", 24, "won"), ("win", -24, "lost"),
        ("bomb", 24, "won (bomb)"), ("bomb", -24, "lost (bombed)"), ("bomb", 0, "bomb (not owed)"),
        ("tembus", 18, "won (tembus)"), ("tembus", -18, "lost (tembus)"),
        ("normal", -1, "lost"), ("tie", 0, "even"), ("foul", -24, "lost (foul)"),
    ],
)
def test_each_side_of_a_pair_reads_its_own_outcome(outcome, points, label):
    assert round_pages.side_label(outcome, points) == label


def test_a_big_two_matrix_never_says_win_on_a_losers_side():
    doc = {
        "players": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
        "pairs": [
            {"players": ["b", "a"], "outcome": "win", "points": 24, "amount": "24000"},
            {"players": ["b", "c"], "outcome": "win", "points": 5, "amount": "5000"},
        ],
    }
    rows = {row["id"]: row["cells"] for row in round_pages._matrix(doc)}
    assert [c.get("label") for c in rows["b"]] == ["won", None, "won"]
    assert [c.get("label") for c in rows["a"]] == [None, "lost", None]
    assert rows["a"][1]["amount"] == "-24000" and rows["a"][2] == {"none": True}


# -- secret rotation -----------------------------------------------------------------------------


@pytest.fixture
def apps(db_url):
    made: list[Any] = []

    def app_with(**config: str) -> Any:
        made.append(make_app(db_url, **config))
        return made[-1].test_client()

    yield app_with
    for app in made:
        app.extensions["capsa"].db.dispose()


def test_a_link_made_before_a_rotation_still_opens_and_new_links_use_the_new_secret(http, tenant, apps):
    doc = stored(http, tenant, two_player_round())
    before = apps(VIEW_LINK_SECRET="secret-2025")
    old_link = view_url(before, tenant, doc["id"])
    assert before.get(old_link).status_code == 200

    rotated = apps(VIEW_LINK_SECRET="secret-2026", VIEW_LINK_PREVIOUS_SECRET="secret-2025")
    assert rotated.get(old_link).status_code == 200
    new_link = view_url(rotated, tenant, doc["id"])
    assert new_link != old_link
    # signed with the new secret: it opens where only the new one is known, not with the old
    assert apps(VIEW_LINK_SECRET="secret-2026").get(new_link).status_code == 200
    assert before.get(new_link).status_code == 404
    # once the previous secret is dropped, the old link is gone
    assert apps(VIEW_LINK_SECRET="secret-2026").get(old_link).status_code == 404


def test_a_link_of_an_unrelated_secret_does_not_open_after_a_rotation(http, tenant, apps):
    doc = stored(http, tenant, two_player_round())
    foreign = view_url(apps(VIEW_LINK_SECRET="another-deployment"), tenant, doc["id"])
    rotated = apps(VIEW_LINK_SECRET="secret-2026", VIEW_LINK_PREVIOUS_SECRET="secret-2024, secret-2025")
    answer = rotated.get(foreign)
    assert answer.status_code == 404 and "Round not found" in answer.get_data(as_text=True)


def test_several_previous_secrets_separated_by_commas_are_all_accepted(http, tenant, apps):
    doc = stored(http, tenant, two_player_round())
    links = [view_url(apps(VIEW_LINK_SECRET=s), tenant, doc["id"]) for s in ("s-2024", "s-2025")]
    rotated = apps(VIEW_LINK_SECRET="s-2026", VIEW_LINK_PREVIOUS_SECRET=" s-2024 ,s-2025,")
    assert [rotated.get(link).status_code for link in links] == [200, 200]


def test_the_secrets_are_read_from_the_environment_too(http, tenant, apps, monkeypatch):
    doc = stored(http, tenant, two_player_round())
    old_link = view_url(apps(VIEW_LINK_SECRET="env-old"), tenant, doc["id"])
    monkeypatch.setenv("VIEW_LINK_SECRET", "env-new")
    monkeypatch.setenv("VIEW_LINK_PREVIOUS_SECRET", "env-old")
    rotated = apps()
    assert rotated.get(old_link).status_code == 200
    assert apps(VIEW_LINK_SECRET="env-new").get(view_url(rotated, tenant, doc["id"])).status_code == 200


def test_previous_secrets_parse_a_comma_separated_list():
    assert viewlinks.previous_secrets(" a, b ,,c ") == ["a", "b", "c"]
    assert viewlinks.previous_secrets(None) == viewlinks.previous_secrets("") == []


def test_the_request_log_names_a_round_page_without_its_token(http, tenant):
    """A view link opens the page without a key: a log reader must not get one."""
    import logging

    import structlog
    from structlog.testing import capture_logs

    round_id = stored(http, tenant, two_player_round())["id"]
    url = view_url(http, tenant, round_id)
    token = url.rsplit("/", 1)[1]
    wrapper = structlog.get_config()["wrapper_class"]
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))
    try:
        with capture_logs() as logs:
            assert http.get(url).status_code == 200
            assert http.get("/view/rounds/not-a-token").status_code == 404
            # a doubled slash is redirected to the page (its token in Location, not in the log)
            assert http.get(f"/view//rounds/{token}").status_code == 308
            # spellings the router does not take, as nginx's log folds them too: the same token
            for path in (f"/VIEW/Rounds/{token}", f"/view/./rounds/{token}", f"/x/../view/rounds/{token}",
                         f"/%56iew/rounds/{token}"):
                assert http.get(path).status_code == 404
    finally:
        structlog.configure(wrapper_class=wrapper)
    entries = [e for e in logs if e["event"] == "request"]
    assert [(e["path"], e["status"]) for e in entries] == [
        ("/view/rounds/-", 200), ("/view/rounds/-", 404), ("/view/rounds/-", 308)] + [("/view/rounds/-", 404)] * 4
    assert token not in repr(logs)


@pytest.mark.parametrize("settlement", ["winner_collects", "everyone_pays_everyone"])
def test_a_big_two_page_names_the_player_who_went_out_wherever_they_sit(http, tenant, settlement):
    """b goes out in THREE_SCRIPT; seated third (c, a, b: the same turn order), the first
    pair under everyone pays everyone is (a, c), two losers, and the page named a."""
    from banting_scripts import THREE, THREE_SCRIPT
    from test_api_banting import move_body

    body = {"currency": "IDR", "stake": "1000", "players": [{"id": p, "hand": THREE[p].split()} for p in "cab"],
            "rules": {"preset": "capsa-banting-id", "params": {"settlement": settlement}}}
    game = http.post("/v1/banting/games", json=body, headers=tenant.headers).get_json()
    for line in THREE_SCRIPT:
        answer = http.post(f"/v1/banting/games/{game['id']}/moves", json=move_body(line), headers=tenant.headers)
        assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["winner"] == "b"
    page = http.get(view_url(http, tenant, answer.get_json()["round"])).get_data(as_text=True)
    assert '<h2>Winner: <strong data-player="b">b</strong></h2>' in page
    assert re.findall(r'class="player is-winner[^"]*" id="player-(\w+)"', page) == ["b"]
    says = {"winner_collects": "every other player pays for the cards left",
            "everyone_pays_everyone": "every player pays each player who lost less the difference"}
    assert says[settlement] in page
