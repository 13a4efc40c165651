"""The commands that read the history and change nothing: log, history, blame, show, diff."""

from __future__ import annotations

import argparse

from rewind.commands.parsing.shared import (
    Commands,
    json_option,
    remote_session_option,
    session_option,
    turn,
)


def add_reading_commands(commands: Commands) -> None:
    _add_log(commands)
    _add_history(commands)
    _add_blame(commands)
    _add_show(commands)
    _add_diff(commands)


def _count(value: str) -> int:
    """A positive number of entries (``-n 20``)."""
    if not value.strip().isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a positive whole number")
    return int(value)


def _add_log(commands: Commands) -> None:
    log = commands.add_parser("log", help="list the turns of a session, newest last")
    session_option(log)
    remote_session_option(log)
    log.add_argument(
        "--json",
        dest="as_json",
        action="store_true",
        help="print a JSON list (its shape: rewind help json)",
    )
    log.add_argument(
        "-n",
        "--max-count",
        type=_count,
        metavar="N",
        help="only the newest N entries (still oldest first)",
    )
    log.add_argument(
        "--since",
        metavar="WHEN",
        help="only entries started since WHEN: 2026-11-30, '2026-11-30 14:05', 3d, 12h, 30m",
    )
    log.add_argument(
        "--grep", metavar="TEXT", help="only entries whose prompt or labels contain TEXT"
    )
    log.add_argument(
        "--path",
        metavar="PATH",
        help="every entry, of every session of the project, that recorded PATH",
    )
    log.add_argument(
        "--commit",
        metavar="REV",
        help="the prompts behind a commit of the repository, from its authorship note",
    )


def _add_history(commands: Commands) -> None:
    history = commands.add_parser(
        "history", help="every recorded version of one file, across sessions, newest first"
    )
    history.add_argument("path", metavar="PATH", help="the file (it may no longer exist)")
    json_option(history, "the versions")
    history.add_argument(
        "-n", "--max-count", type=_count, metavar="N", help="only the newest N versions"
    )


def _add_blame(commands: Commands) -> None:
    blame = commands.add_parser(
        "blame", help="for each line of a file, the prompt that last changed it"
    )
    blame.add_argument("path", metavar="PATH", help="a text file as it is now")
    json_option(blame, "runs of lines and their origins")


def _add_show(commands: Commands) -> None:
    show = commands.add_parser("show", help="what a turn changed, as a diff")
    session_option(show)
    remote_session_option(show)
    show.add_argument("turn", metavar="TURN", type=turn, help="turn number or id")
    show.add_argument(
        "--path",
        metavar="P",
        help="only this file's diff, cut into numbered hunks with numbered changed lines "
        "(what 'restore --hunks' takes)",
    )
    json_option(show, "the entry and its diffs")


DIFF_EXAMPLES = """\
examples:
  rewind diff 3       what turn 3 and every later entry changed, up to the files now
                      (what 'rewind restore 3' would undo)
  rewind diff 2 3     what turn 2 alone did: from before turn 2 to before turn 3
  rewind show 2       the same, with turn 2's prompt"""


def _add_diff(commands: Commands) -> None:
    diff = commands.add_parser(
        "diff",
        help="changes from a checkpoint to now, or between two",
        description="A checkpoint is the state of the files just before a turn.",
        epilog=DIFF_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    session_option(diff)
    remote_session_option(diff)
    diff.add_argument(
        "turn",
        nargs="?",
        type=turn,
        metavar="TURN",
        help="from the checkpoint before TURN (default: the newest entry)",
    )
    diff.add_argument(
        "turn2",
        nargs="?",
        type=turn,
        metavar="TURN2",
        help="to the checkpoint before TURN2, instead of the files now",
    )
    json_option(diff, "the diffs")
