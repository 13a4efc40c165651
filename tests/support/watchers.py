"""Stopping the watchers the hooks started (capture_programs) and the resident recorders they
started (rewind.resident) when a test or a benchmark ends: each one's pid file is under the
REWIND_HOME it used."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Iterable
from pathlib import Path


def stop_watchers(rewind_home: Path, wait: float = 10.0) -> None:
    """Stops (SIGTERM, then SIGKILL) every watcher whose pid file is in a store under
    ``rewind_home``."""
    _stop_named(rewind_home.glob("stores/*/rewind/watch.json"), wait)


def stop_residents(rewind_home: Path, wait: float = 10.0) -> None:
    """Stops every resident recorder (rewind.resident) of ``rewind_home``."""
    _stop_named(rewind_home.glob("resident/*.json"), wait)


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop_named(files: Iterable[Path], wait: float) -> None:
    pids = []
    for info in files:
        try:
            pid = json.loads(info.read_text())["pid"]
        except (OSError, ValueError, KeyError):
            continue
        if isinstance(pid, int) and pid > 0:
            pids.append(pid)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + wait
    for pid in pids:
        while time.monotonic() < deadline and alive(pid):
            time.sleep(0.05)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours (a Popen not waited for) is not alive
        finished, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        # Nor one that is another's: a watcher the hooks started belongs to init once the
        # hook has exited, and an init that reaps late (as in some containers) left each
        # test waiting about a second and a half for a process that had ended.
        return not _zombie(pid)
    return finished == 0


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has ended and waits to be reaped (Linux's /proc; elsewhere: no). Its
    main thread alone is not enough: it is a zombie while the process's other threads are
    still ending, and still holding its files (the watcher's lock)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[-1].split()
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    return bool(fields) and fields[0] == b"Z" and threads == [str(pid)]
