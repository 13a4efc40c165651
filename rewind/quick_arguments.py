"""A parser for the hook-path commands that does not import argparse.

``begin``, ``track`` and ``end`` run once per agent tool call; argparse (with the ``shutil``,
``gettext`` and ``locale`` it pulls in, and building every sub-parser) costs several
milliseconds of each call. Their grammar is declared once here, in :data:`HOOK_COMMANDS`;
:mod:`rewind.arguments` builds the argparse sub-parsers from the same table, and anything this
parser does not understand (``--help``, a typo, a missing value) is handed to argparse, which
gives the usual messages.
"""

from __future__ import annotations


class Option:
    """``--name VALUE`` stored under ``dest``; repeatable options collect a list."""

    __slots__ = ("default", "dest", "help", "metavar", "name", "repeat")

    def __init__(
        self,
        name: str,
        dest: str,
        help: str,
        metavar: str | None = None,
        default: str | None = "",
        repeat: bool = False,
    ) -> None:
        self.name = name
        self.dest = dest
        self.help = help
        self.metavar = metavar
        self.default = default
        self.repeat = repeat


class CommandGrammar:
    __slots__ = ("help", "options", "paths")

    def __init__(self, help: str, options: tuple[Option, ...], paths: bool = False) -> None:
        self.help = help
        self.options = options
        self.paths = paths  # one or more PATH arguments, stored as "paths"


SESSION = Option(
    "--session",
    "session",
    metavar="ID",
    default=None,
    help="the session (default: $REWIND_SESSION, else the most recent one)",
)
AGENT = Option("--agent", "agent", help="the agent's name, e.g. claude-code")

HOOK_COMMANDS = {
    "begin": CommandGrammar(
        "start a new turn (closing the previous one)",
        (
            SESSION,
            Option("--prompt", "prompt", help="the prompt of the turn"),
            AGENT,
            Option(
                "--label",
                "labels",
                metavar="NAME",
                repeat=True,
                help="a label for the turn (repeatable)",
            ),
        ),
    ),
    "track": CommandGrammar(
        "record paths before they change in this turn", (SESSION, AGENT), paths=True
    ),
    "end": CommandGrammar("record the after-state of the turn's files", (SESSION,)),
}

ROOT_OPTIONS = ("-C", "--root")


def quick_parse(arguments: list[str]) -> dict[str, object] | None:
    """The same dictionary argparse would give, or None to let argparse decide."""
    options: dict[str, object] = {"directory": None}
    position = 0
    if arguments and arguments[0] in ROOT_OPTIONS:
        if len(arguments) < 2 or arguments[1].startswith("-"):
            return None
        options["directory"] = arguments[1]
        position = 2
    if position >= len(arguments) or arguments[position] not in HOOK_COMMANDS:
        return None
    command = arguments[position]
    grammar = HOOK_COMMANDS[command]
    options["command"] = command
    by_name = {option.name: option for option in grammar.options}
    for option in grammar.options:
        options[option.dest] = [] if option.repeat else option.default
    paths = _parse_rest(arguments[position + 1 :], by_name, options)
    if paths is None or (grammar.paths and not paths) or (paths and not grammar.paths):
        return None
    if grammar.paths:
        options["paths"] = paths
    return options


def _parse_rest(
    rest: list[str], by_name: dict[str, Option], options: dict[str, object]
) -> list[str] | None:
    paths: list[str] = []
    index = 0
    while index < len(rest):
        word = rest[index]
        index += 1
        if word == "--":
            paths.extend(rest[index:])
            break
        if not word.startswith("-") or word == "-":
            paths.append(word)
            continue
        name, equals, value = word.partition("=")
        option = by_name.get(name)
        if option is None:
            return None
        if not equals:
            if index >= len(rest) or rest[index].startswith("-"):
                return None
            value = rest[index]
            index += 1
        if option.repeat:
            collected = options[option.dest]
            assert isinstance(collected, list)
            collected.append(value)
        else:
            options[option.dest] = value
    return paths
