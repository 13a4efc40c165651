"""A run parses its arguments through the grammar of the one command they name (a tenth of the
cost of the whole); that grammar is the whole grammar's, command for command, and whatever it
cannot take is answered by the whole grammar."""

from __future__ import annotations

import argparse

import pytest

from rewind.cli import _command_word, _parse_with_argparse
from rewind.commands.parsing.parser import build_parser
from rewind.errors import UserError

pytestmark = pytest.mark.unit


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


WHOLE = _commands(build_parser())


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_each_commands_grammar_is_the_whole_grammars(name: str) -> None:
    alone = _commands(build_parser(only=name))
    assert list(alone) == [name]
    assert alone[name].format_help() == WHOLE[name].format_help()


@pytest.mark.parametrize(
    ("arguments", "word"),
    [
        (["log", "--json"], "log"),
        (["-C", "sub", "show", "1"], "show"),
        (["--root", "log", "status"], "status"),  # a folder named like a command
        (["--ro", "log", "status"], "status"),  # an abbreviation of --root takes its value too
        (["--root=log", "status"], "status"),
        (["--no-pager", "diff"], "diff"),
        (["--", "log"], None),
        (["--version"], None),
    ],
)
def test_the_command_word_is_the_one_argparse_takes(arguments: list[str], word: str | None) -> None:
    assert _command_word(arguments) == word


def test_arguments_the_one_command_grammar_refuses_get_the_whole_grammars_answer() -> None:
    assert _parse_with_argparse(["--root", "log", "status"])["command"] == "status"
    with pytest.raises(UserError, match="unknown command 'lgo'; did you mean 'log'"):
        _parse_with_argparse(["lgo"])
    with pytest.raises(UserError, match="unrecognized arguments: --bogus"):
        _parse_with_argparse(["log", "--bogus"])
