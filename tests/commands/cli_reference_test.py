"""docs/cli.md is written by hand, but for its generated parts (the list of commands, each
``--help`` block), which must be what scripts/cli_reference.py writes from the parser; and every
command and option has its place in it."""

from __future__ import annotations

import argparse
import importlib.util
import re
from types import ModuleType

import pytest

from rewind.commands.parsing.parser import build_parser
from tests.support.paths import ROOT

pytestmark = pytest.mark.unit

SCRIPT = ROOT / "scripts" / "cli_reference.py"
REFERENCE = ROOT / "docs" / "cli.md"
REGENERATE = "docs/cli.md is out of date: run `python scripts/cli_reference.py`"
HEADING = re.compile(r"^## `rewind (\S+)`$", re.M)


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def subcommands() -> dict[str, argparse.ArgumentParser]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("rewind's parser has no subcommands")


def section(reference: str, name: str) -> str:
    """The part of the reference about ``rewind NAME``: its heading up to the next heading."""
    heading = f"\n## `rewind {name}`\n"
    assert heading in reference, f"docs/cli.md has no section for 'rewind {name}'"
    return reference.split(heading, 1)[1].split("\n## ", 1)[0]


def test_the_generated_parts_are_what_the_script_writes() -> None:
    generator = load_generator()
    reference = REFERENCE.read_text(encoding="utf-8")
    match = generator.VERSION_MARK.search(reference)
    recorded, running = match and match.group(1), generator.PYTHON_VERSION
    if recorded != running:
        pytest.skip(
            f"docs/cli.md holds the help output of Python {recorded}, this is Python {running}; "
            "argparse lays out help differently across versions"
        )
    assert generator.render(reference) == reference, REGENERATE


def test_every_subcommand_and_option_is_documented_in_the_order_of_rewind_help() -> None:
    reference = REFERENCE.read_text(encoding="utf-8")
    parsers = subcommands()
    assert parsers
    assert HEADING.findall(reference) == list(parsers), "docs/cli.md's sections are not in order"
    options = reference.split("\n## Global options\n", 1)[1].split("\n## ", 1)[0]
    assert "<!-- BEGIN help: rewind -->\n" in options, "'rewind --help' is missing"
    for name, parser in parsers.items():
        text = section(reference, name)
        assert f"<!-- BEGIN help: rewind {name} -->\n" in text, f"'rewind {name} --help' is missing"
        assert f"usage: rewind {name}" in text, REGENERATE
        for action in parser._actions:
            for option in action.option_strings:
                assert option in text, f"'rewind {name} {option}' is missing; {REGENERATE}"


def test_the_script_writes_a_stale_block_anew_and_refuses_a_command_there_is_not() -> None:
    generator = load_generator()
    fresh = generator.render(REFERENCE.read_text(encoding="utf-8"))
    restore = re.search(r"<!-- BEGIN help: rewind restore -->\n.*?<!-- END help -->", fresh, re.S)
    assert restore is not None
    stale = fresh.replace(
        restore.group(0), "<!-- BEGIN help: rewind restore -->\nold\n<!-- END help -->"
    )
    assert generator.render(stale) == fresh
    gone = fresh.replace(
        "<!-- BEGIN help: rewind restore -->", "<!-- BEGIN help: rewind rewound -->"
    )
    with pytest.raises(SystemExit, match="'rewind rewound', which is no command"):
        generator.render(gone)
