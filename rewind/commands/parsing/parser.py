"""The command line's grammar: one sub-parser per command, each handing keyword arguments to
``rewind.commands.<name>.run``."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from rewind.commands.parsing.quick_parser import HOOK_COMMANDS, CommandGrammar
from rewind.errors import UserError

DESCRIPTION = "Per-turn undo history for files changed by coding agents."
EPILOG = (
    "'rewind COMMAND --help' prints a command's options; 'rewind help' lists the documentation "
    "(how restores work, each agent's setup, the JSON shapes), 'rewind help TOPIC' reads it."
)


def _session(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session",
        metavar="ID",
        help="the session (default: $REWIND_SESSION, else the most recent one)",
    )


def _remote_session(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--remote",
        metavar="NAME",
        help="read a session fetched from remote NAME ('rewind fetch NAME'); --session is "
        "then MACHINE/SESSION or SESSION (default: the one most recently active)",
    )


def _confirm(parser: argparse.ArgumentParser) -> None:
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


def _json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--json",
        dest="as_json",
        action="store_true",
        help=f"print {what} as JSON (its shape: rewind help json)",
    )


# What 'rewind install' takes, in the order rewind.installers.targets() gives them: named here so
# that building the parser, which every command but the hooks does, does not import every
# installer (tests/cli_test.py keeps the two equal).
INSTALL_TARGETS = (
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "copilot",
    "cline",
    "git-hook",
    "windsurf",
)


def _install_target(parser: argparse.ArgumentParser, verb: str) -> None:
    # No argparse choices: a target another module registers is accepted too; the command
    # names the known ones when given another (rewind.installers.get_target).
    parser.add_argument("agent", metavar="AGENT", help=", ".join(INSTALL_TARGETS))
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--user",
        dest="scope",
        action="store_const",
        const="user",
        help=f"{verb} the settings in your home directory, for every project",
    )
    where.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help=f"{verb} the project's shared settings (the default)",
    )
    where.add_argument(
        "--local",
        dest="scope",
        action="store_const",
        const="local",
        help=f"{verb} the project's private settings (claude-code, git-hook)",
    )


def _add_hook_command(commands: Any, name: str, grammar: CommandGrammar) -> None:
    parser = commands.add_parser(name, help=grammar.help)
    for option in grammar.options:
        if option.repeat:
            parser.add_argument(
                option.name,
                dest=option.dest,
                action="append",
                default=[],
                metavar=option.metavar,
                help=option.help,
            )
        else:
            parser.add_argument(
                option.name,
                dest=option.dest,
                default=option.default,
                metavar=option.metavar,
                help=option.help,
            )
    nargs = {"one": None, "optional": "?", "some": "+"}
    for positional in grammar.positionals:
        parser.add_argument(
            positional.dest,
            nargs=nargs[positional.count],
            metavar=positional.metavar,
            help=positional.help or None,
        )


def _count(value: str) -> int:
    """A positive number of entries (``-n 20``)."""
    if not value.strip().isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a positive whole number")
    return int(value)


def _turn(value: str) -> str:
    """A TURN argument; an empty one would be a prefix of every entry's id."""
    if not value.strip():
        raise argparse.ArgumentTypeError(
            "it is empty: give a turn's number or id ('rewind log' lists them)"
        )
    return value.strip()


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are user errors: one line, exit 1 (argparse would exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message}; see '{self.prog} --help'.")


def build_parser() -> argparse.ArgumentParser:
    from rewind._version import __version__

    parser = _Parser(prog="rewind", description=DESCRIPTION, epilog=EPILOG)
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
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    for name, grammar in HOOK_COMMANDS.items():
        _add_hook_command(commands, name, grammar)

    log = commands.add_parser("log", help="list the turns of a session, newest last")
    _session(log)
    _remote_session(log)
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

    history = commands.add_parser(
        "history", help="every recorded version of one file, across sessions, newest first"
    )
    history.add_argument("path", metavar="PATH", help="the file (it may no longer exist)")
    _json(history, "the versions")
    history.add_argument(
        "-n", "--max-count", type=_count, metavar="N", help="only the newest N versions"
    )

    blame = commands.add_parser(
        "blame", help="for each line of a file, the prompt that last changed it"
    )
    blame.add_argument("path", metavar="PATH", help="a text file as it is now")
    _json(blame, "runs of lines and their origins")

    show = commands.add_parser("show", help="what a turn changed, as a diff")
    _session(show)
    _remote_session(show)
    show.add_argument("turn", metavar="TURN", type=_turn, help="turn number or id")
    show.add_argument(
        "--path",
        metavar="P",
        help="only this file's diff, cut into numbered hunks with numbered changed lines "
        "(what 'restore --hunks' takes)",
    )
    _json(show, "the entry and its diffs")

    diff = commands.add_parser("diff", help="changes from a checkpoint to now, or between two")
    _session(diff)
    _remote_session(diff)
    diff.add_argument(
        "turn", nargs="?", type=_turn, metavar="TURN", help="checkpoint (default: last turn)"
    )
    diff.add_argument("turn2", nargs="?", type=_turn, metavar="TURN2", help="second checkpoint")
    _json(diff, "the diffs")

    restore = commands.add_parser(
        "restore",
        help="put files back as they were before a turn, or one file to one version, or "
        "some hunks of a turn",
    )
    _session(restore)
    restore.add_argument(
        "turn",
        metavar="TURN",
        nargs="?",
        type=_turn,
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
    _confirm(restore)
    _json(restore, "the plan (with --dry-run only)")

    undo = commands.add_parser("undo", help="undo the last restore, exactly")
    _session(undo)
    _confirm(undo)
    _json(undo, "the plan (with --dry-run only)")

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
        type=_turn,
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
    _confirm(apply)
    _json(apply, "the plan (with --dry-run only)")

    extract = commands.add_parser(
        "extract",
        help="write the files a turn touched, as it left them (or found them), into a new "
        "folder, for inspection",
    )
    _session(extract)
    _remote_session(extract)
    extract.add_argument("turn", metavar="TURN", type=_turn, help="turn number or id")
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

    label = commands.add_parser(
        "label", help="name an entry after the fact; a labelled entry is kept by 'rewind gc'"
    )
    _session(label)
    label.add_argument("turn", metavar="TURN", type=_turn, help="turn number or id")
    label.add_argument("name", metavar="NAME", help="the label: letters, digits, '-', '_', '.'")
    label.add_argument(
        "--remove", action="store_true", help="remove the label NAME from TURN instead"
    )
    _json(label, "the labelled entry")

    sessions = commands.add_parser("sessions", help="list the project's sessions")
    sessions.add_argument(
        "--remote",
        nargs="?",
        const="",
        metavar="NAME",
        help="list the sessions fetched from remote NAME instead (every remote without NAME)",
    )
    _json(sessions, "a list")

    remote = commands.add_parser(
        "remote", help="list, add or remove the git remotes sessions are pushed to and fetched from"
    )
    remote_actions = remote.add_subparsers(dest="action", metavar="ACTION")
    remote_list = remote_actions.add_parser("list", help="list the remotes (the default)")
    _json(remote_list, "the remotes")
    remote_add = remote_actions.add_parser("add", help="add a remote")
    remote_add.add_argument("name", metavar="NAME", help="its name: letters, digits, '-', '_'")
    remote_add.add_argument(
        "url",
        metavar="URL",
        help="any URL git understands (a path, file://, ssh://, https://), or the name of one "
        "of the project's own git remotes, like origin",
    )
    remote_remove = remote_actions.add_parser(
        "remove", help="forget a remote and what was fetched from it (the remote is not changed)"
    )
    remote_remove.add_argument("name", metavar="NAME", help="the remote")

    push = commands.add_parser(
        "push", help="send sessions to a git remote (private files' contents stay here)"
    )
    push.add_argument(
        "remote_name",
        nargs="?",
        metavar="REMOTE",
        help="the remote (default: [remote] backup, else the only remote)",
    )
    which = push.add_mutually_exclusive_group()
    which.add_argument(
        "--session", metavar="ID", help="push this session (default: the most recent one)"
    )
    which.add_argument("--all", dest="all_sessions", action="store_true", help="push every session")
    push.add_argument(
        "--dry-run",
        "-n",
        action="store_true",
        help="list the sessions, entries and files that would be sent; send nothing",
    )
    push.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="confirm pushing to a remote that is also the project's own origin",
    )
    push.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    _json(push, "what was sent (or would be, with --dry-run)")

    fetch = commands.add_parser(
        "fetch", help="bring the sessions others pushed for this project from a git remote"
    )
    fetch.add_argument(
        "remote_name",
        nargs="?",
        metavar="REMOTE",
        help="the remote (default: every remote)",
    )
    _json(fetch, "what was fetched")

    status = commands.add_parser(
        "status", help="where the store is, the current session, turn and size"
    )
    _json(status, "an object")
    stats = commands.add_parser(
        "stats", help="what rewind recorded and what it cost: sizes, hook latency, restores, gc"
    )
    stats.add_argument(
        "--json",
        dest="as_json",
        action="store_true",
        help="print a JSON object (a list with --all; its shape: rewind help json)",
    )
    stats.add_argument(
        "--all",
        dest="all_projects",
        action="store_true",
        help="every project that has a store, not only this one",
    )
    check = commands.add_parser("check", help="verify every object the store's history needs")
    check.add_argument(
        "--drill",
        action="store_true",
        help="rebuild every kept state in a scratch directory and verify it against its record",
    )
    check.add_argument(
        "--session", metavar="ID", help="with --drill: only this session (default: all of them)"
    )
    check.add_argument(
        "--json",
        dest="as_json",
        action="store_true",
        help="with --drill: print JSON (its shape: rewind help check)",
    )
    gc = commands.add_parser(
        "gc", help="pack the store's history and drop what no session or label needs"
    )
    gc.add_argument("--quiet", "-q", action="store_true", help="print nothing")
    gc.add_argument(
        "--dry-run",
        "-n",
        action="store_true",
        help="list what retention would drop and the space it would free; change nothing",
    )
    gc.add_argument(
        "--full",
        action="store_true",
        help="rewrite every pack keeping only what the history needs (after 'rewind forget', "
        "the next gc does this by itself)",
    )
    forget = commands.add_parser(
        "forget", help="delete a session's history and labels ('rewind gc' frees it)"
    )
    forget.add_argument("session", metavar="SESSION", help="the session to forget")
    forget.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")

    completion = commands.add_parser(
        "completion", help="print the shell completion script for bash, zsh or fish"
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell")

    demo = commands.add_parser(
        "demo", help="replay a scripted agent session on a throwaway project, then browse it"
    )
    demo.add_argument(
        "--no-tui",
        action="store_true",
        help="print the session's log instead of opening the TUI (also without a terminal)",
    )
    demo.add_argument(
        "--keep", action="store_true", help="keep the temporary directory and print its path"
    )

    install = commands.add_parser("install", help="add rewind's hooks to an agent's settings")
    _install_target(install, "edit")
    uninstall = commands.add_parser(
        "uninstall", help="remove rewind's hooks from an agent's settings"
    )
    _install_target(uninstall, "edit")
    doctor = commands.add_parser(
        "doctor", help="check the installed hooks and try each agent's hook"
    )
    _json(doctor, "the findings")

    watch = commands.add_parser(
        "watch",
        help="record changes made outside the edit tools as they happen (rewind help watch)",
    )
    _session(watch)
    action = watch.add_mutually_exclusive_group()
    action.add_argument(
        "--detach",
        action="store_true",
        help="run in the background (one watcher per project; --stop ends it)",
    )
    action.add_argument(
        "--stop", dest="stop_it", action="store_true", help="stop the project's watcher"
    )
    action.add_argument(
        "--status",
        action="store_true",
        help="say whether a watcher runs for the project (exit 1 if none)",
    )
    action.add_argument("--background", action="store_true", help=argparse.SUPPRESS)

    help_command = commands.add_parser(
        "help", help="read the documentation: a page, a command's reference, the JSON shapes"
    )
    help_command.add_argument(
        "topic", nargs="?", metavar="TOPIC", help="a page or command (default: list the topics)"
    )

    tui = commands.add_parser(
        "tui", help="browse the turns, their diffs and rewind, in the terminal (rewind help tui)"
    )
    _session(tui)
    _remote_session(tui)
    return parser
