"""Tokens to commands: the lexer's words, the shell's operators split out of them, and the
simple commands, subshells and command substitutions they make. A here-document's redirection
holds its body: ``("<<", BODY)``."""

from __future__ import annotations

from rewind.quicksave.lexer import split_words
from rewind.quicksave.prepass import prepared
from rewind.quicksave.words import DYNAMIC, HERE_DOCUMENT

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
WRITING_REDIRECTIONS = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>"})


class ParseError(ValueError):
    pass


class Command:
    """One simple command (``words``) or subshell (``subshell``), with its redirections and
    the command substitutions its words run."""

    __slots__ = ("redirections", "subshell", "substitutions", "words")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.redirections: list[tuple[str, str]] = []
        self.substitutions: list[list[Command]] = []
        self.subshell: list[Command] | None = None


class Parsed:
    """The commands of a command line, and how many of its characters were left unread (past
    the length that is read; 0: none)."""

    __slots__ = ("commands", "unread")

    def __init__(self, commands: list[Command], unread: int) -> None:
        self.commands = commands
        self.unread = unread


def parse(command: str) -> Parsed:
    """The commands of a command line, up to the length that is read; raises ValueError where
    the shell would not run it."""
    text = prepared(command)
    return Parsed(_Parser(_tokens(text.text), text.bodies).sequence(nested=False), text.unread)


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for token in split_words(text):
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
    __slots__ = ("bodies", "position", "tokens")

    def __init__(self, tokens: list[str], bodies: list[str]) -> None:
        self.tokens = tokens
        self.bodies = bodies
        self.position = 0

    def sequence(self, nested: bool) -> list[Command]:
        """Commands up to the end, or (``nested``) up to the ``)`` that closes them."""
        commands: list[Command] = []
        while self.position < len(self.tokens):
            token = self.tokens[self.position]
            if token == ")":
                if not nested:
                    raise ParseError("a ) closes nothing")
                self.position += 1
                return commands
            if token in _SEPARATORS:
                self.position += 1
                continue
            command = Command()
            if token == "(":
                self.position += 1
                command.subshell = self.sequence(nested=True)
            self.fill(command)
            commands.append(command)
        if nested:
            raise ParseError("a ( is not closed")
        return commands

    def fill(self, command: Command) -> None:
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
                command.words[-1] = DYNAMIC
            else:
                open_words += {"(": 1, ")": -1}.get(token, 0)
                command.words.append(token)

    def redirection(self, command: Command, operator: str) -> None:
        if command.words and command.words[-1].isdigit():
            command.words.pop()  # the file descriptor of 2> or 1>>
        if self.position >= len(self.tokens):
            raise ParseError(f"{operator} is not followed by a file name")
        target = self.tokens[self.position]
        self.position += 1
        if target == "(" and operator in ("<", ">"):  # process substitution <(...), >(...)
            command.substitutions.append(self.sequence(nested=True))
        elif target in _OPERATOR_TOKENS:
            raise ParseError(f"{operator} is followed by {target}, not a file name")
        elif operator == "<<" and target.startswith(HERE_DOCUMENT):
            command.redirections.append((operator, self.body(target)))
        else:
            command.redirections.append((operator, target))

    def body(self, mark: str) -> str:
        """The body of the here-document ``mark`` names."""
        number = mark[len(HERE_DOCUMENT) :]
        if number.isascii() and number.isdigit() and int(number) < len(self.bodies):
            return self.bodies[int(number)]
        return ""
