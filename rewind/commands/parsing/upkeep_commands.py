"""The commands that look after the store: status, stats, check, gc, forget."""

from __future__ import annotations

from rewind.commands.parsing.shared import Commands, json_option


def add_upkeep_commands(commands: Commands) -> None:
    _add_status(commands)
    _add_stats(commands)
    _add_check(commands)
    _add_gc(commands)
    _add_forget(commands)


def _add_status(commands: Commands) -> None:
    status = commands.add_parser(
        "status", help="where the store is, the current session, turn and size"
    )
    json_option(status, "an object")


def _add_stats(commands: Commands) -> None:
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


def _add_check(commands: Commands) -> None:
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
        "--remote",
        nargs="?",
        const="",
        metavar="NAME",
        help="read the sessions fetched from remote NAME instead (every remote without NAME), "
        "and list what is damaged in them",
    )
    json_option(check, "the problems found (with --drill: the drill's report)")


def _add_gc(commands: Commands) -> None:
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
    json_option(gc, "what was done (with --dry-run: what retention would drop)")


def _add_forget(commands: Commands) -> None:
    forget = commands.add_parser(
        "forget", help="delete a session's history and labels ('rewind gc' frees it)"
    )
    forget.add_argument("session", metavar="SESSION", help="the session to forget")
    forget.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
