"""The last prompt and reply of a Droid session, read from the end of its transcript.

Droid (0.225.2) writes each session as JSON lines in ``~/.factory/sessions/<project>/<id>.jsonl``
and gives the path to every hook as ``transcript_path``. A message line is ``{"type":
"message", "timestamp": ISO 8601, "message": {"role": ..., "content": [...]}}``. The person's
prompt is a user message with text parts; user messages that record a hook's run (they carry
``hookEventName``), a tool's results (``tool_result`` parts) or context Droid adds (an ``id``
beginning ``context-``, text beginning ``<system-reminder>``) are not prompts. The reply is the
text of the last assistant message after the prompt.

The file is read backwards from its end, a block at a time, and no further than
:data:`~rewind.store.input_limits.SESSION_FILE_BYTES` from it: a long session costs no more
than the lines since its last prompt, and memory stays bounded whatever its length.
"""

from __future__ import annotations

from rewind.store.fastjson import load_object
from rewind.store.input_limits import SESSION_FILE_BYTES
from rewind.store.regular_file import open_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

BLOCK = 256 * 1024
CONTEXT_ID = "context-"
REMINDER = "<system-reminder>"


class Exchange:
    """The last prompt (its text, and when Droid stamped it, in seconds) and the agent's last
    message after it ("" and None when there is none). (A plain class: the hook of a run's
    first tool call reads one, and dataclasses costs it an import of about 18 ms.)"""

    __slots__ = ("prompt", "reply", "sent")

    def __init__(self, prompt: str = "", sent: float | None = None, reply: str = "") -> None:
        self.prompt = prompt
        self.sent = sent
        self.reply = reply

    def _fields(self) -> tuple[str, float | None, str]:
        return (self.prompt, self.sent, self.reply)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Exchange) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"Exchange{self._fields()!r}"


def last_exchange(path: str, limit: int = SESSION_FILE_BYTES) -> Exchange:
    """The last prompt of the transcript at ``path`` and the reply after it (an empty
    :class:`Exchange` when the file cannot be read or holds no prompt within ``limit``
    bytes of its end)."""
    reply = ""
    try:
        for line in _lines_backwards(path, limit):
            if b'"message"' not in line:
                continue
            try:
                record = load_object(line.decode("utf-8", "replace"))
            except ValueError:
                continue
            message = record.get("message")
            if record.get("type") != "message" or not isinstance(message, dict):
                continue
            role, text = message.get("role"), _text_of(message.get("content"))
            if role == "assistant" and text and not reply:
                reply = text
            elif role == "user" and text and _is_prompt(record, message, text):
                return Exchange(text, _seconds(record.get("timestamp")), reply)
    except (OSError, ValueError):  # ValueError: not a regular file, or a NUL byte in the path
        pass
    return Exchange()


def _lines_backwards(path: str, limit: int) -> Iterator[bytes]:
    """The lines of the file's last ``limit`` bytes, last first (the first of them may be
    the end of a longer line). Anything but a regular file is a ValueError (a fifo would
    hang the hook: :func:`~rewind.store.regular_file.open_regular`)."""
    fd, _ = open_regular(path)
    with open(fd, "rb") as stream:
        end = stream.seek(0, 2)
        start, pending = end, b""
        while start > 0 and end - start < limit:
            step = min(BLOCK, start, limit - (end - start))
            start -= step
            stream.seek(start)
            parts = (stream.read(step) + pending).split(b"\n")
            pending = parts[0]  # may begin before this block
            yield from reversed(parts[1:])
        yield pending


def _is_prompt(record: dict[str, object], message: dict[str, object], text: str) -> bool:
    identity = record.get("id")
    if isinstance(identity, str) and identity.startswith(CONTEXT_ID):
        return False
    if "hookEventName" in message or message.get("visibility") == "llm_only":
        return False
    return not text.lstrip().startswith(REMINDER)


def _text_of(content: object) -> str:
    """The text parts of a message's content, joined ("" when it has none: a tool's results,
    a hook's record)."""
    if isinstance(content, str):
        return content.strip()
    parts = content if isinstance(content, list) else []
    texts = [
        part["text"]
        for part in parts
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts).strip()


def _seconds(stamp: object) -> float | None:
    """An ISO 8601 time with its zone (``2026-12-07T06:03:42.972Z``), in seconds."""
    if not isinstance(stamp, str) or not stamp:
        return None
    from datetime import datetime

    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when.timestamp() if when.tzinfo is not None else None
