"""The command line's grammar: one sub-parser per command, each handing keyword arguments to
``rewind.commands.<name>.run``."""

from __future__ import annotations

import argparse

DESCRIPTION = "Per-turn undo history for files changed by coding agents."


def _session(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session",
        metavar="ID",
        help="the session (default: $REWIND_SESSION, else the most recent one)",
    )


def _confirm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    parser.add_argument(
        "--force",
        action="store_true",
        help="also overwrite files changed since rewind last recorded them "
        "(their current content is saved for undo)",
    )
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rewind", description=DESCRIPTION)
    parser.add_argument(
        "-C",
        "--root",
        dest="directory",
        metavar="DIR",
        help="work in the project that holds DIR (default: the current directory)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    begin = commands.add_parser("begin", help="start a new turn (closing the previous one)")
    _session(begin)
    begin.add_argument("--prompt", default="", help="the prompt of the turn")
    begin.add_argument("--agent", default="", help="the agent's name, e.g. claude-code")
    begin.add_argument(
        "--label",
        dest="labels",
        action="append",
        default=[],
        metavar="NAME",
        help="a label for the turn (repeatable)",
    )

    track = commands.add_parser("track", help="record paths before they change in this turn")
    _session(track)
    track.add_argument("paths", nargs="+", metavar="PATH")
    track.add_argument("--agent", default="", help="the agent's name, for a turn started here")

    end = commands.add_parser("end", help="record the after-state of the turn's files")
    _session(end)

    log = commands.add_parser("log", help="list the turns of a session, newest last")
    _session(log)
    log.add_argument(
        "--json",
        dest="as_json",
        action="store_true",
        help="print a JSON list (see docs/cli.md for its shape)",
    )

    show = commands.add_parser("show", help="what a turn changed, as a diff")
    _session(show)
    show.add_argument("turn", metavar="TURN", help="turn number or id")

    diff = commands.add_parser("diff", help="changes from a checkpoint to now, or between two")
    _session(diff)
    diff.add_argument("turn", nargs="?", metavar="TURN", help="checkpoint (default: last turn)")
    diff.add_argument("turn2", nargs="?", metavar="TURN2", help="second checkpoint")

    restore = commands.add_parser("restore", help="put files back as they were before a turn")
    _session(restore)
    restore.add_argument("turn", metavar="TURN", help="turn number or id")
    restore.add_argument(
        "--path",
        dest="paths",
        action="append",
        metavar="P",
        help="restore only this file (repeatable)",
    )
    _confirm(restore)

    undo = commands.add_parser("undo", help="undo the last restore, exactly")
    _session(undo)
    _confirm(undo)

    sessions = commands.add_parser("sessions", help="list the project's sessions")
    sessions.add_argument("--json", dest="as_json", action="store_true", help="print JSON")

    commands.add_parser("status", help="where the store is, the current session, turn and size")
    commands.add_parser("check", help="verify every object the store's history needs")
    return parser
