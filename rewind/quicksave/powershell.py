"""PowerShell command lines (Claude Code's ``PowerShell`` tool) read for the quicksave.

There is no PowerShell reader: a command line is translated into the POSIX command line that
changes the same files, which :func:`rewind.quicksave.paths_at_risk` then reads. Understood:

- statements separated by ``;``, newlines, ``|``, ``&&`` and ``||``; ``#`` comments;
- ``Remove-Item`` (``rm``, ``del``, ``erase``, ``ri``, ``rd``, ``rmdir``; always read as
  recursive), ``Move-Item`` (``mv``, ``move``, ``mi``), ``Copy-Item`` (``cp``, ``copy``,
  ``cpi``), ``Rename-Item`` (``ren``, ``rni``), ``Set-Content``, ``Add-Content``,
  ``Clear-Content``, ``Out-File``, ``New-Item`` (and their aliases), ``Set-Location``/``cd``/
  ``Push-Location``; their paths by position or by ``-Path``, ``-LiteralPath``, ``-Destination``,
  ``-FilePath``, ``-NewName`` (parameter names may be shortened, as PowerShell allows), comma
  lists, single- and double-quoted strings, ``\\`` as a directory separator;
- output redirections ``>``, ``>>``, ``2>``, ``*>`` to a file;
- any other command (``git``, ``sed``, ``touch`` ...) is passed on as it is written.

Not understood, and logged: a statement with a script block, a subexpression or a variable
(``{ ... }``, ``( ... )``, ``$x``), such as ``Get-ChildItem | ForEach-Object { ... }``, and a
file cmdlet that takes its paths from the pipeline. Like the POSIX reader, this only ever
records more than the command touches, never less, for what it understands.

Runs on the hook path: imports nothing.
"""

from __future__ import annotations

# Each file cmdlet (by every name it answers to): what it does, and the parameters that name
# its paths in the order they may also be given by position.
REMOVE, MOVE, COPY, RENAME, WRITE, LOCATION = "rm", "mv", "cp", "ren", "write", "cd"
VERBS = {
    **dict.fromkeys(("remove-item", "rm", "del", "erase", "ri", "rd", "rmdir"), REMOVE),
    **dict.fromkeys(("move-item", "mv", "move", "mi"), MOVE),
    **dict.fromkeys(("copy-item", "cp", "copy", "cpi"), COPY),
    **dict.fromkeys(("rename-item", "ren", "rni"), RENAME),
    **dict.fromkeys(
        (
            "set-content",
            "sc",
            "add-content",
            "ac",
            "clear-content",
            "clc",
            "out-file",
            "new-item",
            "ni",
        ),
        WRITE,
    ),
    **dict.fromkeys(("set-location", "cd", "sl", "chdir", "push-location", "pushd"), LOCATION),
}
PATH_PARAMETERS = {
    REMOVE: ("path", "literalpath"),
    MOVE: ("path", "literalpath", "destination"),
    COPY: ("path", "literalpath", "destination"),
    RENAME: ("path", "literalpath", "newname"),
    WRITE: ("path", "literalpath", "filepath"),
    LOCATION: ("path", "literalpath"),
}
# Positions: the parameters a bare argument stands for, in order (the rest are values).
POSITIONS = {
    REMOVE: ("path",),
    MOVE: ("path", "destination"),
    COPY: ("path", "destination"),
    RENAME: ("path", "newname"),
    WRITE: ("path",),
    LOCATION: ("path",),
}
# Parameters that take no value; any other parameter takes the next argument.
SWITCHES = (
    "recurse",
    "force",
    "whatif",
    "confirm",
    "nonewline",
    "append",
    "passthru",
    "container",
    "noclobber",
    "asbytestream",
    "verbose",
    "debug",
)
SEPARATORS = (";", "\n", "|", "&&", "||")


def posix_equivalent(command: str) -> tuple[str, list[str]]:
    """A POSIX command line changing the same files as ``command``, and what was not
    understood (one line per statement)."""
    lines: list[str] = []
    warnings: list[str] = []
    for statement in _statements(command):
        if not statement.strip():
            continue
        words = _words(statement)
        if words is None:
            warnings.append(f"PowerShell: not understood (nothing recorded): {statement.strip()}")
            continue
        words, redirections = _without_redirections(words)
        lines.extend(f": > {_quoted(target)}" for target in redirections)
        if not words:
            continue
        verb = VERBS.get(words[0].lower())
        if verb is None:
            lines.append(" ".join(_quoted(word) for word in words))
            continue
        translated = _translated(verb, words[1:])
        if translated is None:
            warnings.append(f"PowerShell: {words[0]} without a path it can read (nothing recorded)")
        else:
            lines.append(translated)
    return "\n".join(lines), warnings


def _statements(command: str) -> list[str]:
    """``command`` cut at statement separators outside quotes, without comments."""
    statements, current, quote, i = [], [], "", 0
    while i < len(command):
        char = command[i]
        if quote:
            current.append(char)
            if char == "`" and quote == '"' and i + 1 < len(command):
                current.append(command[i + 1])
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
            current.append(char)
        elif char == "#" and (not current or current[-1] in " \t"):
            while i < len(command) and command[i] != "\n":
                i += 1
            continue
        elif char == "`" and i + 1 < len(command) and command[i + 1] == "\n":
            i += 2  # a line continued
            continue
        elif command.startswith(("&&", "||"), i):
            statements.append("".join(current))
            current = []
            i += 2
            continue
        elif char in ";\n|":
            statements.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    statements.append("".join(current))
    return statements


def _words(statement: str) -> list[str] | None:
    """The statement's words with quotes taken off; None when it holds what this reader does
    not follow (script blocks, subexpressions, variables)."""
    words: list[str] = []
    current: list[str] = []
    started = False
    i = 0
    while i < len(statement):
        char = statement[i]
        if char in " \t\r":
            if started:
                words.append("".join(current))
                current, started = [], False
        elif char == "'":
            end = i + 1
            while True:
                end = statement.find("'", end)
                if end < 0:
                    return None
                if statement.startswith("''", end):
                    end += 2
                    continue
                break
            current.append(statement[i + 1 : end].replace("''", "'"))
            started, i = True, end
        elif char == '"':
            end = i + 1
            text: list[str] = []
            while end < len(statement) and statement[end] != '"':
                if statement[end] == "$":
                    return None
                if statement[end] == "`" and end + 1 < len(statement):
                    end += 1
                text.append(statement[end])
                end += 1
            if end >= len(statement):
                return None
            current.append("".join(text))
            started, i = True, end
        elif char in "{}()$@`":
            return None
        else:
            current.append(char)
            started = True
        i += 1
    if started:
        words.append("".join(current))
    return words


def _without_redirections(words: list[str]) -> tuple[list[str], list[str]]:
    """The words without redirections, and the files those write to."""
    kept: list[str] = []
    targets: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        operator = word.lstrip("0123456789*")
        if operator.startswith(">"):
            target = operator.lstrip(">")
            if not target and index + 1 < len(words):
                index += 1
                target = words[index]
            if target and not target.startswith("&") and target.lower() != "$null":
                targets.append(_path(target))
        else:
            kept.append(word)
        index += 1
    return kept, targets


def _translated(verb: str, arguments: list[str]) -> str | None:
    """The POSIX command for one file cmdlet and its arguments; None without a path."""
    named: dict[str, list[str]] = {}
    positional: list[str] = []
    recurse = False
    arguments = _joined_lists(arguments)
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument.startswith("-") and len(argument) > 1:
            name, _, attached = argument[1:].partition(":")
            full = _parameter(verb, name.lower())
            if full in SWITCHES:  # any other parameter takes a value
                recurse = recurse or full == "recurse"
            else:
                value = attached
                if not attached and index + 1 < len(arguments):
                    index += 1
                    value = arguments[index]
                if full is not None:
                    named.setdefault(full, []).extend(_list(value))
        else:
            positional.append(argument)
        index += 1
    free = [p for p in POSITIONS[verb] if p not in named]
    for parameter, value in zip(free, positional, strict=False):
        named[parameter] = _list(value)
    sources = [*named.get("path", []), *named.get("literalpath", []), *named.get("filepath", [])]
    if not sources:
        return None
    quoted = " ".join(_quoted(_path(source)) for source in sources)
    if verb == REMOVE:
        return f"rm -r -f -- {quoted}"
    if verb == WRITE:
        return " ; ".join(f": > {_quoted(_path(source))}" for source in sources)
    if verb == LOCATION:
        return f"cd {_quoted(_path(sources[0]))}"
    if verb == RENAME:
        new = named.get("newname", [])
        if len(sources) != 1 or len(new) != 1:
            return None
        source = _path(sources[0])
        directory = source.rsplit("/", 1)[0] + "/" if "/" in source else ""
        return f"mv -- {_quoted(source)} {_quoted(directory + _path(new[0]))}"
    destination = named.get("destination", [])
    if len(destination) != 1:
        return None
    option = "-r " if verb == COPY and recurse else ""
    return f"{verb} {option}-- {quoted} {_quoted(_path(destination[0]))}"


def _parameter(verb: str, name: str) -> str | None:
    """The full name of a parameter written ``-NAME`` (PowerShell takes any unambiguous
    prefix): one of the verb's path parameters or a switch; None for any other."""
    known = (*PATH_PARAMETERS[verb], *SWITCHES)
    if name in known:
        return name
    matches = [full for full in known if full.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def _joined_lists(words: list[str]) -> list[str]:
    """Words with comma lists written over several words (``a.txt, b.txt``) made one."""
    joined: list[str] = []
    for word in words:
        if joined and (joined[-1].endswith(",") or word.startswith(",")):
            joined[-1] += word
        else:
            joined.append(word)
    return joined


def _list(value: str) -> list[str]:
    return [part for part in value.split(",") if part]


def _path(word: str) -> str:
    return word.replace("\\", "/")


def _quoted(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"
