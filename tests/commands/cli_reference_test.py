"""docs/cli.md is generated from the real ``--help`` output: it must match the command line."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable
from types import ModuleType

import pytest

from rewind.commands.parsing.parser import build_parser
from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "cli_reference.py"
REFERENCE = ROOT / "docs" / "cli.md"
REGENERATE = "docs/cli.md is out of date: run `python scripts/cli_reference.py`"


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
    assert heading in reference, f"docs/cli.md has no section for 'rewind {name}'; {REGENERATE}"
    return reference.split(heading, 1)[1].split("\n## ", 1)[0]


def test_reference_is_what_the_generator_writes() -> None:
    generator = load_generator()
    reference = REFERENCE.read_text(encoding="utf-8")
    version_of: Callable[[str], str | None] = generator.python_version_of
    recorded, running = version_of(reference), str(generator.PYTHON_VERSION)
    if recorded != running:
        pytest.skip(
            f"docs/cli.md holds the help output of Python {recorded}, this is Python {running}; "
            "argparse lays out help differently across versions"
        )
    render: Callable[[], str] = generator.render
    assert render() == reference, REGENERATE


@pytest.mark.unit
def test_every_subcommand_and_option_is_documented() -> None:
    reference = REFERENCE.read_text(encoding="utf-8")
    parsers = subcommands()
    assert parsers
    for name, parser in parsers.items():
        text = section(reference, name)
        assert f"usage: rewind {name}" in text, f"'rewind {name} --help' is missing; {REGENERATE}"
        for action in parser._actions:
            for option in action.option_strings:
                assert option in text, f"'rewind {name} {option}' is missing; {REGENERATE}"
