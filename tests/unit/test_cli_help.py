"""`capsa --help` is written for users: every command and option says what it does; --version."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from importlib import metadata
from typing import Any

import pytest

from service.cli import build_parser, main
from service.domain.version import ENGINE_VERSION


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, parser) for capsa and each of its commands and sub-commands, depth first."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), {"help": helps.get(name), "parser": sub}
                yield from commands(sub, (*path, name))


EVERY = [(path, found) for path, found in commands(build_parser()) if isinstance(found, dict)]
PARSERS = [(path, found) for path, found in commands(build_parser()) if not isinstance(found, dict)]


def test_there_is_a_command_for_each_thing_the_readme_lists():
    names = {" ".join(path) for path, _ in EVERY}
    assert names >= {
        "score", "evaluate", "arrange", "serve", "db", "db upgrade", "openapi",
        "clients", "clients create", "clients key", "clients revoke", "clients list",
        "audit", "audit verify", "idempotency", "idempotency purge", "sweep",
    }


@pytest.mark.parametrize(("path", "found"), EVERY, ids=[" ".join(p) for p, _ in EVERY])
def test_every_command_has_a_one_line_description_for_users(path, found, monkeypatch):
    text = found["help"]
    assert text and text.strip() == text and "\n" not in text, path
    assert not re.search(r"\b(register|module|subparsers?|feature)\b", text), text
    assert found["parser"].description, f"capsa {' '.join(path)} --help has no description"
    # In an 80-column terminal the parent's --help shows it whole on the command's line.
    monkeypatch.setenv("COLUMNS", "80")
    parent = dict(PARSERS)[path[:-1]]
    lines = parent.format_help().splitlines()
    assert any(re.match(rf"^\s+{re.escape(path[-1])}\s+{re.escape(text)}$", line) for line in lines), (
        f"capsa {' '.join(path)}: {text!r} does not fit on one line"
    )


@pytest.mark.parametrize(("path", "parser"), PARSERS, ids=[" ".join(p) or "capsa" for p, _ in PARSERS])
def test_every_option_and_argument_says_what_it_does(path, parser):
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help != argparse.SUPPRESS, f"capsa {' '.join(path)} {name} has no help"
        assert "\n" not in action.help


def test_the_top_level_help_talks_to_users_not_to_developers(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "register" not in out and "feature module" not in out
    assert "score a round file" in out and "DATABASE_URL" in out
    for name in ("score", "evaluate", "arrange", "serve", "db", "openapi", "clients", "audit"):
        assert re.search(rf"^    {name}\s+\S", out, re.M), name


def test_version_names_the_package_and_the_engine(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"capsa {metadata.version('capsa-service')} (scoring engine {ENGINE_VERSION})"


def test_each_command_is_mapped_to_the_module_that_registers_it_and_a_command_line_loads_only_that():
    """`capsa CMD ...` builds a parser with CMD's module alone: the map must name every
    command of every module, each with its own module, in --help's order."""
    import importlib

    from service.cli import COMMAND_MODULES, COMMANDS

    registered: dict[str, str] = {}
    for name in COMMAND_MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(name).register(sub)
        registered.update(dict.fromkeys(sub.choices, name))
    assert registered == COMMANDS and list(registered) == list(COMMANDS)
    for command, module in COMMANDS.items():
        alone = {" ".join(path) for path, _ in commands(build_parser([command, "--help"])) if len(path) == 1}
        assert alone == {c for c, m in COMMANDS.items() if m == module}, command
    assert {p for p, _ in commands(build_parser(["--version"])) if p} == set()
    assert {p[0] for p, _ in commands(build_parser(["--help", "score"])) if p} == set(COMMANDS)
    assert {p[0] for p, _ in commands(build_parser(["scroe"])) if p} == set(COMMANDS)  # argparse lists them all
