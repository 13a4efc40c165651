"""What every group of commands builds its sub-parsers with: the parser class, and the options
and arguments several commands take in the same words (``--session``, ``--remote``, the
confirmation options of a restore, ``--json``, a TURN)."""

from __future__ import annotations

import argparse
from typing import NoReturn, TypeAlias

from rewind.errors import UserError


class RewindParser(argparse.ArgumentParser):
    """Usage mistakes are user errors: one line, exit 1 (argparse would exit 2).

    The sub-parsers are of this class too (argparse makes them of their parent's class)."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message}; see '{self.prog} --help'.")


# What ``add_subparsers`` gives: the builder of each group adds its commands to it.
Commands: TypeAlias = "argparse._SubParsersAction[RewindParser]"


def session_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session",
        metavar="ID",
        help="the session (default: $REWIND_SESSION, else the most recent one)",
    )


def remote_session_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--remote",
        metavar="NAME",
        help="read a session fetched from remote NAME ('rewind fetch NAME'); --session is "
        "then MACHINE/SESSION or SESSION (default: the one most recently active)",
    )


def confirm_options(parser: argparse.ArgumentParser) -> None:
    """The options of a command that writes files (restore, undo, apply)."""
    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    parser.add_argument(
        "--force",
        action="store_true",
        help="also overwrite files changed outside rewind since it last recorded them "
        "(their current content is saved for undo)",
    )
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--list",
        dest="list_all",
        action="store_true",
        help="list every file of the plan (on a terminal a long plan is summarised)",
    )


def json_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--json",
        dest="as_json",
        action="store_true",
        help=f"print {what} as JSON (its shape: rewind help json)",
    )


def turn(value: str) -> str:
    """A TURN argument; an empty one would be a prefix of every entry's id."""
    if not value.strip():
        raise argparse.ArgumentTypeError(
            "it is empty: give a turn's number or id ('rewind log' lists them)"
        )
    return value.strip()
