"""What the hooks do so that the changes the programs an agent runs make are recorded too
(``capture_programs``, on by default; docs/watch.md): they keep the project's watcher running
and tell it when each shell call begins and ends.

- Any prompt or shell call starts the watcher when none runs (``rewind watch`` in the
  background, which stops by itself after :data:`IDLE_EXIT` seconds without a request); the
  hook never waits for it to be ready. A watcher that ended without stopping (killed) left its
  pid file behind: the next one logs the gap it did not see (rewind.watch.pidfile).
- A shell call's before-event tells the watcher the call begins (and waits for the answer, a
  fraction of a millisecond, so the command cannot run before the watcher knows); its
  after-event, and the end of the turn, ask for a **barrier**: the answer comes once every
  change made before it is recorded, in the turn, as the program's. The wait is bounded
  (:data:`BARRIER_TIMEOUT`; a prompt's, :data:`TURN_START_TIMEOUT`); past it, or with no
  watcher to answer, the hook goes on and logs what was not seen.

On the hook path: imports nothing heavy. The channel is tried first, and the pid file and the
kernel's limits are read only when no watcher answers (rewind.watch.pidfile and .limits are
imported then).
"""

from __future__ import annotations

import os
import time

from rewind.store import hook_calls
from rewind.store.repository import Store
from rewind.watch.channel import NoWatcher, ask, supported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Seconds a before-event waits for the watcher's answer (it answers at once when it runs).
BEGIN_TIMEOUT = 1.0
# Seconds a before-event waits for a watcher that is starting (it answers once it watches and
# has read what git does not hold): without it, that call's changes would go unseen. A project
# whose walk takes longer goes on unwatched for that call, and the log says so.
STARTUP_WAIT = 2.0
# Seconds an after-event waits for the barrier: the changes of a storm of files are recorded
# before it is answered.
BARRIER_TIMEOUT = 10.0
# Seconds a prompt's event waits for its barrier: half the shortest time an agent gives that
# event (rewind installs 10 s), so that the hook still begins the turn before it is ended.
TURN_START_TIMEOUT = 5.0
# Seconds the end of a session waits for its barrier, where the agent gives that hook little
# (Codex: 3 s at most).
SESSION_END_TIMEOUT = 1.5
# Seconds a hook-started watcher runs without any hook's request before it stops.
IDLE_EXIT = 30 * 60.0


# Set to 0 (or false, off, no): no capture on this machine, whatever rewind.toml says.
ENVIRONMENT = "REWIND_CAPTURE_PROGRAMS"


def enabled(store: Store) -> bool:
    """``capture_programs`` in rewind.toml (true by default), unless :data:`ENVIRONMENT`
    turns it off; only where the watcher's channel exists (Linux)."""
    if os.environ.get(ENVIRONMENT, "").strip().lower() in ("0", "false", "off", "no"):
        return False
    return store.config.capture_programs and supported()


def ensure_watching(store: Store, log: Callable[[str], None]) -> bool:
    """Starts the project's watcher when none runs (never waits for it); returns whether one
    was running."""
    from rewind.watch.limits import recent_refusal
    from rewind.watch.pidfile import is_running, spawn

    if not enabled(store) or is_running(store):
        return True
    if recent_refusal(store):
        return False  # the kernel's limit: said when it happened, tried again later
    spawn(store, None, idle_exit=IDLE_EXIT)
    return False


def turn_begins(store: Store, session: str, log: Callable[[str], None]) -> None:
    """A prompt, before its turn begins: the watcher is started when none runs. One that runs
    records what changed since the last turn first (a barrier: by hand between two prompts,
    so in a turn of its own, bounded), ends the session's calls still open (a call the client
    refused after its before-event has no after-event), and then reads again what git does not
    hold (its snapshot), which the hook does not wait for."""
    if not enabled(store):
        return
    started = time.monotonic()
    try:
        # A barrier, bounded as the turn's end is: a hand edit the watcher has not recorded
        # yet when the turn opens would be recorded in the turn, as the prompt's.
        ask(store.git_dir, {"op": "turn-start", "session": session}, TURN_START_TIMEOUT)
        return
    except NoWatcher:
        if time.monotonic() - started >= TURN_START_TIMEOUT:
            log(
                "the watcher did not record the changes made before this prompt within "
                f"{TURN_START_TIMEOUT:.0f} s: those it records later are in the prompt's turn"
            )
            return
    ensure_watching(store, log)


def shell_begins(
    store: Store, session: str, call: str, agent: str, log: Callable[[str], None]
) -> None:
    """Tells the watcher a shell call of ``session`` begins (so the changes made until it ends
    are the program's); starts one when none runs."""
    if not enabled(store):
        return
    request: dict[str, object] = {"op": "begin-shell", "session": session, "call": call}
    request["agent"] = agent
    try:
        ask(store.git_dir, request, BEGIN_TIMEOUT)
        return
    except NoWatcher:
        pass
    from rewind.watch.limits import recent_refusal

    running = ensure_watching(store, log)
    deadline = time.monotonic() + STARTUP_WAIT
    why: NoWatcher | None = None
    while time.monotonic() < deadline and not recent_refusal(store):
        try:
            ask(store.git_dir, request, BEGIN_TIMEOUT)
            return
        except NoWatcher as error:
            why = error
        time.sleep(0.02)
    store.note(hook_calls.UNWATCHED)
    state = "did not answer" if running else f"was not ready within {STARTUP_WAIT:.0f} s"
    log(
        "the changes the programs of this shell call make are not watched: the watcher "
        f"{state} ({why or 'no watcher can start here'})"
    )


def shell_ends(store: Store, session: str, call: str, log: Callable[[str], None]) -> None:
    """Waits until the watcher has recorded every change made during the call (bounded)."""
    if enabled(store):
        _barrier(store, {"op": "end-shell", "session": session, "call": call}, log)


def turn_ends(
    store: Store, session: str, log: Callable[[str], None], bound: float = BARRIER_TIMEOUT
) -> None:
    """Before the turn closes: every change made so far is recorded in it (waiting at most
    ``bound`` seconds)."""
    if enabled(store):
        _barrier(store, {"op": "barrier", "session": session}, log, bound)


def _barrier(
    store: Store,
    request: dict[str, object],
    log: Callable[[str], None],
    bound: float = BARRIER_TIMEOUT,
) -> None:
    started = time.monotonic()
    try:
        ask(store.git_dir, request, bound)
    except NoWatcher as why:
        if time.monotonic() - started >= bound:
            log(
                "the watcher did not record the changes made so far within "
                f"{bound:g} s; it records them as it can, and what comes after the "
                "turn's end is kept as a change outside the agent"
            )
        elif _ready(store):  # one still starting has not opened its channel yet: not a problem
            log(f"the watcher did not answer a barrier ({why})")


def _ready(store: Store) -> bool:
    """Whether a watcher runs and said it is ready (its pid file)."""
    from rewind.watch.pidfile import running_info

    info = running_info(store)
    return bool(info and info.get("ready"))
