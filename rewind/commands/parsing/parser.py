"""The command line's grammar: one sub-parser per command, each handing keyword arguments to
``rewind.commands.<name>.run``. Each group of commands has its builder in a module of its own
(``*_commands.py``); what several groups share is in :mod:`rewind.commands.parsing.shared`."""

from __future__ import annotations

import argparse
from typing import cast

from rewind.commands.parsing.hook_commands import add_hook_commands
from rewind.commands.parsing.reading_commands import add_reading_commands
from rewind.commands.parsing.remote_commands import add_remote_commands
from rewind.commands.parsing.restoring_commands import add_restoring_commands
from rewind.commands.parsing.session_commands import add_session_commands
from rewind.commands.parsing.setup_commands import add_setup_commands
from rewind.commands.parsing.shared import Commands, RewindParser
from rewind.commands.parsing.upkeep_commands import add_upkeep_commands

DESCRIPTION = "Per-turn undo history for files changed by coding agents."
EPILOG = (
    "'rewind COMMAND --help' prints a command's options; 'rewind help' lists the documentation "
    "(how restores work, each agent's setup, the JSON shapes), 'rewind help TOPIC' reads it."
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole grammar. The groups are added in the order 'rewind --help' lists the commands
    (and docs/cli.md documents them). With ``only``, the grammar of that command alone: what
    one run of it needs, at a tenth of the cost of the whole (the others' help and errors
    come from the whole grammar: rewind.cli)."""
    parser = RewindParser(prog="rewind", description=DESCRIPTION, epilog=EPILOG)
    _add_global_options(parser)
    every = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    commands = every if only is None else cast(Commands, _OnlyOne(every, only))
    add_hook_commands(commands)  # begin, track, end, hook
    add_reading_commands(commands)  # log, history, blame, show, diff
    add_restoring_commands(commands)  # restore, resume, undo, redo, apply, extract
    add_session_commands(commands)  # label, sessions
    add_remote_commands(commands)  # remote, push, fetch
    add_upkeep_commands(commands)  # status, stats, check, gc, forget
    add_setup_commands(commands)  # completion, demo, install, uninstall, doctor, watch, help, tui
    return parser


class _OnlyOne:
    """The sub-parsers of :func:`build_parser` where only ``only`` is built."""

    def __init__(self, commands: Commands, only: str) -> None:
        self.commands = commands
        self.only = only

    def add_parser(self, name: str, **options: object) -> object:
        if name != self.only:
            return _Unbuilt()
        return self.commands.add_parser(name, **options)  # type: ignore[arg-type]


class _Unbuilt:
    """Takes whatever a builder adds to a command that is not the one being run."""

    def __getattr__(self, name: str) -> object:
        return self._ignore

    def _ignore(self, *_: object, **__: object) -> _Unbuilt:
        return self


def _add_global_options(parser: argparse.ArgumentParser) -> None:
    """The options given before the command."""
    from rewind._version import __version__

    parser.add_argument(
        "--version",
        action="version",
        version=f"rewind {__version__}",
        help="print rewind's version",
    )
    parser.add_argument(
        "-C",
        "--root",
        dest="directory",
        metavar="DIR",
        help="run as if started in DIR, like git -C (default: the current directory)",
    )
    parser.add_argument(
        "--no-pager",
        action="store_true",
        help="print log, show, diff, history and blame straight to the terminal, without $PAGER",
    )
