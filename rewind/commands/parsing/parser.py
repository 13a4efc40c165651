"""The command line's grammar: one sub-parser per command, each handing keyword arguments to
``rewind.commands.<name>.run``. Each group of commands has its builder in a module of its own
(``*_commands.py``); what several groups share is in :mod:`rewind.commands.parsing.shared`."""

from __future__ import annotations

import argparse

from rewind.commands.parsing.hook_commands import add_hook_commands
from rewind.commands.parsing.reading_commands import add_reading_commands
from rewind.commands.parsing.remote_commands import add_remote_commands
from rewind.commands.parsing.restoring_commands import add_restoring_commands
from rewind.commands.parsing.session_commands import add_session_commands
from rewind.commands.parsing.setup_commands import add_setup_commands
from rewind.commands.parsing.shared import RewindParser
from rewind.commands.parsing.upkeep_commands import add_upkeep_commands

DESCRIPTION = "Per-turn undo history for files changed by coding agents."
EPILOG = (
    "'rewind COMMAND --help' prints a command's options; 'rewind help' lists the documentation "
    "(how restores work, each agent's setup, the JSON shapes), 'rewind help TOPIC' reads it."
)


def build_parser() -> argparse.ArgumentParser:
    """The whole grammar. The groups are added in the order 'rewind --help' lists the commands
    (and docs/cli.md documents them)."""
    parser = RewindParser(prog="rewind", description=DESCRIPTION, epilog=EPILOG)
    _add_global_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_hook_commands(commands)  # begin, track, end, hook
    add_reading_commands(commands)  # log, history, blame, show, diff
    add_restoring_commands(commands)  # restore, undo, apply, extract
    add_session_commands(commands)  # label, sessions
    add_remote_commands(commands)  # remote, push, fetch
    add_upkeep_commands(commands)  # status, stats, check, gc, forget
    add_setup_commands(commands)  # completion, demo, install, uninstall, doctor, watch, help, tui
    return parser


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
