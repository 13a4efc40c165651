#!/usr/bin/env python3
"""Brings the generated parts of docs/cli.md up to date with the command line: the list of
commands and each ``--help`` block, each between its ``<!-- BEGIN ... -->`` and
``<!-- END ... -->`` lines. The rest of docs/cli.md is written by hand, there.

Run it after changing the command line (the modules of rewind/commands/parsing/)::

    python scripts/cli_reference.py

A help block is what ``rewind [COMMAND] --help`` prints with ``COLUMNS=100``, formatted by
argparse from the parser itself. tests/commands/cli_reference_test.py fails while a block is out
of date, or while a command or an option has no place in the reference.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "cli.md"
COLUMNS = "100"
PYTHON_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
VERSION_MARK = re.compile(r"help output of Python (\d+\.\d+)")
# <!-- BEGIN KIND --> or <!-- BEGIN KIND: WHAT -->, what is generated, <!-- END KIND -->.
PART = re.compile(r"^<!-- BEGIN (\w+)(?:: ([^\n]*?))? -->\n.*?^<!-- END \1 -->$", re.M | re.S)


def commands(rewind: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, in the order ``rewind --help`` lists them."""
    for action in rewind._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise SystemExit("rewind's parser has no subcommands")


def summaries(rewind: argparse.ArgumentParser) -> str:
    """The list of commands: each linked to its section, with its line of ``rewind --help``."""
    for action in rewind._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = action._choices_actions
            return "\n".join(f"- [`{a.dest}`](#rewind-{a.dest}): {a.help or ''}" for a in listed)
    raise SystemExit("rewind's parser has no subcommands")


def help_block(rewind: argparse.ArgumentParser, command: str) -> str:
    """``command --help`` (``rewind`` or ``rewind NAME``) as a fenced block."""
    name = command.removeprefix("rewind").strip()
    parser = commands(rewind).get(name) if name else rewind
    if parser is None:
        raise SystemExit(f"docs/cli.md has a help block for '{command}', which is no command")
    saved = {key: os.environ.get(key) for key in ("COLUMNS", "NO_COLOR", "PYTHON_COLORS")}
    os.environ.update(COLUMNS=COLUMNS, NO_COLOR="1", PYTHON_COLORS="0")
    try:
        text = parser.format_help()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return "```text\n" + text.rstrip("\n") + "\n```"


def render(reference: str) -> str:
    """``reference`` with every generated part written anew from rewind's parser."""
    sys.path.insert(0, str(ROOT))
    try:
        from rewind.commands.parsing.parser import build_parser
    finally:
        sys.path.pop(0)
    rewind = build_parser()

    def written(part: re.Match[str]) -> str:
        kind, what = part.group(1), part.group(2)
        if kind == "commands":
            body = summaries(rewind)
        elif kind == "help" and what:
            body = help_block(rewind, what)
        else:
            raise SystemExit(f"docs/cli.md has a generated part of no known kind: {kind}")
        return part.group(0).split("\n", 1)[0] + "\n" + body + f"\n<!-- END {kind} -->"

    return VERSION_MARK.sub(f"help output of Python {PYTHON_VERSION}", PART.sub(written, reference))


def main() -> int:
    reference = REFERENCE.read_text(encoding="utf-8")
    updated = render(reference)
    if updated != reference:
        REFERENCE.write_text(updated, encoding="utf-8")
    print(f"{REFERENCE.relative_to(ROOT)}: {'updated' if updated != reference else 'up to date'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
