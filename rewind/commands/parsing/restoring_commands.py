"""The commands that put files back or bring them out of the history: restore, resume, undo,
redo, apply, extract."""

from __future__ import annotations

from rewind.commands.parsing.shared import (
    Commands,
    confirm_options,
    json_option,
    remote_session_option,
    session_option,
    turn,
)


def add_restoring_commands(commands: Commands) -> None:
    _add_restore(commands)
    _add_resume(commands)
    _add_undo(commands)
    _add_redo(commands)
    _add_apply(commands)
    _add_extract(commands)


def _add_restore(commands: Commands) -> None:
    restore = commands.add_parser(
        "restore",
        help="put files back as they were before a turn, or one file to one version, or "
        "some hunks of a turn",
    )
    session_option(restore)
    restore.add_argument(
        "turn",
        metavar="TURN",
        nargs="?",
        type=turn,
        help="turn number or id (not with --version)",
    )
    restore.add_argument(
        "--path",
        dest="paths",
        action="append",
        metavar="P",
        help="restore only this file (repeatable)",
    )
    restore.add_argument(
        "--version",
        metavar="VERSION",
        help="bring the one --path back to a version: ENTRYID as that entry left it, ENTRYID^ "
        "as it was just before (an id from any session)",
    )
    restore.add_argument(
        "--hunks",
        action="append",
        metavar="LIST",
        help="put back only these hunks of TURN's diff of the one --path: 1,3 or 2-4, or "
        "lines of a hunk, 2:1-3 ('rewind show TURN --path P' numbers them; repeatable)",
    )
    restore.add_argument(
        "--patch",
        "-p",
        action="store_true",
        help="go through TURN's hunks of each --path and ask which to put back",
    )
    restore.add_argument(
        "--conversation",
        action="store_true",
        help="then resume the agent's conversation from just before TURN, as a new branch "
        "(as 'rewind resume TURN')",
    )
    confirm_options(restore)
    json_option(restore, "the plan (with --dry-run only)")


def _add_resume(commands: Commands) -> None:
    resume = commands.add_parser(
        "resume",
        help="continue the agent's conversation from just before a turn, as a new branch of "
        "it (Claude Code, Gemini CLI, Codex, Copilot CLI)",
        usage="rewind resume [-h] [--session ID] [--remote NAME] [--prompt TEXT] [--print] "
        "[--json] TURN [-- CLIENT_ARG ...]",
        epilog="Arguments after -- are passed to the agent's client (e.g. -- --model NAME).",
    )
    session_option(resume)
    remote_session_option(resume)
    resume.add_argument("turn", metavar="TURN", type=turn, help="turn number or id")
    resume.add_argument(
        "--prompt",
        metavar="TEXT",
        help="send TEXT as the branch's first prompt and exit when the agent is done (its "
        "print mode), instead of an interactive session",
    )
    resume.add_argument(
        "--print",
        dest="print_only",
        action="store_true",
        help="print the command that resumes, instead of starting it",
    )
    json_option(resume, "the command (with --print only)")


def _add_undo(commands: Commands) -> None:
    undo = commands.add_parser(
        "undo",
        help="take back the newest restore still in effect, exactly; again: the one before it",
    )
    session_option(undo)
    confirm_options(undo)
    json_option(undo, "the plan (with --dry-run only)")


def _add_redo(commands: Commands) -> None:
    redo = commands.add_parser("redo", help="put back the restore the last undo took back")
    session_option(redo)
    confirm_options(redo)
    json_option(redo, "the plan (with --dry-run only)")


def _add_apply(commands: Commands) -> None:
    apply = commands.add_parser(
        "apply",
        help="bring the changes some turns of another session (a fetched one too) made into "
        "this work tree, merged with it; 'rewind undo' takes them back",
    )
    apply.add_argument(
        "--remote",
        metavar="NAME",
        help="SESSION is fetched from remote NAME ('rewind fetch NAME'): MACHINE/SESSION, or "
        "SESSION when one machine has it",
    )
    apply.add_argument("source_session", metavar="SESSION", help="the session to apply from")
    apply.add_argument(
        "turns",
        metavar="TURN[..TURN2]",
        type=turn,
        help="the turn (number or id), or the turns TURN to TURN2 (inclusive), to apply",
    )
    apply.add_argument(
        "--path",
        dest="paths",
        action="append",
        metavar="P",
        help="apply only this file (repeatable)",
    )
    apply.add_argument(
        "--into",
        metavar="ID",
        help="the local session that records the apply (default: $REWIND_SESSION, else the "
        "most recent one, else a new one)",
    )
    apply.add_argument(
        "--skip-conflicts",
        action="store_true",
        help="apply the files that can be, leave those that conflict or are refused (exit 2)",
    )
    confirm_options(apply)
    json_option(apply, "the plan (with --dry-run only)")


def _add_extract(commands: Commands) -> None:
    extract = commands.add_parser(
        "extract",
        help="write the files a turn touched, as it left them (or found them), into a new "
        "folder, for inspection",
    )
    session_option(extract)
    remote_session_option(extract)
    extract.add_argument("turn", metavar="TURN", type=turn, help="turn number or id")
    extract.add_argument("folder", metavar="DIR", help="where to write them: a new or empty folder")
    side = extract.add_mutually_exclusive_group()
    side.add_argument(
        "--after",
        action="store_true",
        help="the files as the turn left them (the default)",
    )
    side.add_argument(
        "--before", action="store_true", help="the files as they were before the turn"
    )
    extract.add_argument(
        "--path",
        dest="paths",
        action="append",
        metavar="P",
        help="only this file (repeatable)",
    )
