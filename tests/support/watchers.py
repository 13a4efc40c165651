"""Stopping the watchers the hooks started (capture_programs) when a test or a benchmark
ends: each one's pid file is in a store under the REWIND_HOME it used."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path


def stop_watchers(rewind_home: Path, wait: float = 10.0) -> None:
    """Stops (SIGTERM, then SIGKILL) every watcher whose pid file is in a store under
    ``rewind_home``."""
    pids = []
    for info in rewind_home.glob("stores/*/rewind/watch.json"):
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
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours (a Popen not waited for) is not alive
        finished, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return finished == 0
