"""The shell calls waiting for their after-event: what pairs a shell tool call's before-event
with its after-event, which can come much later, in another process.

The before-event saves (quicksaves) the files the command may change and leaves their names in
``<store>/rewind/pending/``: under the tool call's id (``<call>.json``) or, for an agent that
sends none, at the end of a queue of the calls with the same :func:`pairing_key`
(``queued-<key>-<time>-<pid>.json``). The after-event takes them back (by the id, or the oldest
of the queue) and records those files' after-states. What no after-event took is removed after
:data:`PENDING_MAX_AGE`.
"""

from __future__ import annotations

import os
import time

from rewind.store.atomic import remove_older_than, write_text_atomically
from rewind.store.fastjson import dumps, load_list
from rewind.store.repository import Store

PENDING_DIR = "pending"

# A shell command's saved paths wait this long for the command's after-event; past it, the
# after-event is taken as lost (the turn's end records every file's after-state anyway).
PENDING_MAX_AGE = 6 * 60 * 60


def pairing_key(session: str, tool: str, tool_input: dict[str, object]) -> str:
    """What pairs the before- and after-event of a tool call when the agent sends no call id:
    the session, the tool's name and its input (keys sorted at every level), as a short
    digest."""
    import zlib

    text = dumps([session, tool, _sorted(tool_input)]).encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}{len(text):x}"


def _sorted(value: object) -> object:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def leave_for_after_event(store: Store, names: list[bytes], call: str, pairing: str) -> None:
    """Leaves ``names`` for the after-event of ``call`` (a tool call's id) or, when it is "",
    at the end of the queue of ``pairing``."""
    pending = store.state_path(PENDING_DIR, _file_name(call) if call else _queued_name(pairing))
    os.makedirs(os.path.dirname(pending), exist_ok=True)
    write_text_atomically(pending, dumps([os.fsdecode(name) for name in names]))


class ClaimedCall:
    """What a before-event left, claimed by its after-event: ``names``, kept in ``path`` until
    :meth:`release` (so that an after-event that fails leaves them for its next delivery)."""

    __slots__ = ("names", "path")

    def __init__(self, path: str, names: list[bytes]) -> None:
        self.path = path
        self.names = names

    def release(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass  # the same after-event delivered twice at once: the other copy removed it


def claim(store: Store, call: str, pairing: str) -> ClaimedCall | None:
    """What the before-event of ``call`` left (or, when ``call`` is "", the oldest waiting
    call of ``pairing``); None when it left nothing (the command needed no quicksave)."""
    folder = store.state_path(PENDING_DIR)
    if call:
        pending: str | None = os.path.join(folder, _file_name(call))
    else:
        pending = _take_oldest(folder, _queue_prefix(pairing))
    if pending is None:
        return None
    try:
        with open(pending, encoding="utf-8") as handle:
            names = [os.fsencode(str(name)) for name in load_list(handle.read())]
    except FileNotFoundError:
        return None
    return ClaimedCall(pending, names)


def remove_stale(store: Store) -> None:
    """Removes what before-events of shell commands left for after-events that never came."""
    remove_older_than(store.state_path(PENDING_DIR), time.time() - PENDING_MAX_AGE)


def _queue_prefix(pairing: str) -> str:
    return f"queued-{pairing}-"


def _queued_name(pairing: str) -> str:
    """A new place in the queue of ``pairing``: names sort in the order they were made."""
    return f"{_queue_prefix(pairing)}{time.time_ns():020d}-{os.getpid()}.json"


def _take_oldest(folder: str, prefix: str) -> str | None:
    """Claims the oldest file of a queue (renamed, so that two after-events running at once
    never take the same one); its new path, or None when the queue is empty."""
    try:
        waiting = sorted(
            n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".json")
        )
    except FileNotFoundError:
        return None
    for name in waiting:
        taken = os.path.join(folder, name[: -len(".json")] + ".taken")
        try:
            os.rename(os.path.join(folder, name), taken)
        except FileNotFoundError:
            continue  # another after-event took it first
        return taken
    return None


def _file_name(call: str) -> str:
    """A tool call id as a file name (ids are agent-made: keep only safe characters)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in call)[:100]
    return safe.lstrip(".") + ".json"
