"""Where an agent's own conversation stood just before a turn's prompt: the point a resume
branches from (rewind.history.conversation.resume).

The agent's prompt hook takes it (rewind.hooks.conversation_cuts) and it is kept in the turn's
record under ``conversation``. Taking it costs one ``stat`` and one read of at most
:data:`TAIL` bytes, whatever the transcript's size: at the prompt event none of the agents has
written the new prompt yet, so the transcript's size then is the cut, and the bytes just before
it are its fingerprint, which tells at resume time whether the file still holds the same
conversation up to there.
"""

from __future__ import annotations

from rewind.store.digest import sha1_hex

# How many bytes before the cut its fingerprint covers (and the most a prompt hook reads).
TAIL = 4096
# The longest a text field of a cut point may be: anything longer is not one.
_MAX_TEXT = 4096


class CutPoint:
    """``agent`` (as ``rewind install`` names it); ``session``, the agent's own session id;
    ``transcript``, the file the agent keeps the conversation in; ``offset``, its size just
    before the prompt (None where the agent writes it late, as Copilot CLI does);
    ``fingerprint``, of the :data:`TAIL` bytes before ``offset``; ``turn``, the agent's own
    key of the turn where it sends one (Codex's ``turn_id``, Copilot's prompt ``timestamp``,
    Claude Code's ``prompt_id``); ``version``, the client's version when it could be told
    cheaply. (A plain class: the prompt hook makes one, and dataclasses costs it an import.)"""

    __slots__ = ("agent", "fingerprint", "offset", "session", "transcript", "turn", "version")

    def __init__(
        self,
        agent: str,
        session: str,
        transcript: str,
        offset: int | None = None,
        fingerprint: str = "",
        turn: str = "",
        version: str = "",
    ) -> None:
        self.agent = agent
        self.session = session
        self.transcript = transcript
        self.offset = offset
        self.fingerprint = fingerprint
        self.turn = turn
        self.version = version

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CutPoint) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(tuple(self.to_json().items()))

    def __repr__(self) -> str:
        return f"CutPoint({self.to_json()!r})"

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "agent": self.agent,
            "session": self.session,
            "transcript": self.transcript,
        }
        if self.offset is not None:
            data["offset"] = self.offset
        for key in ("fingerprint", "turn", "version"):
            value = getattr(self, key)
            if value:
                data[key] = value
        return data

    @classmethod
    def from_json(cls, data: object) -> CutPoint | None:
        """The cut point ``data`` holds, or None when it is not one (a record from a newer or
        damaged rewind): the turn then has no conversation to resume, nothing worse."""
        if not isinstance(data, dict):
            return None
        texts = {key: data.get(key, "") for key in cls._TEXTS}
        if not all(isinstance(value, str) and len(value) <= _MAX_TEXT for value in texts.values()):
            return None
        if not (texts["agent"] and texts["session"] and texts["transcript"]):
            return None
        offset = data.get("offset")
        if offset is not None and (type(offset) is not int or not 0 <= offset < 2**63):
            return None
        return cls(offset=offset, **texts)

    _TEXTS = ("agent", "session", "transcript", "fingerprint", "turn", "version")


def fingerprint(tail: bytes) -> str:
    """The fingerprint of the bytes just before a cut (at most :data:`TAIL` of them)."""
    return sha1_hex(tail[-TAIL:])
