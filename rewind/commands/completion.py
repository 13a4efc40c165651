"""``rewind completion SHELL``: the completion script for bash, zsh or fish, made by shtab from
the same argparse parser that reads the command line, so that it lists every command and
option there is; besides, the values rewind knows: session ids (asked of ``rewind sessions
--ids`` as the person types, so they are the project's of the moment), the agents ``install``
and ``uninstall`` take, and the topics of ``rewind help``."""

from __future__ import annotations

import argparse
import shlex

import shtab

from rewind.commands.help import docs_directory, topic_names
from rewind.commands.parsing.parser import build_parser
from rewind.commands.parsing.setup_commands import INSTALL_TARGETS
from rewind.errors import UserError

# What completes a session id: the project's sessions, asked for when the person presses tab.
SESSIONS = shtab.cmd("rewind sessions --ids 2>/dev/null")
# The arguments (by dest) that name a session of the project.
SESSION_DESTS = frozenset({"session", "source_session"})


def run(*, shell: str) -> int:
    parser = build_parser()
    complete_values(parser)
    print(shtab.complete(parser, shell=shell), end="")
    return 0


def complete_values(parser: argparse.ArgumentParser) -> None:
    """Sets shtab's ``complete`` on every argument whose values rewind knows."""
    agents = _words(INSTALL_TARGETS)
    try:
        topics = _words(topic_names(docs_directory()))
    except UserError:  # installed without its documentation: no topics to offer
        topics = None
    for command, sub in _commands(parser).items():
        for action in sub._actions:
            if action.dest in SESSION_DESTS:
                action.complete = SESSIONS  # type: ignore[attr-defined]
            elif command in ("install", "uninstall") and action.dest == "agent":
                action.complete = agents  # type: ignore[attr-defined]
            elif command == "help" and action.dest == "topic" and topics is not None:
                action.complete = topics  # type: ignore[attr-defined]


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {name: sub for name, sub in action.choices.items()}
    return {}


def _words(words: tuple[str, ...] | list[str]) -> shtab.CompleteType:
    """A fixed list of words as shtab completes them (written into the script)."""
    return shtab.cmd("printf '%s\\n' " + " ".join(shlex.quote(word) for word in words))
