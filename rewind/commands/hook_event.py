"""An agent's event as a hook process receives it: the JSON on standard input, bounded. Light
imports only (the hook path reads it before deciding where the event is handled)."""

from __future__ import annotations

import sys

from rewind.store.input_limits import PAYLOAD_BYTES, too_large


def read_event() -> str:
    """The event on standard input; a ValueError (logged: the event is ignored) past
    PAYLOAD_BYTES, the rest read and dropped, so that the agent's write of it never blocks."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    data = sys.stdin.buffer.read(PAYLOAD_BYTES + 1)
    if len(data) > PAYLOAD_BYTES:
        del data
        while sys.stdin.buffer.read(1 << 20):
            pass
        raise ValueError(too_large(PAYLOAD_BYTES, "a hook's event").of("the event"))
    return data.decode("utf-8", "surrogateescape")
