"""What every group of commands builds its sub-parsers with: the parser class, and the options
and arguments several commands take in the same words (``--session``, ``--remote``, the
confirmation options of a restore, ``--json``, a TURN)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn, TypeAlias

from rewind.errors import UserError, did_you_mean


class RewindParser(argparse.ArgumentParser):
    """Usage mistakes are user errors: one line, exit 1 (argparse would exit 2), with the
    closest command, choice or option when one was mistyped.

    The sub-parsers are of this class too (argparse makes them of their parent's class)."""

    def error(self, message: str) -> NoReturn:
        message = message.removeprefix("argument COMMAND: ")
        if message.endswith("?"):  # a suggestion ends it
            raise UserError(f"{message} ('{self.prog} --help' has the rest)")
        raise UserError(f"{message}; see '{self.prog} --help'.")

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            message, owner = _unrecognized(self, parsed, extras)
            owner.error(message)
        return parsed

    def _check_value(self, action: argparse.Action, value: object) -> None:
        choices = action.choices
        if choices is not None and value not in choices:
            named = [str(choice) for choice in choices]
            hint = did_you_mean(str(value), named) or f" (one of {', '.join(named)})"
            what = "command" if action.dest == "command" else "choice"
            raise argparse.ArgumentError(action, f"unknown {what} {value!r}{hint}")
        super()._check_value(action, value)


def _unrecognized(
    parser: RewindParser, parsed: argparse.Namespace, extras: list[str]
) -> tuple[str, RewindParser]:
    """What argparse says of arguments no parser took, and, for a mistyped option, the closest
    one, with the parser whose help lists it."""
    command = subparser(parser, getattr(parsed, "command", None))
    for extra in extras:
        if not extra.startswith("--"):
            continue
        for owner in (command, parser):
            if not isinstance(owner, RewindParser):
                continue
            options = [option for action in owner._actions for option in action.option_strings]
            if extra.split("=", 1)[0] in options:  # an option in the wrong place (after --)
                return f"unrecognized arguments: {' '.join(extras)}", parser
            hint = did_you_mean(extra.split("=", 1)[0], options)
            if hint:
                return f"unknown option {extra!r}{hint}", owner
    return f"unrecognized arguments: {' '.join(extras)}", parser


def subparser(parser: argparse.ArgumentParser, command: object) -> argparse.ArgumentParser | None:
    """The parser of ``command`` in the whole grammar ``parser`` (None: no such command)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and isinstance(command, str):
            found = action.choices.get(command)
            return found if isinstance(found, argparse.ArgumentParser) else None
    return None


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
