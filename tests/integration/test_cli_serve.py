"""`capsa serve`'s address: --host/--port, else $BIND (as gunicorn.conf.py and the docs'
own example use it: it was ignored), else $HOST:$PORT; a bad port or worker count is a
usage error (exit 2), and a bad $PORT breaks `capsa serve` alone, not every command."""

from __future__ import annotations

import pytest

from service import cli
from service.commands import server


def bind_of(argv: list[str]) -> str:
    args = cli.build_parser(["serve", *argv]).parse_args(["serve", *argv])
    return server._bind(args)


@pytest.mark.parametrize(("env", "argv", "expected"), [
    ({}, [], "127.0.0.1:8000"),
    ({"BIND": "127.0.0.1:8127"}, [], "127.0.0.1:8127"),
    ({"BIND": "127.0.0.1:8127"}, ["--port", "9000"], "127.0.0.1:9000"),  # the command line wins
    ({"BIND": "127.0.0.1:8127", "HOST": "0.0.0.0"}, ["--port", "9000"], "0.0.0.0:9000"),
    ({"HOST": "10.0.0.5", "PORT": "8080"}, [], "10.0.0.5:8080"),
    ({"PORT": "8080"}, ["--host", "::1"], "::1:8080"),
])
def test_the_address_comes_from_the_command_line_then_bind_then_host_and_port(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], argv: list[str], expected: str
) -> None:
    for name in ("BIND", "HOST", "PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert bind_of(argv) == expected


@pytest.mark.parametrize("argv", [["--port", "70000"], ["--port", "-1"], ["--port", "x"], ["--workers", "0"]])
def test_a_bad_port_or_worker_count_is_a_usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.build_parser(["serve", *argv]).parse_args(["serve", *argv])
    assert stopped.value.code == 2 and "must be" in capsys.readouterr().err


def test_a_bad_port_setting_stops_serve_alone(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("BIND", raising=False)
    monkeypatch.setenv("PORT", "abc")
    cli.build_parser(["db", "upgrade"])  # was a ValueError while the parser was built
    with pytest.raises(SystemExit) as stopped:
        bind_of([])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == "capsa serve: PORT must be a port number from 1 to 65535, not 'abc'\n"
