"""The command line made readable for the lexer: comments and here-document bodies taken out
(each body kept aside, the word after its ``<<`` made a mark that names it), line continuations
joined, unquoted newlines made ``;``, and what lies past the length that is read cut off between
two commands."""

from __future__ import annotations

from rewind.quicksave.words import HERE_DOCUMENT

_WORD_END = frozenset(" \t\r\n;&|()<>")
# Where a run of characters that mean nothing here ends: each character that does is translated
# to a newline (one of them), so that one search in the translated text finds the next.
_PLAIN_ENDS = str.maketrans(dict.fromkeys("'\"\\#\n<();", "\n"))
# The most characters of a command line that are read, here-document bodies and comments aside
# (skipping those is cheap). Reading costs time in proportion to the commands read: a line of
# this length made of short commands takes about half a second.
MAX_READ_LENGTH = 256 * 1024


class Prepared:
    """The text for the lexer, how many characters of the command line were left unread (0:
    all of it was read), and the bodies of its here-documents (``bodies[N]`` is the one whose
    ``<<`` is followed by the mark ``HERE_DOCUMENT + "N"`` in the text)."""

    __slots__ = ("bodies", "text", "unread")

    def __init__(self, text: str, unread: int, bodies: list[str]) -> None:
        self.text = text
        self.unread = unread
        self.bodies = bodies


def prepared(command: str, max_length: int = MAX_READ_LENGTH) -> Prepared:
    """``command`` with what the lexer cannot read taken out (quotes are kept as they are).

    Past ``max_length`` characters (here-document bodies and comments not counted) the rest is
    not read: the text ends at the last unquoted ``;`` or newline outside parentheses before
    that point, so that it holds whole commands."""
    return _Reader(command).read(max_length)


class _Reader:
    """One pass over the command line, a construct at a time; runs of characters with no
    meaning here are copied with one search each."""

    __slots__ = (
        "bodies",
        "command",
        "cut",
        "depth",
        "heredocs",
        "index",
        "out",
        "plain_ends",
        "skipped",
    )

    def __init__(self, command: str) -> None:
        self.command = command
        self.plain_ends = command.translate(_PLAIN_ENDS)
        self.out: list[str] = []
        self.heredocs: list[_HereDocument] = []  # announced on the current line
        self.bodies: list[str] = []  # of every here-document announced, in order
        self.depth = 0  # of unquoted parentheses: subshells, $( ... ), <( ... )
        self.cut = (0, 0)  # the last place between two commands: in out, in command
        self.skipped = 0  # characters of here-document bodies and comments
        self.index = 0

    def read(self, max_length: int) -> Prepared:
        command = self.command
        while self.index < min(len(command), max_length + self.skipped):
            self.step(command[self.index])
        # A quoted string or a word may have run past the length: then it is not read either.
        if self.index >= len(command) and len(command) - self.skipped <= max_length:
            return Prepared("".join(self.out), 0, self.bodies)
        kept, read = self.cut
        return Prepared("".join(self.out[:kept]), len(command) - read, self.bodies)

    def step(self, char: str) -> None:
        if char == "'":
            self.single_quoted()
        elif char == '"':
            self.double_quoted()
        elif char == "\\":
            self.backslash()
        elif char == "#" and (self.index == 0 or self.command[self.index - 1] in _WORD_END):
            self.comment()
        elif char == "\n":
            self.newline()
        elif char == "<":
            self.less_than()
        elif char in "();":
            self.punctuation(char)
        else:  # this character and the ones up to the next that means something here
            end = self.plain_ends.find("\n", self.index + 1)
            self.copy_to(len(self.command) if end < 0 else end)

    def copy_to(self, end: int) -> None:
        self.out.append(self.command[self.index : end])
        self.index = end

    def single_quoted(self) -> None:
        close = self.command.find("'", self.index + 1)
        self.copy_to(len(self.command) if close < 0 else close + 1)

    def double_quoted(self) -> None:
        """Up to the closing quote; a backslash escapes the next character (a newline: a
        line continuation, taken out)."""
        command = self.command
        self.copy_to(self.index + 1)
        close = _find_or_end(command, '"', self.index)
        while (backslash := command.find("\\", self.index, close)) >= 0:
            self.copy_to(backslash)
            self.backslash()
            if self.index > close:  # the quote was escaped
                close = _find_or_end(command, '"', self.index)
        self.copy_to(min(close + 1, len(command)))

    def backslash(self) -> None:
        if self.command.startswith("\\\n", self.index):
            self.index += 2  # a line continuation
        else:
            self.copy_to(min(self.index + 2, len(self.command)))

    def comment(self) -> None:
        end = _find_or_end(self.command, "\n", self.index)
        self.skipped += end - self.index
        self.index = end

    def newline(self) -> None:
        """A command ends; the bodies of the here-documents announced on the line follow."""
        if self.depth <= 0:
            self.cut = (len(self.out), self.index)
        self.out.append(" ; ")
        index = self.index + 1
        for heredoc in self.heredocs:
            body, index = _heredoc_body(self.command, index, heredoc)
            self.bodies[heredoc.number] = body
        self.skipped += index - self.index - 1
        self.index = index
        self.heredocs = []

    def less_than(self) -> None:
        """``<<WORD`` announces a here-document (the word is replaced by the mark of its
        body); ``<<<`` is a here-string."""
        command = self.command
        if command.startswith("<<<", self.index):
            self.copy_to(self.index + 3)
        elif command.startswith("<<", self.index):
            end, delimiter, strip_tabs = _heredoc_delimiter(command, self.index + 2)
            if delimiter:
                number = len(self.bodies)
                self.bodies.append("")  # a body the command line ends before is empty
                self.heredocs.append(_HereDocument(delimiter, strip_tabs, number))
                self.out.append(f"<< {HERE_DOCUMENT}{number} ")
                self.index = end
            else:
                self.copy_to(end)
        else:
            self.copy_to(self.index + 1)

    def punctuation(self, char: str) -> None:
        if char == ";" and self.depth <= 0:
            self.cut = (len(self.out), self.index)
        self.depth += 1 if char == "(" else -1 if char == ")" else 0
        self.copy_to(self.index + 1)


def unread_warning(unread: int) -> str:
    return (
        f"the command is longer than {MAX_READ_LENGTH // 1024} KiB: its last {unread} characters "
        "were not read (nothing in them was recorded)"
    )


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


class _HereDocument:
    """A here-document announced on the current line: its delimiter, whether it was ``<<-``
    (leading tabs of the body are ignored), and the number of its body."""

    __slots__ = ("delimiter", "number", "strip_tabs")

    def __init__(self, delimiter: str, strip_tabs: bool, number: int) -> None:
        self.delimiter = delimiter
        self.strip_tabs = strip_tabs
        self.number = number


def _heredoc_body(command: str, index: int, heredoc: _HereDocument) -> tuple[str, int]:
    """The body of ``heredoc``, which starts at ``index`` (up to the line that is its
    delimiter, or the end of the command line), and where the command line goes on after it.
    Only the lines holding the delimiter are looked at, found with ``str.find``."""
    delimiter = heredoc.delimiter
    search = index
    while (found := command.find(delimiter, search)) >= 0:
        newline = command.rfind("\n", index, found)
        line_start = index if newline < 0 else newline + 1
        line_end = _find_or_end(command, "\n", found)
        before = command[line_start:found]
        after = command[found + len(delimiter) : line_end]
        if _only(before, "\t" if heredoc.strip_tabs else "") and _only(after, "\r"):
            body = _body_text(command[index:line_start], heredoc.strip_tabs)
            return body, min(line_end + 1, len(command))
        search = line_end + 1
    return _body_text(command[index:], heredoc.strip_tabs), len(command)


def _only(text: str, characters: str) -> bool:
    """Whether ``text`` holds nothing but ``characters`` (or nothing)."""
    return not text.strip(characters) if characters else not text


def _body_text(body: str, strip_tabs: bool) -> str:
    if not strip_tabs:
        return body
    return "\n".join(line.lstrip("\t") for line in body.split("\n"))


def _find_or_end(text: str, char: str, index: int) -> int:
    found = text.find(char, index)
    return len(text) if found < 0 else found
