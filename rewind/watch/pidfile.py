"""One watcher per project: its lock and pid file in the store, starting one in the
background, stopping it, and saying whether one runs.

The watcher holds an exclusive ``flock`` on ``rewind/watch.lock`` for as long as it runs (the
kernel drops it when the process ends, however it ends), and writes ``rewind/watch.json``:
its pid, session, start time and whether it is ready. A pid file whose lock nobody holds is
stale and ignored. This module is imported by the Claude Code hooks: it imports nothing heavy.
"""

from __future__ import annotations

import fcntl
import os
import time

from rewind.store.atomic import write_text_atomically
from rewind.store.fastjson import dumps, load_object
from rewind.store.repository import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

LOCK_NAME = "watch.lock"
INFO_NAME = "watch.json"
OUTPUT_NAME = "watch.out"


class WatchLock:
    """The lock a running watcher holds; ``acquire`` returns False when another one runs."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.fd = -1

    def acquire(self) -> bool:
        os.makedirs(self.store.state_path(), exist_ok=True)
        fd = os.open(self.store.state_path(LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.fd = fd
        return True

    def write_info(self, session: str | None, ready: bool) -> None:
        info = {
            "pid": os.getpid(),
            "session": session or "",
            "root": os.fsdecode(self.store.root.path),
            "started": time.time(),
            "ready": ready,
        }
        write_text_atomically(self.store.state_path(INFO_NAME), dumps(info))

    def release(self) -> None:
        if self.fd < 0:
            return
        try:
            os.unlink(self.store.state_path(INFO_NAME))
        except FileNotFoundError:
            pass
        os.close(self.fd)
        self.fd = -1


def is_running(store: Store) -> bool:
    """Whether a watcher holds the project's lock now."""
    path = store.state_path(LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also releases the lock if this process just took it
    return False


def running_info(store: Store) -> dict[str, object] | None:
    """The running watcher's pid file, or None when none runs (a stale file is ignored)."""
    if not is_running(store):
        return None
    try:
        with open(store.state_path(INFO_NAME), encoding="utf-8") as handle:
            return load_object(handle.read())
    except (OSError, ValueError):
        return {}  # running, but its pid file is not written yet


def stop(store: Store, wait: float = 10.0) -> tuple[bool, str]:
    """Sends SIGTERM to the running watcher and waits up to ``wait`` seconds for it to end.

    Returns (whether one was running, a message for people).
    """
    import signal

    info = running_info(store)
    if info is None:
        return False, "no watcher is running for this project"
    pid = info.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return True, "a watcher is starting; run 'rewind watch --stop' again in a moment"
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False, "no watcher is running for this project"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not is_running(store):
            return True, f"stopped the watcher (pid {pid})"
        time.sleep(0.05)
    if wait > 0:
        return True, f"asked the watcher (pid {pid}) to stop; it has not ended yet"
    return True, f"asked the watcher (pid {pid}) to stop"


def spawn(
    store: Store,
    session: str | None,
    python: str | None = None,
    idle_exit: float | None = None,
) -> subprocess.Popen[bytes]:
    """Starts ``rewind watch`` in the background, in its own session (no terminal signals
    reach it), and returns at once. Its output goes to ``rewind/watch.out`` in the store.
    ``idle_exit``: it stops after that many seconds without a hook's request."""
    import subprocess
    import sys

    arguments = [python or sys.executable, "-m", "rewind", "-C", os.fsdecode(store.root.path)]
    arguments += ["watch", "--background"]
    if session:
        arguments += ["--session", session]
    if idle_exit is not None:
        arguments += ["--idle-exit", str(idle_exit)]
    os.makedirs(store.state_path(), exist_ok=True)
    with open(store.state_path(OUTPUT_NAME), "ab") as output:
        process = subprocess.Popen(
            arguments,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
            close_fds=True,
        )
    return process


def note_gap(store: Store) -> None:
    """Before a new watcher writes its pid file: one left behind (its lock is free, since this
    process holds it now) is a watcher that ended without stopping (killed). From when it was
    last alive (the file's time, which a watcher touches every few seconds) until now, nothing
    was seen: the store's log says so."""
    path = store.state_path(INFO_NAME)
    try:
        last_alive = os.stat(path).st_mtime
        with open(path, encoding="utf-8") as handle:
            pid = load_object(handle.read()).get("pid", "?")
    except (OSError, ValueError):
        return
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last_alive))
    store.log_problem(
        f"watch: the watcher before this one (pid {pid}) ended without stopping (killed?): "
        f"changes made by programs or by hand from about {since} until now were not seen"
    )
