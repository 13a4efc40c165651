"""Taking private contents and secrets out of a conversation before it leaves the machine
(docs/conversation.md, "What is redacted").

A :class:`Redactor` is given the contents of the private files (rewind.history.remote.privacy)
a conversation names, and replaces, wherever they appear in a text, with a marker that names
what was removed (``[redacted: .env]``, ``[redacted: AWS Access Key]``):

- each private file's whole content, then each of its lines that is not trivial (at least
  :data:`MIN_LINE` characters, or an assignment ``NAME=VALUE`` whose value has at least
  :data:`MIN_VALUE`), and the value of each assignment whose name or shape says it is secret:
  the agents show files with line numbers before each line (Claude Code's Read tool), inside
  a command's output or a quoted patch, so lines are looked for wherever they are. A long
  line (:data:`LONG_LINE` characters or more) is also found when only its start is there (Claude
  Code's Read tool cuts a line at 2,000 characters): its first :data:`ANCHOR` characters are
  looked for, and from each place they are, the longest run that the line starts with is
  replaced;
- the high-confidence secrets of rewind.history.remote.secrets.

A transcript is JSON lines: a line that holds something to redact (looked for in its raw
text, cheaply: each private line, or a long one's anchor, as it is and in each form JSON may
write it, quotes and backslashes escaped, ``/`` as ``\\/``, other than ASCII as ``\\u00dc``) is
parsed and each of its string values redacted as text, then written again as one line of JSON;
every other line is kept byte for byte. A line that is not JSON (a line the prompt's cut split
in two) is redacted as raw text, each private line looked for in each of those forms. Lines
are never added or removed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable

from rewind.history.remote.secrets import KEY_ANCHORS as _KEY_ANCHORS
from rewind.history.remote.secrets import Detector, detectors, secrets_in

# A private file's line shorter than this is left alone (``}``, ``import os``): it would be
# found in ordinary text.
MIN_LINE = 12
# ... unless it is an assignment whose value has at least this many characters.
MIN_VALUE = 4
# An assignment's value, looked for alone, is this long at least.
MIN_SECRET_VALUE = 8
# A private line this long is also looked for by its first ANCHOR characters (its anchor,
# when that holds MIN_ANCHOR_CHARACTERS different characters at least: not a ruler of dashes).
LONG_LINE = 128
ANCHOR = 32
MIN_ANCHOR_CHARACTERS = 8
# The most of a private file read, and the most of its lines looked for.
MAX_FILE_BYTES = 1 << 20
MAX_LINES = 5000

_ASSIGNMENT = re.compile(
    r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.\-]*)\s*[=:]\s*(.*?)\s*$", re.ASCII
)
_SECRET_NAME = re.compile(r"(?i)token|secret|key|pass|pwd|credential|auth|private|cookie|session")

FILE = "file"
SECRET = "secret"


def marker(name: str) -> str:
    return f"[redacted: {name}]"


class Found:
    """What a redaction removed: per private file, and per kind of secret, how many times."""

    __slots__ = ("files", "secrets")

    def __init__(self) -> None:
        self.files: Counter[str] = Counter()
        self.secrets: Counter[str] = Counter()

    def __bool__(self) -> bool:
        return bool(self.files or self.secrets)

    def add(self, other: Found) -> None:
        self.files.update(other.files)
        self.secrets.update(other.secrets)

    def to_json(self) -> dict[str, dict[str, int]]:
        return {
            "files": dict(sorted(self.files.items())),
            "secrets": dict(sorted(self.secrets.items())),
        }

    @classmethod
    def from_json(cls, data: object) -> Found:
        found = cls()
        if isinstance(data, dict):
            for key, counter in (("files", found.files), ("secrets", found.secrets)):
                part = data.get(key)
                if isinstance(part, dict):
                    counter.update({k: v for k, v in part.items() if isinstance(v, int)})
        return found


class Redactor:
    """Redacts texts and transcripts given the private files' contents (``path`` -> each
    version of its content known: on disk, recorded by the session's entries)."""

    def __init__(self, private: dict[str, list[bytes]]) -> None:
        wholes: dict[str, str] = {}
        needles: dict[str, str] = {}
        for name, contents in sorted(private.items()):
            for content in contents:
                text = content[:MAX_FILE_BYTES].decode("utf-8", "replace")
                if "\x00" in text:
                    continue  # not text: nothing of it reads as text in a transcript
                whole = text.strip()
                if len(whole) >= MIN_LINE:
                    wholes.setdefault(whole, name)
                for needle in _needles(text):
                    needles.setdefault(needle, name)
        # Longest first: a line that holds another is replaced whole.
        self.wholes = sorted(wholes.items(), key=lambda item: -len(item[0]))
        self.needles = sorted(needles.items(), key=lambda item: -len(item[0]))
        # The long lines by their anchor: a line cut short is found by its start.
        self.anchors: dict[str, list[tuple[str, str]]] = {}
        for needle, name in self.needles:
            if anchor := _anchor(needle):
                self.anchors.setdefault(anchor, []).append((needle, name))
        # What a line to redact holds: a needle (a long one's anchor: its start) in one of the
        # forms JSON writes it, or a private key's first line.
        looked_for = {n for n, _ in self.needles if not _anchor(n)} | set(self.anchors)
        forms = {form for one in looked_for for form in _forms(one)}
        fixed = {form.encode("utf-8", "surrogateescape") for form in forms} | set(_KEY_ANCHORS)
        self._fixed = [re.compile(re.escape(one)) for one in sorted(fixed)]

    # texts -------------------------------------------------------------------------------

    def text(self, text: str, found: Found) -> str:
        """``text`` with the private contents and the secrets in it replaced by markers."""
        for whole, name in self.wholes:
            if whole in text:
                found.files[name] += text.count(whole)
                text = text.replace(whole, marker(name))
        for needle, name in self.needles:
            if needle in text:
                found.files[name] += text.count(needle)
                text = text.replace(needle, marker(name))
        for anchor, lines in self.anchors.items():
            if anchor in text:
                text = _cut_short(text, anchor, lines, found)
        for value, kind in secrets_in(text):
            if value in text:
                found.secrets[kind] += text.count(value)
                text = text.replace(value, marker(kind))
        return text

    # transcripts --------------------------------------------------------------------------

    def transcript(self, data: bytes, found: Found) -> bytes:
        """The JSON lines ``data`` redacted: each line that holds something to redact is
        parsed and written again; the others are kept byte for byte."""
        lines = sorted(self._lines_to_look_at(data))
        if not lines:
            return data
        parts: list[bytes] = []
        done = 0
        for start in lines:
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            line = data[start:end].decode("utf-8", "surrogateescape")
            redacted = self._line(line, found)
            if redacted != line:
                parts += [data[done:start], redacted.encode("utf-8", "surrogateescape")]
                done = end
        if not parts:
            return data
        parts.append(data[done:])
        return b"".join(parts)

    def _lines_to_look_at(self, data: bytes) -> set[int]:
        """Where the lines of ``data`` that may hold something to redact start: those that hold
        a private line (in its raw or its JSON form), a private key's first line, or a
        secret's anchor and the secret. Each fixed string and anchor is looked for over the
        whole of ``data``, in C; Python sees only where they are."""
        starts: set[int] = set()
        for needle in self._fixed:
            starts.update(_lines_holding(data, needle, None))
        for detector in detectors():
            for anchor in detector.byte_anchors:
                starts.update(_lines_holding(data, anchor, detector, starts))
        return starts

    def _line(self, line: str, found: Found) -> str:
        """One line of a transcript redacted: as JSON when it is, else as raw text."""
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            record = None
        if not isinstance(record, (dict, list)):
            return self._raw(line, found)
        here = Found()
        redacted = self._value(record, here)
        if not here:
            return line  # kept byte for byte
        found.add(here)
        return json.dumps(redacted, ensure_ascii=False, separators=(",", ":"))

    def _value(self, value: object, found: Found) -> object:
        if isinstance(value, str):
            return self.text(value, found)
        if isinstance(value, dict):
            return {key: self._value(item, found) for key, item in value.items()}
        if isinstance(value, list):
            return [self._value(item, found) for item in value]
        return value

    def _raw(self, line: str, found: Found) -> str:
        """A line that is not JSON: its private lines, as they are or as JSON writes them,
        and its secrets."""
        for needle, name in self.needles:
            for form in _forms(needle):
                if form in line:
                    found.files[name] += line.count(form)
                    line = line.replace(form, marker(name))
        for anchor, lines in self.anchors.items():
            for write in _WRITINGS:
                if write(anchor) in line:
                    written = [(write(needle), name) for needle, name in lines]
                    line = _cut_short(line, write(anchor), written, found)
        for value, kind in secrets_in(line):
            if value in line:
                found.secrets[kind] += line.count(value)
                line = line.replace(value, marker(kind))
        return line


def _lines_holding(
    data: bytes,
    pattern: re.Pattern[bytes],
    detector: Detector | None,
    known: set[int] | frozenset[int] = frozenset(),
) -> list[int]:
    """Where the lines of ``data`` in which ``pattern`` is found start (with ``detector``:
    only those where it finds a secret; ``known`` lines are not looked at again)."""
    starts = []
    at = 0
    while (hit := pattern.search(data, at)) is not None:
        start = data.rfind(b"\n", 0, hit.start()) + 1
        end = data.find(b"\n", hit.end())
        end = len(data) if end < 0 else end
        if start not in known and (detector is None or _finds(detector, data[start:end])):
            starts.append(start)
        at = end + 1
    return starts


def _finds(detector: Detector, line: bytes) -> bool:
    text = line.decode("utf-8", "replace").replace("\\/", "/")  # JSON may write / as \/
    return any(len(value) >= MIN_SECRET_VALUE for value in detector.find(text))


def _needles(text: str) -> list[str]:
    """What is looked for of one private file's text: its non-trivial lines, and the values of
    its secret-looking assignments."""
    found: list[str] = []
    for line in text.splitlines()[:MAX_LINES]:
        stripped = line.strip()
        assignment = _ASSIGNMENT.match(stripped)
        value = assignment.group(2).strip("'\"") if assignment else ""
        if len(stripped) >= MIN_LINE or len(value) >= MIN_VALUE:
            found.append(stripped)
        if assignment and len(value) >= MIN_SECRET_VALUE and _looks_secret(assignment[1], value):
            found.append(value)
    return found


def _looks_secret(name: str, value: str) -> bool:
    """An assignment's value that is worth looking for alone: its name says it is secret, or
    it mixes letters and digits with no space (a token, not a sentence or a host name)."""
    if " " in value:
        return False
    if _SECRET_NAME.search(name):
        return True
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _anchor(needle: str) -> str:
    """What a long ``needle`` is looked for by: its start ('' for a short one, or one whose
    start is too plain to tell from ordinary text)."""
    anchor = needle[:ANCHOR]
    if len(needle) < LONG_LINE or len(set(anchor)) < MIN_ANCHOR_CHARACTERS:
        return ""
    return anchor


def _cut_short(text: str, anchor: str, lines: list[tuple[str, str]], found: Found) -> str:
    """``text`` with the longest start of one of ``lines`` (each with its file's name) replaced
    wherever ``anchor``, the start they share, is."""
    parts = []
    done = 0
    while (at := text.find(anchor, done)) >= 0:
        run, name = max((_run(text, at, line, len(anchor)), name) for line, name in lines)
        parts += [text[done:at], marker(name)]
        found.files[name] += 1
        done = at + run
    return "".join(parts) + text[done:]


def _run(text: str, at: int, line: str, anchor: int) -> int:
    """How much of ``line``'s start ``text`` holds from ``at``, where it holds its ``anchor``
    first characters."""
    low, high = anchor, min(len(line), len(text) - at)
    while low < high:  # the longest start held, by halves: each comparison runs in C
        middle = (low + high + 1) // 2
        if text.startswith(line[:middle], at):
            low = middle
        else:
            high = middle - 1
    return low


def _escaped(needle: str) -> str:
    """``needle`` as it reads inside a JSON string."""
    return json.dumps(needle, ensure_ascii=False)[1:-1]


def _ascii(needle: str) -> str:
    """``needle`` as a JSON writer that keeps to ASCII writes it (``\\u00dc``)."""
    return json.dumps(needle)[1:-1]


def _slashes(write: Callable[[str], str]) -> Callable[[str], str]:
    """``write``, with ``/`` written ``\\/`` (valid JSON some writers give)."""
    return lambda needle: write(needle).replace("/", "\\/")


# Each way a JSON writer may write a text inside a string: one character at a time, so that
# what it writes of a line's start is the start of what it writes of the line.
_WRITINGS: tuple[Callable[[str], str], ...] = (
    str,
    _escaped,
    _slashes(_escaped),
    _ascii,
    _slashes(_ascii),
)


def _forms(needle: str) -> set[str]:
    """``needle`` as it is and as JSON may write it."""
    return {write(needle) for write in _WRITINGS}
