"""The agents' shell calls as the watcher sees them: when each began and ended, by the
watcher's own clock (``time.monotonic()``, which also stamps every file event), so that a
change can be given to the call it happened in.

A call begins when its before-event reaches the watcher (the hook waits for the answer, so the
command has not run yet); it ends when the after-event's barrier has seen every event the
kernel queued before it (rewind.watch.observer). A change belongs to a call when any of its
events fell between the two; when calls of several sessions overlap, to the one that began
last. A change no call covers is the project's, as before: external.
"""

from __future__ import annotations

import threading

# How long an ended call is kept for changes still being coalesced (seconds): longer than the
# longest coalescing delay.
KEEP_ENDED = 60.0
# A call whose after-event never came (a call the client refused after its before-event, an
# agent killed) stops covering changes at the end of its turn, or after this many seconds.
LONGEST_CALL = 15 * 60.0


class ShellCall:
    __slots__ = ("agent", "call", "end", "session", "start")

    def __init__(self, session: str, call: str, agent: str, start: float) -> None:
        self.session = session
        self.call = call
        self.agent = agent
        self.start = start
        self.end: float | None = None

    def covers(self, first: float, last: float) -> bool:
        """Whether events from ``first`` to ``last`` overlap the call."""
        end = self.end if self.end is not None else self.start + LONGEST_CALL
        return last >= self.start and first <= end


class ShellCalls:
    """The calls begun (on the channel's thread) and ended (on the watcher's loop)."""

    def __init__(self) -> None:
        self.calls: list[ShellCall] = []
        self.lock = threading.Lock()

    def begin(self, session: str, call: str, agent: str, now: float) -> None:
        with self.lock:
            self._forget(now)
            self.calls.append(ShellCall(session, call, agent, now))

    def end(self, session: str, call: str, now: float) -> ShellCall | None:
        """Ends the call (the newest of the session's open ones when ``call`` is not known)."""
        with self.lock:
            for found in reversed(self.calls):
                ours = found.session == session and (not call or found.call == call)
                if ours and found.end is None:
                    found.end = now
                    return found
        return None

    def end_all(self, session: str, now: float, began_before: float) -> None:
        """The session's turn began or ended (the hook said so at ``began_before``): none of
        its calls that began before runs any more (one that began since is the new turn's)."""
        with self.lock:
            for found in self.calls:
                if found.session == session and found.end is None and found.start < began_before:
                    found.end = now

    def any_open(self) -> bool:
        with self.lock:
            return any(found.end is None for found in self.calls)

    def covering(self, first: float, last: float) -> ShellCall | None:
        """The call a change whose events went from ``first`` to ``last`` belongs to."""
        chosen = None
        with self.lock:
            for found in self.calls:
                if found.covers(first, last) and (chosen is None or found.start > chosen.start):
                    chosen = found
        return chosen

    def _forget(self, now: float) -> None:
        self.calls = [
            found
            for found in self.calls
            if (found.end is None and now - found.start < LONGEST_CALL)
            or (found.end is not None and now - found.end < KEEP_ENDED)
        ]
