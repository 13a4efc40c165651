"""The commands that share sessions through git remotes: remote (list, add, remove), push,
fetch."""

from __future__ import annotations

import argparse

from rewind.commands.parsing.shared import Commands, json_option


def add_remote_commands(commands: Commands) -> None:
    _add_remote(commands)
    _add_push(commands)
    _add_fetch(commands)


def _add_remote(commands: Commands) -> None:
    remote = commands.add_parser(
        "remote", help="list, add or remove the git remotes sessions are pushed to and fetched from"
    )
    remote_actions = remote.add_subparsers(dest="action", metavar="ACTION")
    remote_list = remote_actions.add_parser("list", help="list the remotes (the default)")
    json_option(remote_list, "the remotes")
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


def _add_push(commands: Commands) -> None:
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
    json_option(push, "what was sent (or would be, with --dry-run)")


def _add_fetch(commands: Commands) -> None:
    fetch = commands.add_parser(
        "fetch", help="bring the sessions others pushed for this project from a git remote"
    )
    fetch.add_argument(
        "remote_name",
        nargs="?",
        metavar="REMOTE",
        help="the remote (default: every remote)",
    )
    json_option(fetch, "what was fetched")
