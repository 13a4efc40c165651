"""A parser for the hook-path commands that does not import argparse.

``begin``, ``track`` and ``end`` run once per agent tool call; argparse (with the ``shutil``,
``gettext`` and ``locale`` it pulls in, and building every sub-parser) costs several
milliseconds of each call. Their grammar is declared once here, in :data:`HOOK_COMMANDS`;
:mod:`rewind.commands.parsing.hook_commands` builds the argparse sub-parsers from the same
table, and anything this parser does not understand (``--help``, a typo, a missing value) is
handed to argparse, which gives the usual messages.
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


class Positional:
    """A positional argument: ``count`` is "one", "optional" (stored as None when absent) or
    "some" (one or more, as a list)."""

    __slots__ = ("count", "dest", "help", "metavar")

    def __init__(self, dest: str, metavar: str, count: str = "one", help: str = "") -> None:
        self.dest = dest
        self.metavar = metavar
        self.count = count
        self.help = help


class CommandGrammar:
    __slots__ = ("help", "options", "positionals")

    def __init__(
        self, help: str, options: tuple[Option, ...], positionals: tuple[Positional, ...] = ()
    ) -> None:
        self.help = help
        self.options = options
        self.positionals = positionals


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
        "record paths before they change in this turn",
        (SESSION, AGENT),
        (Positional("paths", "PATH", "some"),),
    ),
    "end": CommandGrammar("record the after-state of the turn's files", (SESSION,)),
    "hook": CommandGrammar(
        "handle one event of an agent's hooks (always exits 0; problems go to the log)",
        (),
        (
            Positional(
                "agent",
                "AGENT",
                help=(
                    "claude-code, codex, gemini, cursor, copilot, cline, windsurf, pi, qwen, "
                    "droid, opencode, kilo or git"
                ),
            ),
            Positional(
                "argument",
                "PAYLOAD",
                "optional",
                help="the event as a JSON argument (Codex's notify, OpenCode's run end); "
                "default: standard input",
            ),
        ),
    ),
}

ROOT_OPTIONS = ("-C", "--root")


def quick_parse(arguments: list[str]) -> dict[str, object] | None:
    """The same dictionary argparse would give, or None to let argparse decide."""
    options: dict[str, object] = {"directory": None, "no_pager": False}
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
    words = _parse_rest(arguments[position + 1 :], by_name, options)
    if words is None or not _assign_positionals(grammar.positionals, words, options):
        return None
    return options


def _assign_positionals(
    positionals: tuple[Positional, ...], words: list[str], options: dict[str, object]
) -> bool:
    for positional in positionals:
        if positional.count == "some":
            if not words:
                return False
            options[positional.dest], words = words, []
        elif positional.count == "optional":
            options[positional.dest] = words.pop(0) if words else None
        elif words:
            options[positional.dest] = words.pop(0)
        else:
            return False
    return not words


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
