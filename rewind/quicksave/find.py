"""``find ... -delete`` and ``-exec``/``-execdir``/``-ok``: the files its expression may match
(narrowed by ``-name``, ``-path``, ``-type``, ``-maxdepth`` ... when the expression is a plain
conjunction), and what it does to each; ``-fprint`` and the like: the files it writes."""

from __future__ import annotations

import os
import stat

from rewind.quicksave.analysis import UNLIMITED_DEPTH
from rewind.quicksave.file_commands import FILE_COMMANDS
from rewind.quicksave.words import has_glob, names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell

_ONE_VALUE = names(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size "
    "-perm -user -group -uid -gid -anewer -cnewer -mtime -atime -ctime -mmin "
    "-amin -cmin -maxdepth -mindepth -links -inum -samefile -lname -ilname -fstype -used "
    "-printf -context -regextype -files0-from"
)  # and every test whose name starts with -newer
_OUTPUTS = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})
_EXECS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_NOT_CONJUNCTION = frozenset({"-o", "-or", ",", "(", ")"})
# Commands find -exec may run without changing anything.
_READ_ONLY = names(
    "cat grep egrep fgrep rg ls echo printf head tail wc file stat du md5sum sha1sum "
    "sha256sum sha512sum basename dirname readlink realpath test [ true false diff cmp "
    "od xxd hexdump strings nl cut"
)


class FindExpression:
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
        self.max_depth = UNLIMITED_DEPTH
        self.min_depth = 0

    def read(self, expression: list[str]) -> None:
        negated = False
        index = 0
        while index < len(expression):
            word = expression[index]
            index += 1
            if word in _EXECS:
                end = _exec_end(expression, index)
                self.execs.append((word, expression[index:end]))
                index = end + 1
            elif word == "-delete":
                self.delete = True
            elif word in _OUTPUTS and index < len(expression):
                self.outputs.append(expression[index])
                index += 2 if word == "-fprintf" else 1
            elif word in _ONE_VALUE or word.startswith("-newer"):
                if index < len(expression) and not negated:
                    self.narrow(word, expression[index])
                index += 1
            elif word in _NOT_CONJUNCTION:
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
        import fnmatch  # only for a name pattern

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


def find(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    index = 0
    while index < len(arguments) and arguments[index] in ("-H", "-L", "-P", "-D", "-O"):
        index += 2 if arguments[index] == "-D" else 1
    starts: list[str] = []
    while index < len(arguments) and not arguments[index].startswith(("-", "(", "!", ")", ",")):
        starts.append(arguments[index])
        index += 1
    expression = FindExpression()
    expression.read(arguments[index:])
    for output in expression.outputs:
        analysis.record_created(output, shell, "find")
    if not expression.delete and not expression.execs:
        return
    for start in starts or ["."]:
        for path in analysis.operand_paths(start, shell, "find"):
            _find_under(analysis, path, _as_find_shows(start, path, shell), expression, shell)


def _as_find_shows(word: str, path: str, shell: Shell) -> str:
    """The starting point as find gets it (``-path`` patterns are matched against it)."""
    if not has_glob(word):
        return word
    return path if os.path.isabs(word) or shell.cwd is None else os.path.relpath(path, shell.cwd)


def _find_under(
    analysis: Analysis, start: str, shown_start: str, expression: FindExpression, shell: Shell
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
        if not analysis.take(size, what, taken):
            return
        taken += 1
        if inside or (expression.delete and kind != "d"):
            analysis.add(path)
        if not inside:
            for action, words in expression.execs:
                if _exec_on(analysis, path, kind, action, words, shell):
                    covered.add(path)


def _find_entries(
    analysis: Analysis, start: str, max_depth: int, what: str
) -> Iterator[tuple[str, str, int, int]]:
    """``start`` and everything under it: path, kind (``d``/``l``/``f``/``o``), size, depth."""
    try:
        info = os.lstat(start)
    except OSError:
        return
    is_dir = stat.S_ISDIR(info.st_mode)
    kind = "d" if is_dir else "l" if stat.S_ISLNK(info.st_mode) else "f"
    yield start, kind, info.st_size if kind == "f" else 0, 0
    if not is_dir:
        return
    yield from analysis.tree_entries(start, what, max_depth)


def _exec_on(
    analysis: Analysis, path: str, kind: str, action: str, words: list[str], shell: Shell
) -> bool:
    """``-exec COMMAND {}`` on one match: a command read here is read with the match in place
    of ``{}``; any other may change the match, and (True) everything under a matching
    directory."""
    name = os.path.basename(words[0]) if words else ""
    if name in _READ_ONLY:
        return False
    if name not in FILE_COMMANDS:
        if kind == "d":
            return True
        analysis.add(path)
        return False
    exec_shell = shell.copy()
    replacement = path
    if action.endswith("dir"):
        exec_shell.cwd = os.path.dirname(path)
        replacement = "./" + os.path.basename(path)
    arguments = [word.replace("{}", replacement) for word in words[1:]]
    FILE_COMMANDS[name](analysis, arguments, exec_shell)
    return False
