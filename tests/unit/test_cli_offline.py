"""`capsa score` and `capsa evaluate` on files: the tables, the documents (--json), and field
errors on bad input."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "service/examples/round-4p-capsa-susun-id.json")
ARRANGEMENT = str(ROOT / "service/examples/arrangement.json")
CAPSA = str(Path(sys.executable).with_name("capsa"))


def readme_block(command: str) -> str:
    """The output the README shows under `$ <command>` in a ```text block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split(f"$ {command}\n", 1)[1].split("```", 1)[0]


def test_capsa_score_prints_the_readme_table_of_the_shipped_example(capsys):
    assert main(["score", EXAMPLE]) == 0
    out = capsys.readouterr().out
    assert out == readme_block("capsa score service/examples/round-4p-capsa-susun-id.json")
    lines = out.splitlines()
    assert lines[0].split() == ["player", "points", "result", "winnings", "fee", "net"]
    assert lines[2].split() == ["b", "-1", "-1000", "12000", "360", "-1360"]
    assert lines[-1] == "house fee 1860 IDR; sum of result = 0; sum of net + house fee = 0"
    # numbers are right-aligned under their headers
    header = lines[0]
    for line in lines[1:5]:
        for column in ("points", "result", "winnings", "fee", "net"):
            end = header.index(column) + len(column)
            assert line[end - 1] != " " and (end == len(line) or line[end] == " "), (line, column)


def test_capsa_score_json_prints_the_score_document_of_the_shipped_example(capsys):
    assert main(["score", "--json", EXAMPLE]) == 0
    doc = json.loads(capsys.readouterr().out)
    # worked by hand in README.md: a +49, b -1, c -25, d -23; house fee 1860 IDR
    assert {p["id"]: p["points"] for p in doc["players"]} == {"a": 49, "b": -1, "c": -25, "d": -23}
    assert [p["net"] for p in doc["players"]] == ["47530", "-1360", "-25000", "-23030"]
    assert doc["house_fee"] == "1860"
    assert not {"id", "created_at", "status", "void", "audit"} & set(doc)


def test_capsa_evaluate_prints_rows_foul_and_bonuses_for_people(capsys):
    assert main(["evaluate", ARRANGEMENT]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "rules: capsa-susun-id    foul: no    natural: -    bonus total: 11",
        "    front   Ah Ad 7c        pair",
        "    middle  9s 9h 4d 4c 2s  two_pair",
        "    back    Ts Js Qs Ks As  royal_flush  +11",
    ]


def test_a_fouled_arrangement_says_why(tmp_path, capsys):
    body = json.loads(Path(ARRANGEMENT).read_text())
    rows = body["arrangement"]
    rows["middle"], rows["back"] = rows["back"], rows["middle"]  # a royal flush in the middle
    path = tmp_path / "foul.json"
    path.write_text(json.dumps(body))
    assert main(["evaluate", str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "foul: yes (" in first


def test_capsa_evaluate_json_prints_the_evaluate_document(capsys):
    assert main(["evaluate", "--json", ARRANGEMENT]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"]["back"] == {"category": "royal_flush", "cards": ["Ts", "Js", "Qs", "Ks", "As"], "bonus": 11}
    assert (doc["foul"], doc["natural"], doc["bonus_total"]) == (False, None, 11)


def test_bad_input_prints_field_errors_and_exits_non_zero(tmp_path, capsys):
    body = json.loads(Path(EXAMPLE).read_text())
    body["players"][1]["arrangement"]["front"][2] = "Xx"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(body))
    assert main(["score", str(path)]) == 1
    err = capsys.readouterr().err
    assert "players[1].arrangement.front[2]: unknown card 'Xx'" in err


def test_malformed_json_is_input_it_cannot_read_exit_3(tmp_path, capsys):
    path = tmp_path / "nan.json"
    path.write_text('{"stake": NaN}')
    assert main(["score", str(path)]) == 3
    assert "NaN is not JSON" in capsys.readouterr().err


# -- standard input, the other command's document, exit codes ------------------------------------


def stdin_of(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_score_dash_reads_the_round_from_standard_input(monkeypatch, capsys):
    stdin_of(monkeypatch, Path(EXAMPLE).read_bytes())
    assert main(["score", "-"]) == 0
    assert capsys.readouterr().out == readme_block("capsa score service/examples/round-4p-capsa-susun-id.json")


def test_evaluate_dash_reads_the_arrangement_from_standard_input(monkeypatch, capsys):
    stdin_of(monkeypatch, Path(ARRANGEMENT).read_bytes())
    assert main(["evaluate", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["bonus_total"] == 11


def test_standard_input_that_is_not_json_is_named_and_exits_3(monkeypatch, capsys):
    stdin_of(monkeypatch, b"{")
    assert main(["score", "-"]) == 3
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("capsa: standard input is not valid JSON: ")


def test_the_real_command_reads_a_pipe():
    done = subprocess.run([CAPSA, "score", "-"], input=Path(EXAMPLE).read_bytes(), capture_output=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode() == readme_block("capsa score service/examples/round-4p-capsa-susun-id.json")


def test_evaluate_given_a_round_says_to_use_score_and_exits_2(capsys):
    assert main(["evaluate", EXAMPLE]) == 2
    assert capsys.readouterr() == ("", f"capsa evaluate: {EXAMPLE}: this is a round (it has 'players'): "
                                       f"use `capsa score {EXAMPLE}`\n")


def test_score_given_an_arrangement_says_to_use_evaluate_and_exits_2(capsys):
    assert main(["score", ARRANGEMENT]) == 2
    assert capsys.readouterr() == ("", f"capsa score: {ARRANGEMENT}: this is an arrangement (it has "
                                       f"'arrangement'): use `capsa evaluate {ARRANGEMENT}`\n")


def test_a_missing_file_exits_3_not_2_which_is_a_wrong_command_line(tmp_path, capsys):
    missing = tmp_path / "nope.json"
    assert main(["score", str(missing)]) == 3
    assert capsys.readouterr() == ("", f"capsa: cannot read {missing}: No such file or directory\n")
    with pytest.raises(SystemExit) as stop:
        main(["score", "--no-such-option", EXAMPLE])
    assert stop.value.code == 2


def test_arrange_dash_reads_the_cards_from_standard_input(monkeypatch, capsys):
    stdin_of(monkeypatch, b"As Ks Qs Js Ts\n9h 9d 9c 9s 2c\n3d 4h 5s\n")
    assert main(["arrange", "-", "--limit", "1", "--json"]) == 0
    best = json.loads(capsys.readouterr().out)["suggestions"][0]["arrangement"]
    assert best["back"] == ["As", "Ks", "Qs", "Js", "Ts"]


# -- inputs past the API's body limit ---------------------------------------------------------


@pytest.mark.parametrize("limit", ["0", "21", "-1", "x"])
def test_an_arrange_limit_out_of_range_is_a_usage_error_naming_the_range(capsys, limit):
    """A bad number on the command line is exit 2 (it was 1, the exit of a refused hand)."""
    cards = "As Ks Qs Js Ts 9h 9d 9c 9s 2c 3d 4h 5s".split()
    with pytest.raises(SystemExit) as stopped:
        main(["arrange", *cards, f"--limit={limit}"])
    assert stopped.value.code == 2
    assert f"argument --limit: must be a whole number from 1 to 20, not {limit!r}" in capsys.readouterr().err


def test_a_file_past_the_api_body_limit_is_refused_unread_and_exits_3(tmp_path, capsys):
    """A round the API would refuse with 413 is refused here too, before it is parsed: the
    command reads at most one byte past the limit, however large the file."""
    from service.strictjson import MAX_BODY

    body = Path(EXAMPLE).read_bytes()
    path = tmp_path / "padded.json"
    path.write_bytes(body + b" " * (MAX_BODY - len(body)))  # at the limit: still read
    assert main(["score", str(path)]) == 0
    capsys.readouterr()
    path.write_bytes(body + b" " * (MAX_BODY + 1 - len(body)))
    assert main(["score", str(path)]) == 3
    assert capsys.readouterr() == ("", f"capsa: {path}: larger than 65,536 bytes, the API's limit for a request body\n")


def test_standard_input_past_the_limit_is_refused_for_each_command(monkeypatch, capsys):
    for argv in (["score", "-"], ["evaluate", "-"], ["arrange", "-"]):
        stdin_of(monkeypatch, b" " * (64 * 1024 + 1))
        assert main(argv) == 3, argv
        assert capsys.readouterr().err == (
            "capsa: standard input: larger than 65,536 bytes, the API's limit for a request body\n"
        ), argv
