"""The commands that name entries and list sessions: label, sessions."""

from __future__ import annotations

from rewind.commands.parsing.shared import Commands, json_option, session_option, turn


def add_session_commands(commands: Commands) -> None:
    _add_label(commands)
    _add_sessions(commands)


def _add_label(commands: Commands) -> None:
    label = commands.add_parser(
        "label", help="name an entry after the fact; a labelled entry is kept by 'rewind gc'"
    )
    session_option(label)
    label.add_argument("turn", metavar="TURN", type=turn, help="turn number or id")
    label.add_argument("name", metavar="NAME", help="the label: letters, digits, '-', '_', '.'")
    label.add_argument(
        "--remove", action="store_true", help="remove the label NAME from TURN instead"
    )
    json_option(label, "the labelled entry")


def _add_sessions(commands: Commands) -> None:
    sessions = commands.add_parser("sessions", help="list the project's sessions")
    sessions.add_argument(
        "--remote",
        nargs="?",
        const="",
        metavar="NAME",
        help="list the sessions fetched from remote NAME instead (every remote without NAME)",
    )
    json_option(sessions, "a list")
    sessions.add_argument(
        "--ids",
        action="store_true",
        help="print only the session ids, one per line, the most recently active first (for "
        "scripts and shell completion)",
    )
