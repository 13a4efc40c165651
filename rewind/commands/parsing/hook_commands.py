"""The sub-parsers of the hook commands (begin, track, end, hook), built from the grammar the
hook path parses them with, without argparse (:data:`.quick_parser.HOOK_COMMANDS`): argparse
sees them only for ``--help`` and for what that parser does not understand."""

from __future__ import annotations

from rewind.commands.parsing.quick_parser import HOOK_COMMANDS, CommandGrammar
from rewind.commands.parsing.shared import Commands


def add_hook_commands(commands: Commands) -> None:
    for name, grammar in HOOK_COMMANDS.items():
        _add_hook_command(commands, name, grammar)


def _add_hook_command(commands: Commands, name: str, grammar: CommandGrammar) -> None:
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
