"""Which files a shell command may create, overwrite or delete: the quicksave before it runs.

Agents change files through their shell too. Before a command runs, the hook asks
``paths_at_risk(command, cwd, limits)`` and records the state of every path it returns, so a
restore brings them back (a path that does not exist yet is recorded as absent: what the command
creates is deleted again). The command is read, never run.

Understood:

- the shell's structure: ``;``, ``&&``, ``||``, ``|``, ``&``, newlines, comments, subshells
  ``( ... )`` (a ``cd`` inside does not leak out), ``cd``/``pushd``/``popd``, ``VAR=value``
  and ``export`` (later ``$VAR``, ``${VAR}`` and ``~`` are expanded), brace expansion
  (``file{,.bak}``), ``for VAR in WORDS`` (later commands that use ``$VAR`` are read once per
  word), here-documents (their bodies are skipped), ``$( ... )`` and ``<( ... )`` (the commands
  inside are read; the word they make is unknown), ``bash -c``/``sh -c STRING`` and ``eval``;
- prefixes: leading ``VAR=x``, ``env``, ``sudo``, ``doas``, ``command``, ``builtin``, ``exec``,
  ``nohup``, ``time``, ``nice``, ``timeout``, ``stdbuf``, ``ionice``, and the keywords ``if``,
  ``then``, ``do``, ``else``, ``!``, ``{`` ...;
- globs (``*.txt``, ``src/**``), expanded against the file system as the shell would;
- output redirections ``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``>&FILE``, ``<>`` (not
  ``/dev/...``, not fd duplications like ``2>&1``);
- ``rm`` (``-r`` directories expanded to the files inside), ``unlink``, ``shred``; both ends of
  ``mv``, the destination of ``cp`` (``-r`` source directories mirrored into it), ``ln`` and
  ``install`` (``-t DIR`` and ``-T`` too); ``sed -i``/``--in-place`` (and its backup files),
  ``perl -i``, ``gawk -i inplace``; ``tee``, ``truncate``, ``touch``, ``dd of=``, ``chmod``
  (``-R`` expanded; a symlink operand: its target);
- ``find ... -delete`` and ``-exec``/``-execdir``/``-ok``: the files the expression may match
  (``-name``, ``-iname``, ``-path``, ``-type``, ``-maxdepth`` and ``-mindepth`` narrow them when
  the expression has no ``-o``, ``,`` or parentheses); a command it runs that is understood here
  (``rm``, ``sed -i``, ``mv`` ...) is read once per match, any other may change each match (and
  everything under a matching directory);
- git (``-C DIR`` and ``--work-tree`` too): ``checkout`` of paths or with ``-f``/``-m``,
  ``restore`` (not ``--staged`` alone), ``reset --hard``/``--merge``/``--keep``, ``clean``
  (``-x``/``-X`` add ignored files), ``stash`` (push, save, ``-u``, ``-a``; ``pop``/``apply``:
  the stash's files), ``switch -f``/``--discard-changes``/``-m``, ``rm``, ``mv``: every file git
  reports modified, staged or untracked (``rewind.git_status.changed_paths``), within the
  pathspecs; with another commit (``reset --hard REF``, ``checkout REF -- PATH``,
  ``restore -s REF``) also every file that differs from it.

Not understood (nothing is recorded; a warning says so where it matters): the files ``tar x``,
``unzip``, ``patch`` and ``rsync`` write; the file names ``xargs`` reads from its input; paths
that come from ``$( ... )``, backticks, unknown variables, ``read`` or positional parameters;
``cd`` to such a directory (relative paths after it); what programs do by themselves
(``python script.py``, ``npm install``, ``make``); ``sed``'s ``w`` command, ``find -regex``;
``case`` statements and ``for (( ... ))`` (the whole command is then not understood, like one
with unbalanced quotes). The line is read against the file system as it is before it runs:
what an earlier part creates is unknown to a later one (but ``mv``/``cp`` record their
destination even for a source that does not exist yet). Quoting is not remembered, so a
quoted operator (``grep '|' f``) is read as one, and a quoted glob is expanded too (both can
only record more). Paths inside ``.git`` and under ``/dev``, ``/proc`` and ``/sys`` are never
returned.

Expanding directories (``rm -r``, ``chmod -R``, ``cp -r``, ``mv`` of a directory, ``find``, git's
lists of ignored files or of files that differ from a commit) stops at ``limits.max_files``
files or ``limits.max_bytes`` bytes for the whole command, with a warning naming the directory.
Walks never follow symlinks (a symlink is itself a path to record) and skip ``.git``.

This runs on the hook path: it imports only ``os``, ``shlex`` and ``glob`` (and ``stat``, which
``os`` loads; ``subprocess`` once a git command needs it).
"""

from __future__ import annotations

import glob
import os
import shlex
import stat  # loaded by os already

from rewind.config import DEFAULT_QUICKSAVE_MAX_BYTES, DEFAULT_QUICKSAVE_MAX_FILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from rewind.config import Config


class QuicksaveLimits:
    """How much expanding directories may add to the quicksave of one command."""

    __slots__ = ("max_bytes", "max_files")

    def __init__(
        self,
        max_files: int = DEFAULT_QUICKSAVE_MAX_FILES,
        max_bytes: int = DEFAULT_QUICKSAVE_MAX_BYTES,
    ) -> None:
        self.max_files = max_files
        self.max_bytes = max_bytes

    def __repr__(self) -> str:
        return f"QuicksaveLimits(max_files={self.max_files}, max_bytes={self.max_bytes})"


class QuicksavePlan:
    """The absolute paths to record before the command runs, in a stable order."""

    __slots__ = ("paths", "understood", "warnings")

    def __init__(self, paths: list[bytes], understood: bool, warnings: list[str]) -> None:
        self.paths = paths
        self.understood = understood
        self.warnings = warnings

    def __repr__(self) -> str:
        return (
            f"QuicksavePlan(paths={self.paths!r}, understood={self.understood}, "
            f"warnings={self.warnings!r})"
        )


def limits_from(config: Config) -> QuicksaveLimits:
    return QuicksaveLimits(config.quicksave_max_files, config.quicksave_max_bytes)


def paths_at_risk(command: str, cwd: bytes, limits: QuicksaveLimits) -> QuicksavePlan:
    """Every path ``command``, run in ``cwd``, may create, overwrite or delete. Never raises."""
    try:
        sequence = _parse(command)
    except ValueError as error:
        return QuicksavePlan([], False, [f"the command could not be parsed ({error})"])
    except Exception as error:  # never raise on the hook path (RecursionError...)
        return QuicksavePlan([], False, [f"the command could not be parsed ({error!r})"])
    analysis: _Analysis | None = None
    try:
        given = os.fsdecode(cwd)
        directory = os.path.normpath(given if os.path.isabs(given) else os.path.abspath(given))
        analysis = _Analysis(limits, directory)
        analysis.run_sequence(sequence, _Shell(directory))
        paths = [os.fsencode(path) for path in analysis.paths if not _is_directory(path)]
    except Exception as error:  # never raise on the hook path
        message = f"the command could not be analysed ({error!r}); nothing recorded"
        return QuicksavePlan([], False, [*(analysis.warnings if analysis else []), message])
    return QuicksavePlan(paths, True, analysis.warnings)


def _is_directory(path: str) -> bool:
    """An existing directory, not a symlink to one: not recorded (its files are)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


# Reading the command: text -> tokens -> commands ----------------------------------------------

# Marks a word whose value only the running shell knows ($(...), `...`, $UNKNOWN); the text
# that follows the mark is what the command line said.
_DYNAMIC = "\0"
_PUNCTUATION = frozenset("();<>|&")
# Longest first: a run of punctuation characters is split into these.
_OPERATORS = (
    "&>>",
    "<<<",
    "&&",
    "||",
    "|&",
    ">>",
    ">|",
    ">&",
    "<&",
    "&>",
    "<<",
    "<>",
    ">",
    "<",
    "|",
    "&",
    ";",
    "(",
    ")",
)
_OPERATOR_TOKENS = frozenset(_OPERATORS)
_SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&"})
_REDIRECTIONS = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>", "<", "<&", "<<", "<<<"})
_WRITING_REDIRECTIONS = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>"})
_WORD_END = frozenset(" \t\r\n;&|()<>")


class _ParseError(ValueError):
    pass


class _Command:
    """One simple command (``words``) or subshell (``subshell``), with its redirections and
    the command substitutions its words run."""

    __slots__ = ("redirections", "subshell", "substitutions", "words")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.redirections: list[tuple[str, str]] = []
        self.substitutions: list[list[_Command]] = []
        self.subshell: list[_Command] | None = None


def _parse(command: str) -> list[_Command]:
    return _Parser(_tokens(_prepare(command))).sequence(nested=False)


def _prepare(command: str) -> str:
    """The command with what shlex cannot read taken out: comments and here-document bodies
    removed, line continuations joined, and unquoted newlines made ``;``."""
    out: list[str] = []
    heredocs: list[tuple[str, bool]] = []
    quote = ""
    index = 0
    while index < len(command):
        char = command[index]
        if quote == "'":
            quote = "" if char == "'" else quote
            out.append(char)
            index += 1
        elif char == "\\":
            if command.startswith("\\\n", index):
                index += 2  # a line continuation
                continue
            out.append(command[index : index + 2])
            index += 2
        elif quote:
            quote = "" if char == '"' else quote
            out.append(char)
            index += 1
        elif char in "'\"":
            quote = char
            out.append(char)
            index += 1
        elif char == "#" and (index == 0 or command[index - 1] in _WORD_END):
            end = command.find("\n", index)
            index = len(command) if end < 0 else end
        elif char == "\n":
            out.append(" ; ")
            index = _skip_heredoc_bodies(command, index + 1, heredocs)
            heredocs = []
        elif command.startswith("<<", index) and not command.startswith("<<<", index):
            end, delimiter, strip_tabs = _heredoc_delimiter(command, index + 2)
            if delimiter:
                heredocs.append((delimiter, strip_tabs))
            out.append(command[index:end])
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _heredoc_delimiter(command: str, index: int) -> tuple[int, str, bool]:
    """Where the word after ``<<`` ends, the delimiter it names (quotes removed), and whether
    it was ``<<-`` (leading tabs of the body are ignored)."""
    strip_tabs = command.startswith("-", index)
    if strip_tabs:
        index += 1
    while index < len(command) and command[index] in " \t":
        index += 1
    delimiter: list[str] = []
    quote = ""
    while index < len(command):
        char = command[index]
        if quote:
            if char == quote:
                quote = ""
            else:
                delimiter.append(char)
        elif char in "'\"":
            quote = char
        elif char in _WORD_END:
            break
        elif char != "\\":
            delimiter.append(char)
        index += 1
    return index, "".join(delimiter), strip_tabs


def _skip_heredoc_bodies(command: str, index: int, heredocs: list[tuple[str, bool]]) -> int:
    for delimiter, strip_tabs in heredocs:
        while index < len(command):
            end = command.find("\n", index)
            end = len(command) if end < 0 else end
            line = command[index:end].rstrip("\r")
            index = end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return min(index, len(command))


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    tokens: list[str] = []
    for token in lexer:
        if token and all(char in _PUNCTUATION for char in token):
            tokens.extend(_split_operators(token))
        else:
            tokens.append(token)
    return tokens


def _split_operators(run: str) -> list[str]:
    """``&&(`` -> ``&&``, ``(``: shlex returns runs of punctuation as one token."""
    parts: list[str] = []
    index = 0
    while index < len(run):
        operator = next(op for op in _OPERATORS if run.startswith(op, index))
        parts.append(operator)
        index += len(operator)
    return parts


class _Parser:
    __slots__ = ("position", "tokens")

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.position = 0

    def sequence(self, nested: bool) -> list[_Command]:
        """Commands up to the end, or (``nested``) up to the ``)`` that closes them."""
        commands: list[_Command] = []
        while self.position < len(self.tokens):
            token = self.tokens[self.position]
            if token == ")":
                if not nested:
                    raise _ParseError("a ) closes nothing")
                self.position += 1
                return commands
            if token in _SEPARATORS:
                self.position += 1
                continue
            command = _Command()
            if token == "(":
                self.position += 1
                command.subshell = self.sequence(nested=True)
            self.fill(command)
            commands.append(command)
        if nested:
            raise _ParseError("a ( is not closed")
        return commands

    def fill(self, command: _Command) -> None:
        """Reads a simple command's words and redirections (after a subshell: its
        redirections), up to a separator or a ``)`` that is not a word."""
        open_words = 0  # "(" words, as in find \( ... \): their ")" is a word too
        while self.position < len(self.tokens):
            token = self.tokens[self.position]
            if token in _SEPARATORS or (token == ")" and not open_words):
                return
            self.position += 1
            if token in _REDIRECTIONS:
                self.redirection(command, token)
            elif token == "(" and command.words and command.words[-1].endswith("$"):
                command.substitutions.append(self.sequence(nested=True))
                command.words[-1] = _DYNAMIC
            else:
                open_words += {"(": 1, ")": -1}.get(token, 0)
                command.words.append(token)

    def redirection(self, command: _Command, operator: str) -> None:
        if command.words and command.words[-1].isdigit():
            command.words.pop()  # the file descriptor of 2> or 1>>
        if self.position >= len(self.tokens):
            raise _ParseError(f"{operator} is not followed by a file name")
        target = self.tokens[self.position]
        self.position += 1
        if target == "(" and operator in ("<", ">"):  # process substitution <(...), >(...)
            command.substitutions.append(self.sequence(nested=True))
        elif target in _OPERATOR_TOKENS:
            raise _ParseError(f"{operator} is followed by {target}, not a file name")
        else:
            command.redirections.append((operator, target))


# Words: braces, ~, variables, globs -----------------------------------------------------------

_MAX_BRACE_WORDS = 256
_MAX_BRACE_TEXT = 1024  # longer words are left as they are (finding groups is quadratic)
_GLOB_CHARS = frozenset("*?[")


def _is_dynamic(word: str) -> bool:
    return _DYNAMIC in word


def _has_glob(word: str) -> bool:
    return any(char in _GLOB_CHARS for char in word)


def _expand_braces(word: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd``; ``{1..3}``; nested groups; ``${...}`` left alone."""
    group = _brace_group(word)
    if group is None:
        return [word]
    start, end, alternatives = group
    words: list[str] = []
    for alternative in alternatives:
        words.extend(_expand_braces(word[:start] + alternative + word[end + 1 :]))
        if len(words) >= _MAX_BRACE_WORDS:
            return words[:_MAX_BRACE_WORDS]
    return words


def _brace_group(word: str) -> tuple[int, int, list[str]] | None:
    search = 0
    while (start := word.find("{", search)) >= 0:
        search = start + 1
        if start > 0 and word[start - 1] == "$":
            continue
        depth = 0
        pieces: list[str] = []
        piece_start = start + 1
        for index in range(start, len(word)):
            char = word[index]
            if char == "{":
                depth += 1
            elif char == "," and depth == 1:
                pieces.append(word[piece_start:index])
                piece_start = index + 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    if pieces:
                        return start, index, [*pieces, word[piece_start:index]]
                    sequence = _brace_sequence(word[start + 1 : index])
                    if sequence:
                        return start, index, sequence
                    break
        else:
            return None
    return None


def _brace_sequence(inner: str) -> list[str] | None:
    """``1..5`` or ``a..e`` as the list of its items; anything else is not a sequence."""
    first, dots, last = inner.partition("..")
    if not dots:
        return None
    try:
        low, high = int(first), int(last)
    except ValueError:
        if len(first) == 1 == len(last) and first.isalpha() and last.isalpha():
            low, high = ord(first), ord(last)
            step = 1 if high >= low else -1
            return [chr(code) for code in range(low, high + step, step)][:_MAX_BRACE_WORDS]
        return None
    step = 1 if high >= low else -1
    return [str(number) for number in range(low, high + step, step)][:_MAX_BRACE_WORDS]


def _is_identifier(name: str) -> bool:
    return name.isidentifier() and name.isascii()


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and _is_identifier(name)


def _mentions(word: str, name: str) -> bool:
    """Whether ``word`` expands variable ``name`` (``$name`` or ``${name}``)."""
    if "${" + name + "}" in word:
        return True
    search = 0
    while (index := word.find("$" + name, search)) >= 0:
        after = index + 1 + len(name)
        if after == len(word) or not (word[after].isalnum() or word[after] == "_"):
            return True
        search = after
    return False


# The shell being imitated, and the analysis ----------------------------------------------------


class _Shell:
    """What the imitated shell knows: its directory (None once a ``cd`` could not be
    followed), variables set on the command line (None: set to something unknown), and the
    words of ``for`` loops."""

    __slots__ = ("cwd", "loops", "previous", "stack", "variables")

    def __init__(self, cwd: str | None) -> None:
        self.cwd = cwd
        self.previous: str | None = cwd
        self.stack: list[str | None] = []
        self.variables: dict[str, str | None] = {}
        self.loops: dict[str, list[str]] = {}

    def copy(self) -> _Shell:
        other = _Shell(self.cwd)
        other.previous = self.previous
        other.stack = list(self.stack)
        other.variables = dict(self.variables)
        other.loops = dict(self.loops)
        return other

    def variable(self, name: str) -> str | None:
        if name in self.variables:
            return self.variables[name]
        if name in ("PWD", "OLDPWD"):
            return self.cwd if name == "PWD" else self.previous
        return os.environ.get(name)

    def set_variable(self, name: str, value: str | None) -> None:
        self.variables[name] = value
        self.loops.pop(name, None)

    def expand(self, word: str) -> list[str]:
        """The words ``word`` becomes (braces, ``~``, variables); globs are left for the
        command to expand where it takes paths."""
        if _DYNAMIC in word or "`" in word or "$(" in word:
            return [_DYNAMIC + word]  # the text is kept for bash -c
        expandable = (
            "{" in word
            and len(word) <= _MAX_BRACE_TEXT
            and not any(char.isspace() for char in word)
        )
        words = _expand_braces(word) if expandable else [word]
        return [self._variables_in(self._tilde(each)) for each in words]

    def _tilde(self, word: str) -> str:
        if word == "~" or word.startswith("~/"):
            home = self.variable("HOME")
            return _DYNAMIC if home is None else home + word[1:]
        if word.startswith("~"):
            return os.path.expanduser(word)
        return word

    def _variables_in(self, word: str) -> str:
        if "$" not in word:
            return word
        out: list[str] = []
        index = 0
        while index < len(word):
            char = word[index]
            if char != "$" or index + 1 == len(word):
                out.append(char)
                index += 1
                continue
            start = index
            name, index = _variable_name(word, index + 1)
            if name is None:
                out.append("$")
                continue
            value = self.variable(name) if _is_identifier(name) else None
            if value is None or _DYNAMIC in value:
                value = _DYNAMIC + word[start:index]  # the text is kept for bash -c
            out.append(value)
        return "".join(out)


def _variable_name(word: str, index: int) -> tuple[str | None, int]:
    """The name of the variable whose ``$`` is just before ``index``, and where it ends.
    A name that is not a plain identifier (``$1``, ``$@``, ``${X:-y}``) comes back as is, to
    be treated as unknown; None when the ``$`` starts no variable."""
    if word[index] == "{":
        end = word.find("}", index)
        if end < 0:
            return word[index:], len(word)
        return word[index + 1 : end], end + 1
    if word[index] in "@*#?$!-0123456789":
        return word[index], index + 1
    end = index
    while end < len(word) and (word[end].isalnum() or word[end] == "_"):
        end += 1
    if end == index:
        return None, index
    return word[index:end], end


_MAX_SCANNED_ENTRIES = 100_000  # directory entries looked at per command (find filters some out)
_MAX_LOOP_RUNS = 500
_UNSAVED_TREES = ("/dev", "/proc", "/sys")


def _excluded(path: str) -> bool:
    if ".git" in path.split("/"):
        return True
    return any(path == tree or path.startswith(tree + "/") for tree in _UNSAVED_TREES)


def _size_text(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB".replace(".0 MiB", " MiB")


class _Analysis:
    """The paths found so far, the warnings, and what the limits still allow."""

    __slots__ = (
        "bytes_taken",
        "cwd",
        "files_taken",
        "found",
        "limit_reached",
        "limits",
        "scanned",
        "warnings",
    )

    def __init__(self, limits: QuicksaveLimits, cwd: str) -> None:
        self.limits = limits
        self.cwd = cwd
        self.found: dict[str, None] = {}  # an ordered set
        self.warnings: list[str] = []
        self.files_taken = 0
        self.bytes_taken = 0
        self.limit_reached = False
        self.scanned = 0

    @property
    def paths(self) -> list[str]:
        return list(self.found)

    # results ---------------------------------------------------------------------------

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def add(self, path: str) -> None:
        path = os.path.normpath(path)
        if not _excluded(path):
            self.found.setdefault(path, None)

    def add_existing(self, path: str) -> None:
        if os.path.lexists(path):
            self.add(path)

    def take(self, size: int) -> bool:
        """Counts one file found by expansion against the limits; False once they are reached."""
        limits = self.limits
        full = self.files_taken >= limits.max_files
        if full or self.bytes_taken + size > limits.max_bytes or self.limit_reached:
            self.limit_reached = True
            return False
        self.files_taken += 1
        self.bytes_taken += size
        return True

    def warn_limit(self, what: str, taken: int) -> None:
        """The limits stopped the expansion of ``what`` (a directory, or git's list of ...)
        after ``taken`` files."""
        limits = self.limits
        if taken == 0 and self.files_taken:
            self.warn(f"{what}: not expanded, the quicksave limits were reached")
        elif self.files_taken >= limits.max_files:
            self.warn(
                f"{what} has more than {taken} files: recorded the first {taken} "
                f"(quicksave_max_files is {limits.max_files})"
            )
        else:
            self.warn(
                f"{what} has more than {_size_text(limits.max_bytes)} in files: recorded the "
                f"first {taken} files (quicksave_max_bytes is {limits.max_bytes})"
            )

    def shown(self, path: str) -> str:
        """A short name for a warning: relative to the command's directory when inside it,
        with a slash after a directory's name."""
        if path == self.cwd:
            return "./"
        slash = "/" if os.path.isdir(path) and not path.endswith("/") else ""
        if path.startswith(self.cwd.rstrip("/") + "/"):
            path = os.path.relpath(path, self.cwd)
        return path + slash

    # paths from words ----------------------------------------------------------------------

    def resolve(self, word: str, shell: _Shell, context: str) -> str | None:
        """The absolute path ``word`` names (no glob expansion); None, with a warning, when
        only the running shell could tell."""
        if _is_dynamic(word):
            self.warn(f"{context}: a path only the running shell knows was not recorded")
            return None
        if not word:
            return None
        if os.path.isabs(word):
            return os.path.normpath(word)
        if shell.cwd is None:
            self.warn(f"{context}: {word} is relative to a directory only the shell knows")
            return None
        return os.path.normpath(os.path.join(shell.cwd, word))

    def operand_paths(self, word: str, shell: _Shell, context: str) -> list[str]:
        """The paths an operand names: its glob matches (and the literal name, if that
        exists), or the literal name when it has no matches, as the shell passes it on."""
        path = self.resolve(word, shell, context)
        if path is None or not _has_glob(word) or any(char.isspace() for char in word):
            return [] if path is None else [path]
        root = None if os.path.isabs(word) else shell.cwd
        matches = sorted(glob.glob(word, root_dir=root, recursive=True))
        paths = [os.path.normpath(os.path.join(root or "/", match)) for match in matches]
        if not paths or os.path.lexists(path):
            paths.append(path)
        return paths

    def record_created(self, word: str, shell: _Shell, context: str) -> None:
        for path in self.operand_paths(word, shell, context):
            self.add(path)

    def record_changed(self, word: str, shell: _Shell, context: str) -> None:
        for path in self.operand_paths(word, shell, context):
            self.add_existing(path)

    # walking directories ------------------------------------------------------------------

    def record_tree(
        self, directory: str, mirrors: tuple[str, ...] = (), include_files: bool = True
    ) -> None:
        """Records every file and symlink under ``directory`` (and the same relative paths
        under each of ``mirrors``), within the limits."""
        what = f"directory {self.shown(directory)}"
        taken = 0
        for path, size in self.walk(directory, what):
            if include_files and not mirrors and path in self.found:
                continue  # walked before (src/** matches a directory and what is inside it)
            if not self.take(size):
                self.warn_limit(what, taken)
                return
            taken += 1
            if include_files:
                self.add(path)
            if mirrors:
                relative = os.path.relpath(path, directory)
                for mirror in mirrors:
                    self.add(os.path.join(mirror, relative))

    def scan(self, directory: str, what: str) -> list[os.DirEntry[str]]:
        """The entries of ``directory`` sorted by name; none once too many were looked at."""
        if self.scanned > _MAX_SCANNED_ENTRIES:
            return []
        try:
            with os.scandir(directory) as entries:
                found = sorted(entries, key=_entry_name)
        except OSError:
            return []
        self.scanned += len(found)
        if self.scanned > _MAX_SCANNED_ENTRIES:
            self.warn(f"{what}: stopped looking after {_MAX_SCANNED_ENTRIES} entries")
            return []
        return found

    def walk(self, directory: str, what: str) -> Iterator[tuple[str, int]]:
        """Files and symlinks under ``directory`` with their sizes: sorted, depth first,
        symlinks not followed, ``.git`` skipped."""
        pending = [directory]
        while pending:
            subdirectories: list[str] = []
            for entry in self.scan(pending.pop(), what):
                kind, size = _entry_kind(entry)
                if kind == "d":
                    if entry.name != ".git" and entry.path not in _UNSAVED_TREES:
                        subdirectories.append(entry.path)
                elif kind in ("f", "l"):
                    yield entry.path, size
            pending.extend(reversed(subdirectories))

    # running commands -----------------------------------------------------------------------

    def run_sequence(self, sequence: list[_Command], shell: _Shell) -> None:
        for command in sequence:
            self.run_command(command, shell)

    def run_command(self, command: _Command, shell: _Shell) -> None:
        looped = [name for name in shell.loops if _uses(command, name)]
        if looped:
            self.run_loop(command, shell, looped)
            return
        for substitution in command.substitutions:
            self.run_sequence(substitution, shell.copy())
        for operator, target in command.redirections:
            self.redirect(operator, target, shell)
        if command.subshell is not None:
            self.run_sequence(command.subshell, shell.copy())
            return
        words = [word for raw in command.words for word in shell.expand(raw)]
        self.run_words(words, shell)

    def run_loop(self, command: _Command, shell: _Shell, names: list[str]) -> None:
        """A command that uses ``for`` loop variables, read once per combination of values."""
        runs: list[dict[str, str]] = [{}]
        for name in names:
            runs = _combinations(runs, name, shell.loops[name])
        if len(runs) > _MAX_LOOP_RUNS:
            self.warn(f"a loop runs more than {_MAX_LOOP_RUNS} times: read the first ones")
            runs = runs[:_MAX_LOOP_RUNS]
        for run in runs:
            iteration = shell.copy()
            for name, value in run.items():
                iteration.set_variable(name, value)
            self.run_command(command, iteration)

    def redirect(self, operator: str, target: str, shell: _Shell) -> None:
        if operator not in _WRITING_REDIRECTIONS:
            return
        for word in shell.expand(target):
            if operator == ">&" and (word.isdigit() or word == "-"):
                continue  # 2>&1, >&- : a file descriptor, not a file
            path = self.resolve(word, shell, f"{operator} {target}")
            if path is not None:
                self.add(path)

    def run_words(self, words: list[str], shell: _Shell) -> None:
        """A simple command, after expansion."""
        start = 0
        while start < len(words) and _is_assignment(words[start]):
            start += 1
        if start == len(words):
            for word in words:  # NAME=value alone: the shell keeps it
                name, _, value = word.partition("=")
                shell.set_variable(name, None if _is_dynamic(value) else value)
            return
        words = words[start:]
        name = os.path.basename(words[0])
        if name in _KEYWORDS:
            self.run_words(words[1:], shell)
        elif name in _WRAPPERS:
            self.unwrap(name, words[1:], shell)
        elif name in _HANDLERS:
            _HANDLERS[name](self, words[1:], shell)
        elif name in _UNKNOWN_EFFECT:
            self.warn(f"{name}: {_UNKNOWN_EFFECT[name]}")

    # prefixes: env, sudo, time ... ---------------------------------------------------------

    def unwrap(self, name: str, arguments: list[str], shell: _Shell) -> None:
        """``sudo -u x rm f``: the options of the prefix, then the command it runs."""
        takes_value, long_values = _WRAPPERS[name]
        index = 0
        while index < len(arguments):
            argument = arguments[index]
            if name == "env" and _is_assignment(argument):
                index += 1
                continue
            if argument == "--":
                index += 1
                break
            if name in _NO_OPTIONS or not argument.startswith("-") or argument == "-":
                break
            options: dict[str, str] = {}
            index = _one_option(argument, arguments, index + 1, takes_value, long_values, options)
            if name == "command" and _any(options, "-v", "-V"):
                return  # command -v NAME only looks a name up
            directory = _first(options, *_DIRECTORY_OPTIONS.get(name, ()))
            if directory:
                shell = shell.copy()
                cd(self, [directory], shell)
        rest = arguments[index:]
        if name == "timeout":
            rest = rest[1:]  # the duration
        self.run_words(rest, shell)


def _combinations(runs: list[dict[str, str]], name: str, values: list[str]) -> list[dict[str, str]]:
    """Each run with each value of ``name``: no more than one past the limit."""
    combined: list[dict[str, str]] = []
    for run in runs:
        for value in values:
            combined.append({**run, name: value})
            if len(combined) > _MAX_LOOP_RUNS:
                return combined
    return combined


def _entry_name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _entry_kind(entry: os.DirEntry[str]) -> tuple[str, int]:
    """``d`` directory, ``l`` symlink, ``f`` regular file (with its size), ``o`` other."""
    try:
        if entry.is_symlink():
            return "l", 0
        if entry.is_dir(follow_symlinks=False):
            return "d", 0
        if entry.is_file(follow_symlinks=False):
            return "f", entry.stat(follow_symlinks=False).st_size
    except OSError:
        pass
    return "o", 0


def _uses(command: _Command, name: str) -> bool:
    words = [*command.words, *(target for _, target in command.redirections)]
    return any(_mentions(word, name) for word in words)


# Options, the GNU way ------------------------------------------------------------------------


def _split_options(
    arguments: list[str], takes_value: str = "", long_values: tuple[str, ...] = ()
) -> tuple[dict[str, str], list[str]]:
    """GNU-style options (anywhere until ``--``): ``{"-r": "", "-t": DIR, "--force": ""}``
    and the operands. ``takes_value`` are the short options that take a value."""
    options: dict[str, str] = {}
    operands: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument == "--":
            operands.extend(arguments[index:])
            break
        if argument.startswith("-") and len(argument) > 1 and not _is_dynamic(argument):
            index = _one_option(argument, arguments, index, takes_value, long_values, options)
        else:
            operands.append(argument)
    return options, operands


def _one_option(
    argument: str,
    arguments: list[str],
    index: int,
    takes_value: str,
    long_values: tuple[str, ...],
    options: dict[str, str],
) -> int:
    """Reads the option ``argument`` (and its value, from ``arguments[index]`` if separate)
    into ``options``; returns the index of the next argument."""
    if not argument.startswith("--"):
        return _short_options(argument, arguments, index, takes_value, options)
    name, equals, value = argument.partition("=")
    if not equals and name in long_values and index < len(arguments):
        value = arguments[index]
        index += 1
    options[name] = value
    return index


def _short_options(
    cluster: str, arguments: list[str], index: int, takes_value: str, options: dict[str, str]
) -> int:
    for position in range(1, len(cluster)):
        letter = cluster[position]
        if letter in takes_value:
            value = cluster[position + 1 :]
            if not value and index < len(arguments):
                value = arguments[index]
                index += 1
            options["-" + letter] = value
            return index
        options["-" + letter] = ""
    return index


def _any(options: dict[str, str], *names: str) -> bool:
    return any(name in options for name in names)


def _first(options: dict[str, str], *names: str) -> str | None:
    for name in names:
        if name in options:
            return options[name]
    return None


# Command handlers ---------------------------------------------------------------------------


def cd(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    operands = [argument for argument in arguments if argument not in ("-L", "-P", "-e", "--")]
    if not operands:
        target = shell.variable("HOME")
    elif operands[0] == "-":
        target = shell.previous
    else:
        target = operands[0]
    previous = shell.cwd
    if target is None or _is_dynamic(target) or (shell.cwd is None and not target.startswith("/")):
        shell.cwd = None
        analysis.warn(
            "cd: to a directory only the running shell knows; relative paths after it "
            "were not recorded"
        )
    else:
        shell.cwd = os.path.normpath(os.path.join(shell.cwd or "/", target))
    shell.previous = previous


def pushd(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    shell.stack.append(shell.cwd)
    cd(analysis, arguments, shell)


def popd(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    if shell.stack:
        shell.previous, shell.cwd = shell.cwd, shell.stack.pop()


def declare(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """``export NAME=value`` (and declare, local ...): the shell keeps the value."""
    for argument in arguments:
        if _is_assignment(argument):
            name, _, value = argument.partition("=")
            shell.set_variable(name, None if _is_dynamic(value) else value)


def unset(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    for name in arguments:
        if _is_identifier(name):
            shell.set_variable(name, "")


def for_loop(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """``for NAME in WORDS``: later commands that use ``$NAME`` are read once per word."""
    if len(arguments) < 2 or arguments[1] != "in" or not _is_identifier(arguments[0]):
        if arguments and _is_identifier(arguments[0]):
            shell.set_variable(arguments[0], None)
        return
    values: list[str] = []
    for word in arguments[2:]:
        if _is_dynamic(word):
            shell.set_variable(arguments[0], None)
            return
        if _has_glob(word) and shell.cwd is not None and not any(c.isspace() for c in word):
            root = None if os.path.isabs(word) else shell.cwd
            values.extend(sorted(glob.glob(word, root_dir=root)) or [word])
        else:
            values.append(word)
    shell.variables.pop(arguments[0], None)
    shell.loops[arguments[0]] = values


def shell_string(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """``bash -c STRING``: the string is read as a command line of its own."""
    for index, argument in enumerate(arguments):
        if argument == "-c" or (
            argument.startswith("-") and not argument.startswith("--") and "c" in argument
        ):
            if index + 1 < len(arguments):
                run_text(analysis, arguments[index + 1], shell.copy(), "bash -c")
            return
        if not argument.startswith(("-", "+")):
            return  # bash script.sh: not read


def eval_words(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    run_text(analysis, " ".join(arguments), shell, "eval")


def run_text(analysis: _Analysis, text: str, shell: _Shell, context: str) -> None:
    """A command line given as a string; what the outer shell could not expand (``$f``) is
    read as written, as the inner shell would see it if it knows more."""
    text = text.replace(_DYNAMIC, "")
    try:
        sequence = _parse(text)
    except ValueError as error:
        analysis.warn(f"{context}: the command could not be parsed ({error})")
        return
    analysis.run_sequence(sequence, shell)


def xargs(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """The file names come from standard input: not known; say so for commands that write."""
    command = _after_options(arguments, "adEILnPs")
    name = os.path.basename(command[0]) if command else ""
    if name in _FILE_COMMANDS:
        analysis.warn(f"xargs {name}: the files come from standard input and were not recorded")


def _after_options(arguments: list[str], takes_value: str) -> list[str]:
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


def rm(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    options, operands = _split_options(arguments)
    recursive = _any(options, "-r", "-R", "--recursive")
    for operand in operands:
        for path in analysis.operand_paths(operand, shell, "rm"):
            remove(analysis, path, recursive, through_link=operand.endswith("/"))


def remove(analysis: _Analysis, path: str, recursive: bool, through_link: bool) -> None:
    """``rm`` of one path: a directory only with ``-r`` (``dir/`` goes through a symlink)."""
    if os.path.isdir(path) and (through_link or not os.path.islink(path)):
        if recursive:
            analysis.record_tree(path)
        return
    analysis.add_existing(path)


def unlink(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    _, operands = _split_options(arguments)
    for operand in operands:
        for path in analysis.operand_paths(operand, shell, "unlink"):
            analysis.add_existing(path)


def shred(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    _, operands = _split_options(arguments, "ns", ("--iterations", "--size", "--random-source"))
    for operand in operands:
        analysis.record_changed(operand, shell, "shred")


_COPY_VALUES = ("--target-directory", "--suffix")


def mv(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    options, operands = _split_options(arguments, "tS", _COPY_VALUES)
    transfer(analysis, options, operands, shell, "mv", move=True, recursive=True)


def cp(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    options, operands = _split_options(arguments, "tS", _COPY_VALUES)
    recursive = _any(options, "-r", "-R", "--recursive", "-a", "--archive")
    transfer(analysis, options, operands, shell, "cp", move=False, recursive=recursive)


def install(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    values = ("--target-directory", "--suffix", "--mode", "--owner", "--group", "--strip-program")
    options, operands = _split_options(arguments, "tSmog", values)
    if not _any(options, "-d", "--directory"):
        transfer(analysis, options, operands, shell, "install", move=False, recursive=False)


def transfer(
    analysis: _Analysis,
    options: dict[str, str],
    operands: list[str],
    shell: _Shell,
    context: str,
    move: bool,
    recursive: bool,
) -> None:
    """Both ends of ``mv``, the destination of ``cp``/``install``: ``SRC... DEST``,
    ``-t DIR SRC...``, ``-T SRC DEST``; into ``DEST`` when it is a directory."""
    target_option = _first(options, "-t", "--target-directory")
    if target_option is not None:
        target_word, sources = target_option, operands
    elif len(operands) >= 2:
        target_word, sources = operands[-1], operands[:-1]
    else:
        return
    target = analysis.resolve(target_word, shell, context)
    if target is None:
        return
    into = not _any(options, "-T", "--no-target-directory") and (
        target_option is not None or os.path.isdir(target)
    )
    for word in sources:
        # A source that does not exist yet may be made earlier on the line (jq ... > tmp &&
        # mv tmp config): its destination is at risk all the same.
        for source in analysis.operand_paths(word, shell, context):
            destination = os.path.join(target, os.path.basename(source)) if into else target
            if os.path.isdir(source) and not os.path.islink(source):
                if recursive:
                    analysis.record_tree(source, (destination,), include_files=move)
                continue
            if move:
                analysis.add(source)
            analysis.add(destination)


def ln(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """The link paths ``ln`` creates or replaces."""
    options, operands = _split_options(arguments, "tS", _COPY_VALUES)
    directory = _first(options, "-t", "--target-directory")
    targets = operands
    if directory is None:
        if len(operands) == 1:
            directory = "."
        elif len(operands) >= 2:
            last = analysis.resolve(operands[-1], shell, "ln")
            no_dereference = _any(options, "-n", "--no-dereference") and last is not None
            into = (
                last is not None
                and not _any(options, "-T", "--no-target-directory")
                and os.path.isdir(last)
                and not (no_dereference and os.path.islink(last))
            )
            if not into:
                analysis.record_created(operands[-1], shell, "ln")
                return
            directory, targets = operands[-1], operands[:-1]
        else:
            return
    for target in targets:
        if not _is_dynamic(target):
            name = os.path.basename(target.rstrip("/"))
            analysis.record_created(os.path.join(directory, name), shell, "ln")


def sed(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """``sed -i[SUFFIX]``/``--in-place[=SUFFIX]``: the file operands, and their backups."""
    in_place: str | None = None  # the backup suffix
    script_given = follow_links = False
    operands: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument == "--":
            operands.extend(arguments[index:])
            break
        if argument.startswith("--"):
            name, equals, value = argument.partition("=")
            if name == "--in-place":
                in_place = value
            elif name in ("--expression", "--file", "--line-length"):
                script_given = script_given or name != "--line-length"
                index += 0 if equals else 1
            follow_links = follow_links or name == "--follow-symlinks"
        elif argument.startswith("-") and len(argument) > 1:
            for position in range(1, len(argument)):
                letter = argument[position]
                if letter == "i":
                    in_place = argument[position + 1 :]
                    break
                if letter in "efl":
                    script_given = script_given or letter != "l"
                    index += 0 if argument[position + 1 :] else 1
                    break
        else:
            operands.append(argument)
    if in_place is None:
        return
    files = operands if script_given else operands[1:]
    edit_in_place(analysis, files, shell, "sed -i", in_place, follow_links)


def edit_in_place(
    analysis: _Analysis,
    files: list[str],
    shell: _Shell,
    context: str,
    backup_suffix: str,
    follow_links: bool = False,
) -> None:
    """Files rewritten in place: each one, its backup (``SUFFIX``, ``*`` standing for the
    name), and with ``follow_links`` the file a symlink points to."""
    for word in files:
        for path in analysis.operand_paths(word, shell, context):
            if not os.path.isfile(path):
                continue
            analysis.add(path)
            if follow_links and os.path.islink(path):
                analysis.add(os.path.realpath(path))
            if backup_suffix:
                name = os.path.basename(path)
                if "*" in backup_suffix:
                    backup = backup_suffix.replace("*", name)
                else:
                    backup = name + backup_suffix
                analysis.add(os.path.join(os.path.dirname(path), backup))


def perl(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """``perl -i[EXT] -pe CODE FILES`` (``-pi``, ``-i.bak``): the files."""
    in_place: str | None = None
    code_given = False
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "--":
            index += 1
            break
        if not argument.startswith("-") or argument == "-":
            break
        index += 1
        for position in range(1, len(argument)):
            letter = argument[position]
            rest = argument[position + 1 :]
            if letter == "i":
                in_place = rest
                break
            if letter in "eE":
                code_given = True
            if letter in "eEIMmFCdDlx0":
                if not rest and letter in "eEI":
                    index += 1
                break
    if in_place is None:
        return
    files = arguments[index:] if code_given else arguments[index + 1 :]
    edit_in_place(analysis, files, shell, "perl -i", in_place)


def awk(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """``gawk -i inplace PROGRAM FILES``: the files (``VAR=value`` operands are not files)."""
    values = ("--file", "--assign", "--field-separator", "--include", "--load", "--source")
    options, operands = _split_options(arguments, "fvFilEe", values)
    if _first(options, "-i", "--include") not in ("inplace", "inplace.awk"):
        return
    program_given = _any(options, "-f", "--file", "-e", "--source", "-E", "--exec")
    files = operands if program_given else operands[1:]
    files = [word for word in files if not _is_assignment(word)]
    edit_in_place(analysis, files, shell, "awk -i inplace", "")


def tee(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    _, operands = _split_options(arguments)
    for operand in operands:
        analysis.record_created(operand, shell, "tee")


def truncate(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    options, operands = _split_options(arguments, "sr", ("--size", "--reference"))
    no_create = _any(options, "-c", "--no-create")
    for operand in operands:
        if no_create:
            analysis.record_changed(operand, shell, "truncate")
        else:
            analysis.record_created(operand, shell, "truncate")


def touch(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """The operands that do not exist yet (touching an existing file changes only its times)."""
    options, operands = _split_options(arguments, "dtrA", ("--date", "--reference", "--time"))
    if _any(options, "-c", "--no-create"):
        return
    for operand in operands:
        for path in analysis.operand_paths(operand, shell, "touch"):
            if not os.path.lexists(path):
                analysis.add(path)


def dd(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    for argument in arguments:
        if argument.startswith("of="):
            path = analysis.resolve(argument[3:], shell, "dd")
            if path is not None:
                analysis.add(path)


_CHMOD_FLAGS = frozenset(
    {"-c", "-f", "-v", "--changes", "--silent", "--quiet", "--verbose", "--preserve-root"}
    | {"--no-preserve-root"}
)
_MODE_CHARS = frozenset("rwxXstugoa+-=,01234567")


def chmod(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    """``chmod [-R] MODE FILES`` (a mode may look like an option: ``chmod -x f``)."""
    recursive = False
    mode_seen = any(argument.startswith("--reference") for argument in arguments)
    files: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument == "--":
            files.extend(arguments[index:] if mode_seen else arguments[index + 1 :])
            break
        if argument in ("-R", "--recursive"):
            recursive = True
        elif argument == "--reference":
            index += 1
        elif argument in _CHMOD_FLAGS or argument.startswith("--reference="):
            pass
        elif argument.startswith("-") and all(char in "Rcfv" for char in argument[1:]):
            recursive = recursive or "R" in argument
        elif not mode_seen and (
            not argument.startswith("-") or all(char in _MODE_CHARS for char in argument[1:])
        ):
            mode_seen = True
        else:
            files.append(argument)
    for word in files:
        for path in analysis.operand_paths(word, shell, "chmod"):
            change_mode(analysis, path, recursive)


def change_mode(analysis: _Analysis, path: str, recursive: bool) -> None:
    if os.path.islink(path):
        target = os.path.realpath(path)  # chmod changes what a named symlink points to
        if os.path.isfile(target):
            analysis.add(target)
    elif os.path.isdir(path):
        if recursive:
            analysis.record_tree(path)
    else:
        analysis.add_existing(path)


def tar(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    old_style = bool(arguments) and not arguments[0].startswith("-") and "x" in arguments[0]
    extracts = old_style or any(
        argument in ("--extract", "--get")
        or (argument.startswith("-") and not argument.startswith("--") and "x" in argument)
        for argument in arguments
    )
    if extracts:
        analysis.warn("tar x: the files it extracts are not known and were not recorded")


def unzip(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    listing = any(argument in ("-l", "-t", "-v", "-Z", "-p", "-z") for argument in arguments)
    if not listing:
        analysis.warn("unzip: the files it extracts are not known and were not recorded")


# find ----------------------------------------------------------------------------------------


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FIND_ONE_VALUE = _names(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size "
    "-perm -user -group -uid -gid -newer -anewer -cnewer -mtime -atime -ctime -mmin "
    "-amin -cmin -maxdepth -mindepth -links -inum -samefile -lname -ilname -fstype -used "
    "-printf -context -regextype -files0-from -fprint -fprint0 -fls -newerXY"
)
_FIND_OUTPUTS = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})
_FIND_EXECS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_NOT_CONJUNCTION = frozenset({"-o", "-or", ",", "(", ")"})


class _FindExpression:
    """What a find expression does (``-delete``, the commands it runs, the files it writes)
    and, when it is a plain conjunction, the tests that narrow what it matches."""

    def __init__(self) -> None:
        self.delete = False
        self.execs: list[tuple[str, list[str]]] = []
        self.outputs: list[str] = []
        self.narrowing = True
        self.names: list[tuple[str, bool]] = []  # pattern, ignoring case
        self.paths: list[tuple[str, bool]] = []
        self.types: set[str] | None = None
        self.max_depth = 1 << 30
        self.min_depth = 0

    def read(self, expression: list[str]) -> None:
        negated = False
        index = 0
        while index < len(expression):
            word = expression[index]
            index += 1
            if word in _FIND_EXECS:
                end = _exec_end(expression, index)
                self.execs.append((word, expression[index:end]))
                index = end + 1
            elif word == "-delete":
                self.delete = True
            elif word in _FIND_OUTPUTS and index < len(expression):
                self.outputs.append(expression[index])
                index += 2 if word == "-fprintf" else 1
            elif word in _FIND_ONE_VALUE or word.startswith("-newer"):
                if index < len(expression) and not negated:
                    self.narrow(word, expression[index])
                index += 1
            elif word in _FIND_NOT_CONJUNCTION:
                self.narrowing = False
            negated = word in ("!", "-not")

    def narrow(self, test: str, value: str) -> None:
        if test in ("-name", "-iname"):
            self.names.append((value, test == "-iname"))
        elif test in ("-path", "-ipath", "-wholename", "-iwholename"):
            self.paths.append((value, test.startswith("-i")))
        elif test == "-type":
            types = set(value.split(","))
            self.types = types if self.types is None else self.types & types
        elif test in ("-maxdepth", "-mindepth") and value.isdigit():
            if test == "-maxdepth":
                self.max_depth = int(value)
            else:
                self.min_depth = int(value)

    def matches(self, shown_path: str, kind: str, depth: int) -> bool:
        import fnmatch  # already loaded by glob

        if depth < self.min_depth or depth > self.max_depth:
            return False
        if not self.narrowing:
            return True
        if self.types is not None and kind not in self.types:
            return False
        name = os.path.basename(shown_path) or shown_path
        for subject, patterns in ((name, self.names), (shown_path, self.paths)):
            for pattern, ignore_case in patterns:
                if ignore_case:
                    subject, pattern = subject.lower(), pattern.lower()
                if not fnmatch.fnmatchcase(subject, pattern):
                    return False
        return True


def _exec_end(expression: list[str], index: int) -> int:
    """Where the command of ``-exec`` ends: at ``;``, or ``+`` right after ``{}`` (a ``\\;``
    the shell split the command at leaves it running to the end)."""
    for end in range(index, len(expression)):
        word = expression[end]
        if word == ";" or (word == "+" and end > index and expression[end - 1] == "{}"):
            return end
    return len(expression)


def find(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    index = 0
    while index < len(arguments) and arguments[index] in ("-H", "-L", "-P", "-D", "-O"):
        index += 2 if arguments[index] == "-D" else 1
    starts: list[str] = []
    while index < len(arguments) and not arguments[index].startswith(("-", "(", "!", ")", ",")):
        starts.append(arguments[index])
        index += 1
    expression = _FindExpression()
    expression.read(arguments[index:])
    for output in expression.outputs:
        analysis.record_created(output, shell, "find")
    if not expression.delete and not expression.execs:
        return
    for start in starts or ["."]:
        for path in analysis.operand_paths(start, shell, "find"):
            find_under(analysis, path, _as_find_shows(start, path, shell), expression, shell)


def _as_find_shows(word: str, path: str, shell: _Shell) -> str:
    """The starting point as find gets it (``-path`` patterns are matched against it)."""
    if not _has_glob(word):
        return word
    return path if os.path.isabs(word) or shell.cwd is None else os.path.relpath(path, shell.cwd)


def find_under(
    analysis: _Analysis, start: str, shown_start: str, expression: _FindExpression, shell: _Shell
) -> None:
    """Every entry under ``start`` that ``expression`` may match, and what it does to it."""
    what = f"directory {analysis.shown(start)}"
    covered: set[str] = set()  # matched directories a command we cannot read is run on
    prefix = len(start.rstrip("/")) + 1
    taken = 0
    for path, kind, size, depth in _find_entries(analysis, start, expression.max_depth, what):
        inside = os.path.dirname(path) in covered
        if inside and kind == "d":
            covered.add(path)
            continue
        shown = shown_start if path == start else os.path.join(shown_start, path[prefix:])
        if not inside and not expression.matches(shown, kind, depth):
            continue
        if kind == "d" and not expression.execs:
            continue  # -delete removes an empty directory only: nothing to record
        if not analysis.take(size):
            analysis.warn_limit(what, taken)
            return
        taken += 1
        if inside or (expression.delete and kind != "d"):
            analysis.add(path)
        if not inside:
            for action, words in expression.execs:
                find_exec(analysis, path, kind, action, words, shell, covered)


def _find_entries(
    analysis: _Analysis, start: str, max_depth: int, what: str
) -> Iterator[tuple[str, str, int, int]]:
    """``start`` and everything under it: path, kind (``d``/``l``/``f``/``o``), size, depth."""
    try:
        info = os.lstat(start)
    except OSError:
        return
    is_dir = stat.S_ISDIR(info.st_mode)
    kind = "d" if is_dir else "l" if stat.S_ISLNK(info.st_mode) else "f"
    yield start, kind, info.st_size if kind == "f" else 0, 0
    pending = [(start, 0)] if is_dir else []
    while pending:
        directory, depth = pending.pop()
        if depth >= max_depth:
            continue
        subdirectories: list[tuple[str, int]] = []
        for entry in analysis.scan(directory, what):
            kind, size = _entry_kind(entry)
            if entry.name == ".git" or entry.path in _UNSAVED_TREES:
                continue
            yield entry.path, kind, size, depth + 1
            if kind == "d":
                subdirectories.append((entry.path, depth + 1))
        pending.extend(reversed(subdirectories))


def find_exec(
    analysis: _Analysis,
    path: str,
    kind: str,
    action: str,
    words: list[str],
    shell: _Shell,
    covered: set[str],
) -> None:
    """``-exec COMMAND {}`` on one match: a command read here is read with the match in place
    of ``{}``; any other may change the match and everything under it."""
    name = os.path.basename(words[0]) if words else ""
    if name in _READ_ONLY:
        return
    if name not in _FILE_COMMANDS:
        if kind == "d":
            covered.add(path)
        else:
            analysis.add(path)
        return
    exec_shell = shell.copy()
    replacement = path
    if action.endswith("dir"):
        exec_shell.cwd = os.path.dirname(path)
        replacement = "./" + os.path.basename(path)
    analysis.run_words([word.replace("{}", replacement) for word in words], exec_shell)


# git -------------------------------------------------------------------------------------------


class _GitRisk:
    """What a git command may overwrite: git's changed files (when ``changed``) within
    ``scope`` (absolute pathspecs; None: the whole work tree), the files that differ from
    ``ref``, the files of ``stash``, and (``ignored``) the ignored files."""

    __slots__ = ("changed", "ignored", "ref", "scope", "stash")

    def __init__(
        self,
        scope: list[str] | None = None,
        ref: str | None = None,
        ignored: bool = False,
        stash: str | None = None,
        changed: bool = True,
    ) -> None:
        self.changed = changed
        self.scope = scope
        self.ref = ref
        self.ignored = ignored
        self.stash = stash


_GIT_GLOBAL_VALUES = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)


def git(analysis: _Analysis, arguments: list[str], shell: _Shell) -> None:
    directory = shell.cwd
    work_tree: str | None = None
    index = 0
    while index < len(arguments) and arguments[index].startswith("-"):
        option, equals, value = arguments[index].partition("=")
        index += 1
        if option in _GIT_GLOBAL_VALUES and not equals:
            if index >= len(arguments):
                return
            value = arguments[index]
            index += 1
        if option == "-C":
            directory = _directory_under(directory, value)
        elif option == "--work-tree":
            work_tree = _directory_under(directory, value)
        elif option == "--git-dir":
            analysis.warn("git --git-dir: not read; nothing recorded for it")
            return
    if index >= len(arguments):
        return
    subcommand, rest = arguments[index], arguments[index + 1 :]
    if subcommand not in _GIT_SUBCOMMANDS:
        return
    if directory is None:
        analysis.warn(f"git {subcommand}: run in a directory only the shell knows; not recorded")
        return
    top = work_tree or _repository_top(directory)
    if top is None:
        return
    git_shell = shell.copy()
    git_shell.cwd = directory
    risk = _GIT_SUBCOMMANDS[subcommand](analysis, rest, git_shell)
    if risk is not None:
        record_git_risk(analysis, top, risk, f"git {subcommand}")


def _directory_under(directory: str | None, value: str) -> str | None:
    if _is_dynamic(value):
        return None
    if os.path.isabs(value):
        return os.path.normpath(value)
    return None if directory is None else os.path.normpath(os.path.join(directory, value))


def _repository_top(directory: str) -> str | None:
    """The nearest directory, going up, that holds a ``.git`` entry."""
    current = os.path.realpath(directory)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _pathspecs(words: list[str], shell: _Shell) -> list[str] | None:
    """Absolute pathspecs, symlinks resolved as in git's paths; None (the whole work tree)
    for magic (``:/``, ``:!x``) or paths only the running shell knows."""
    if shell.cwd is None:
        return None
    base = os.path.realpath(shell.cwd)
    scope: list[str] = []
    for word in words:
        if _is_dynamic(word) or word.startswith(":"):
            return None
        scope.append(os.path.normpath(os.path.join(base, word)))
    return scope


def _in_scope(path: str, scope: list[str] | None) -> bool:
    if scope is None:
        return True
    import fnmatch  # already loaded by glob

    for pattern in scope:
        if path == pattern or path.startswith(pattern.rstrip("/") + "/"):
            return True
        if _has_glob(pattern) and fnmatch.fnmatchcase(path, pattern):
            return True
    return False


def git_checkout(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    options, operands, after_dashes = _git_options(
        arguments, "bBU", ("--orphan", "--conflict", "--pathspec-from-file")
    )
    if after_dashes is not None:
        ref = operands[0] if operands else None
        paths = after_dashes
    elif operands and not _names_paths(operands[0], shell):
        ref, paths = operands[0], operands[1:]
    else:
        ref, paths = None, operands
    if paths or "--pathspec-from-file" in options:
        scope = None if "--pathspec-from-file" in options else _pathspecs(paths, shell)
        return _GitRisk(scope, ref)
    if _any(options, "-f", "--force", "-m", "--merge", "-p", "--patch"):
        return _GitRisk(None, ref)
    return None  # a branch switch: git refuses to overwrite local changes


def _names_paths(word: str, shell: _Shell) -> bool:
    """Whether ``git checkout WORD`` names paths (not a branch or commit)."""
    if _is_dynamic(word) or word.startswith(":") or _has_glob(word) or shell.cwd is None:
        return True
    return os.path.lexists(os.path.join(shell.cwd, word))


def _git_options(
    arguments: list[str], takes_value: str, long_values: tuple[str, ...]
) -> tuple[dict[str, str], list[str], list[str] | None]:
    """Options, the operands before ``--``, and those after it (None: there is no ``--``)."""
    if "--" in arguments:
        split = arguments.index("--")
        options, operands = _split_options(arguments[:split], takes_value, long_values)
        return options, operands, arguments[split + 1 :]
    options, operands = _split_options(arguments, takes_value, long_values)
    return options, operands, None


def git_restore(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    options, operands, after = _git_options(
        arguments, "s", ("--source", "--conflict", "--pathspec-from-file")
    )
    if _any(options, "-S", "--staged") and not _any(options, "-W", "--worktree"):
        return None  # the index only
    paths = operands + (after or [])
    whole = not paths or "--pathspec-from-file" in options
    return _GitRisk(None if whole else _pathspecs(paths, shell), _first(options, "-s", "--source"))


def git_reset(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    options, operands, _ = _git_options(arguments, "", ("--pathspec-from-file",))
    if not _any(options, "--hard", "--merge", "--keep"):
        return None  # --soft, --mixed: the index only
    return _GitRisk(None, operands[0] if operands else None)


def git_clean(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    options, operands, after = _git_options(arguments, "e", ("--exclude",))
    if _any(options, "-n", "--dry-run"):
        return None
    paths = operands + (after or [])
    return _GitRisk(_pathspecs(paths, shell) if paths else None, ignored=_any(options, "-x", "-X"))


def git_stash(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    action = arguments[0] if arguments and not arguments[0].startswith("-") else "push"
    rest = arguments[1:] if arguments and arguments[0] == action else arguments
    if action in ("pop", "apply"):
        _, operands = _split_options(rest)
        return _GitRisk(stash=operands[0] if operands else "stash@{0}", changed=False)
    if action not in ("push", "save"):
        return None  # list, show, drop, clear, branch, create, store
    options, operands, after = _git_options(rest, "m", ("--message", "--pathspec-from-file"))
    paths = (operands if action == "push" else []) + (after or [])
    scope = _pathspecs(paths, shell) if paths else None
    return _GitRisk(scope, ignored=_any(options, "-a", "--all"))


def git_switch(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    options, operands, _ = _git_options(arguments, "cC", ("--orphan", "--conflict"))
    if not _any(options, "-f", "--force", "--discard-changes", "-m", "--merge"):
        return None
    return _GitRisk(None, operands[0] if operands else None)


def git_rm(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    options, operands, after = _git_options(arguments, "", ("--pathspec-from-file",))
    if not _any(options, "--cached", "-n", "--dry-run"):
        recursive = ["-r"] if "-r" in options else []
        rm(analysis, [*recursive, "--", *operands, *(after or [])], shell)
    return None


def git_mv(analysis: _Analysis, arguments: list[str], shell: _Shell) -> _GitRisk | None:
    options, operands, after = _git_options(arguments, "", ())
    if not _any(options, "-n", "--dry-run"):
        mv(analysis, ["--", *operands, *(after or [])], shell)
    return None


def record_git_risk(analysis: _Analysis, top: str, risk: _GitRisk, context: str) -> None:
    from rewind.errors import UserError
    from rewind.git_status import changed_paths

    if risk.changed:
        try:
            changed = changed_paths(os.fsencode(top))
        except UserError as error:
            analysis.warn(f"{context}: {error}")
            return
        for name in changed:
            path = os.path.join(top, os.fsdecode(name))
            if _in_scope(path, risk.scope):
                analysis.add(path)
    listed: list[tuple[str, list[str]]] = []
    if risk.ref is not None and risk.ref != "HEAD" and not _is_dynamic(risk.ref):
        arguments = ["diff", "--name-only", "-z", "--no-renames", risk.ref, "--"]
        listed.append((f"{context}: the files that differ from {risk.ref}", arguments))
    if risk.stash is not None and not _is_dynamic(risk.stash):
        arguments = ["stash", "show", "--name-only", "-z", "--include-untracked", risk.stash]
        listed.append((f"{context}: the files of {risk.stash}", arguments))
    for what, arguments in listed:
        names = _null_separated(_git_output(top, arguments))
        record_listed(analysis, top, names, risk.scope, what)
    if risk.ignored:
        ignored = _ignored_names(_git_output(top, [*_STATUS, "--ignored"]))
        record_listed(analysis, top, ignored, risk.scope, f"{context}: the ignored files")


_STATUS = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all"]


def record_listed(
    analysis: _Analysis, top: str, names: list[str], scope: list[str] | None, what: str
) -> None:
    """Paths git listed (relative to ``top``), counted against the limits."""
    taken = 0
    for name in names:
        path = os.path.join(top, name)
        if not _in_scope(path, scope):
            continue
        if name.endswith("/"):
            analysis.record_tree(path.rstrip("/"))
            continue
        try:
            size = os.lstat(path).st_size
        except OSError:
            size = 0
        if not analysis.take(size):
            analysis.warn_limit(what, taken)
            return
        taken += 1
        analysis.add(path)


def _ignored_names(status: bytes | None) -> list[str]:
    """The ignored paths (``!! path``) of ``git status --porcelain=v1 -z --ignored``."""
    names: list[str] = []
    fields = _null_separated(status)
    index = 0
    while index < len(fields):
        field = fields[index]
        index += 1
        if field.startswith("!! "):
            names.append(field[3:])
        elif "R" in field[:2] or "C" in field[:2]:
            index += 1  # a rename's or copy's original name
    return names


def _null_separated(output: bytes | None) -> list[str]:
    if not output:
        return []
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def _git_output(top: str, arguments: list[str]) -> bytes | None:
    """What ``git ARGUMENTS`` prints in ``top``, asked read-only; None if it fails."""
    import subprocess

    environment = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        completed = subprocess.run(
            ["git", "--no-optional-locks", *arguments],
            cwd=top,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return completed.stdout if completed.returncode == 0 else None


# Tables ---------------------------------------------------------------------------------------

_HANDLERS: dict[str, Callable[[_Analysis, list[str], _Shell], None]] = {
    "rm": rm,
    "unlink": unlink,
    "shred": shred,
    "mv": mv,
    "cp": cp,
    "ln": ln,
    "install": install,
    "sed": sed,
    "gsed": sed,
    "perl": perl,
    "awk": awk,
    "gawk": awk,
    "tee": tee,
    "truncate": truncate,
    "touch": touch,
    "dd": dd,
    "chmod": chmod,
    "find": find,
    "git": git,
    "tar": tar,
    "unzip": unzip,
    "xargs": xargs,
    "cd": cd,
    "pushd": pushd,
    "popd": popd,
    "export": declare,
    "declare": declare,
    "typeset": declare,
    "local": declare,
    "readonly": declare,
    "unset": unset,
    "for": for_loop,
    "bash": shell_string,
    "sh": shell_string,
    "zsh": shell_string,
    "dash": shell_string,
    "ksh": shell_string,
    "eval": eval_words,
}

_GIT_SUBCOMMANDS: dict[str, Callable[[_Analysis, list[str], _Shell], _GitRisk | None]] = {
    "checkout": git_checkout,
    "restore": git_restore,
    "reset": git_reset,
    "clean": git_clean,
    "stash": git_stash,
    "switch": git_switch,
    "rm": git_rm,
    "mv": git_mv,
}

# Commands whose file operands are read here: find -exec reads them once per match.
_FILE_COMMANDS = _names(
    "rm unlink shred mv cp ln install sed gsed perl awk gawk tee truncate touch dd chmod git"
)
# Commands find -exec may run without changing anything.
_READ_ONLY = _names(
    "cat grep egrep fgrep rg ls echo printf head tail wc file stat du md5sum sha1sum "
    "sha256sum sha512sum basename dirname readlink realpath test [ true false diff cmp "
    "od xxd hexdump strings nl cut"
)
_KEYWORDS = _names("if then else elif fi do done while until ! { }")
# Prefix commands: (short options taking a value, long options taking a value).
_WRAPPERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "env": ("uCS", ("--unset", "--chdir", "--split-string")),
    "sudo": ("ugCDhprtUT", ("--user", "--group", "--chdir", "--host", "--prompt")),
    "doas": ("uC", ()),
    "command": ("", ()),
    "builtin": ("", ()),
    "exec": ("a", ()),
    "nohup": ("", ()),
    "time": ("fo", ("--format", "--output")),
    "nice": ("n", ("--adjustment",)),
    "timeout": ("sk", ("--signal", "--kill-after")),
    "stdbuf": ("ioe", ("--input", "--output", "--error")),
    "ionice": ("cnp", ("--class", "--classdata", "--pid")),
}
_NO_OPTIONS = frozenset({"nohup", "builtin"})
_DIRECTORY_OPTIONS: dict[str, tuple[str, ...]] = {
    "env": ("-C", "--chdir"),
    "sudo": ("-D", "--chdir"),
}
_UNKNOWN_EFFECT = {
    "patch": "the files it changes are named in the patch and were not recorded",
    "rsync": "the files it writes were not recorded",
}
