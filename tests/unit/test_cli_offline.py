"""`capsa score` and `capsa evaluate` on files: the documents, and field errors on bad input."""

import json

from service.cli import main

EXAMPLE = "service/examples/round-4p-capsa-susun-id.json"


def test_capsa_score_prints_the_score_document_of_the_shipped_example(capsys):
    assert main(["score", EXAMPLE]) == 0
    doc = json.loads(capsys.readouterr().out)
    # worked by hand in README.md: a +49, b -1, c -25, d -23; house fee 1860 IDR
    assert {p["id"]: p["points"] for p in doc["players"]} == {"a": 49, "b": -1, "c": -25, "d": -23}
    assert [p["net"] for p in doc["players"]] == ["47530", "-1360", "-25000", "-23030"]
    assert doc["house_fee"] == "1860"
    assert not {"id", "created_at", "status", "void", "audit"} & set(doc)


def test_capsa_evaluate_prints_the_evaluate_document(capsys):
    assert main(["evaluate", "service/examples/arrangement.json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"]["back"] == {"category": "royal_flush", "cards": ["Ts", "Js", "Qs", "Ks", "As"], "bonus": 11}
    assert (doc["foul"], doc["natural"], doc["bonus_total"]) == (False, None, 11)


def test_bad_input_prints_field_errors_and_exits_non_zero(tmp_path, capsys):
    body = json.load(open(EXAMPLE))
    body["players"][1]["arrangement"]["front"][2] = "Xx"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(body))
    assert main(["score", str(path)]) == 1
    err = capsys.readouterr().err
    assert "players[1].arrangement.front[2]: unknown card 'Xx'" in err


def test_malformed_json_is_refused(tmp_path, capsys):
    path = tmp_path / "nan.json"
    path.write_text('{"stake": NaN}')
    assert main(["score", str(path)]) == 1
    assert "NaN is not JSON" in capsys.readouterr().err
