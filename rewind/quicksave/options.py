"""A command's options read the GNU way: ``-abc`` clusters, values attached or separate,
``--name=value``, options anywhere until ``--``."""

from __future__ import annotations

from rewind.quicksave.words import is_dynamic


class OptionSyntax:
    """Which options of a command take a value: short ones (``takes_value``: ``-t DIR``,
    ``-tDIR``), long ones (``long_values``: ``--name VALUE``; ``--name=VALUE`` always works),
    and short ones whose value, if any, is attached (``optional_value``: ``sed -i.bak``)."""

    __slots__ = ("long_values", "optional_value", "takes_value")

    def __init__(
        self, takes_value: str = "", long_values: tuple[str, ...] = (), optional_value: str = ""
    ) -> None:
        self.takes_value = takes_value
        self.long_values = long_values
        self.optional_value = optional_value


def split_options(
    arguments: list[str],
    takes_value: str = "",
    long_values: tuple[str, ...] = (),
    optional_value: str = "",
) -> tuple[dict[str, str], list[str]]:
    """The options (``{"-r": "", "-t": DIR, "--force": ""}``, in the order they were last
    given) and the operands."""
    syntax = OptionSyntax(takes_value, long_values, optional_value)
    options: dict[str, str] = {}
    operands: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument == "--":
            operands.extend(arguments[index:])
            break
        if argument.startswith("-") and len(argument) > 1 and not is_dynamic(argument):
            index = read_option(argument, arguments, index, syntax, options)
        else:
            operands.append(argument)
    return options, operands


def read_option(
    argument: str, arguments: list[str], index: int, syntax: OptionSyntax, options: dict[str, str]
) -> int:
    """Reads the option ``argument`` (and its value, from ``arguments[index]`` if separate)
    into ``options``; returns the index of the next argument."""
    if not argument.startswith("--"):
        return _short_options(argument, arguments, index, syntax, options)
    name, equals, value = argument.partition("=")
    if not equals and name in syntax.long_values and index < len(arguments):
        value = arguments[index]
        index += 1
    _set(options, name, value)
    return index


def _short_options(
    cluster: str, arguments: list[str], index: int, syntax: OptionSyntax, options: dict[str, str]
) -> int:
    for position in range(1, len(cluster)):
        letter = cluster[position]
        value = cluster[position + 1 :]
        if letter in syntax.optional_value:
            _set(options, "-" + letter, value)
            return index
        if letter in syntax.takes_value:
            if not value and index < len(arguments):
                value = arguments[index]
                index += 1
            _set(options, "-" + letter, value)
            return index
        _set(options, "-" + letter, "")
    return index


def _set(options: dict[str, str], name: str, value: str) -> None:
    options.pop(name, None)  # the order of the options is the order they were last given
    options[name] = value


def any_of(options: dict[str, str], *names: str) -> bool:
    return any(name in options for name in names)


def first_of(options: dict[str, str], *names: str) -> str | None:
    for name in names:
        if name in options:
            return options[name]
    return None


def last_given(options: dict[str, str], *names: str) -> str | None:
    """The value of whichever of ``names`` was given last."""
    for name in reversed(options):
        if name in names:
            return options[name]
    return None


def after_options(arguments: list[str], takes_value: str) -> list[str]:
    """The arguments from the first operand on (options stop at it, as for xargs)."""
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "--":
            return arguments[index + 1 :]
        if not argument.startswith("-") or argument == "-":
            return arguments[index:]
        index += 1
        if len(argument) == 2 and argument[1] in takes_value:
            index += 1
    return []
