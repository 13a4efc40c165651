"""The hook-path parser must agree with argparse on everything it accepts."""

from __future__ import annotations

import pytest

from rewind.commands.parsing.parser import build_parser
from rewind.commands.parsing.quick_parser import HOOK_COMMANDS, quick_parse

pytestmark = pytest.mark.unit

AGREEING = [
    ["begin"],
    ["begin", "--session", "abc", "--prompt", "fix it", "--agent", "claude-code"],
    ["begin", "--prompt=x=y", "--label", "a", "--label", "b"],
    ["-C", "/tmp", "end"],
    ["--root", "somewhere", "end", "--session", "s"],
    ["track", "a.txt"],
    ["track", "--session", "s", "a.txt", "b c.txt", "--agent", "x"],
    ["track", "--", "--strange-name", "-"],
    ["track", "-"],
    ["end", "--session="],
]

DEFERRED = [
    ["begin", "--help"],
    ["begin", "-h"],
    ["track"],
    ["track", "--session"],
    ["track", "--sesion", "x", "a"],
    ["end", "extra"],
    ["-C"],
    ["log"],
    [],
    ["begin", "--prompt", "-starts-with-dash"],
]


@pytest.mark.parametrize("arguments", AGREEING, ids=" ".join)
def test_quick_parse_gives_what_argparse_gives(arguments: list[str]) -> None:
    assert quick_parse(arguments) == vars(build_parser().parse_args(arguments))


@pytest.mark.parametrize("arguments", DEFERRED, ids=" ".join)
def test_anything_unusual_is_left_to_argparse(arguments: list[str]) -> None:
    assert quick_parse(arguments) is None


def test_every_hook_command_is_in_the_full_parser() -> None:
    help_text = build_parser().format_help()
    for name in HOOK_COMMANDS:
        assert name in help_text
