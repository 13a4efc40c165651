"""Watch-mode tests run the real thing: ``rewind watch`` as a process with a real inotify
observer over a temporary project, and read what it recorded from the store.

Every wait polls for a condition with a generous deadline (the machine is shared); nothing
sleeps for a fixed time and hopes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rewind.history.entry import Entry, FileChange
from rewind.history.restoring.opening import open_store
from rewind.history.session import load_head
from rewind.history.sessions import read_entries
from tests.conftest import ok, store_dir

DEADLINE = 60.0  # seconds: generous, the machine is shared
SESSION = "s"


def wait_for(condition: Callable[[], object], what: str, timeout: float = DEADLINE) -> object:
    """Polls ``condition`` until it returns something true; fails the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def entries(project: Path, session: str = SESSION) -> list[Entry]:
    store = open_store(os.fsencode(os.path.realpath(project)))
    return read_entries(store, load_head(store, session))


def external(project: Path, session: str = SESSION) -> dict[bytes, FileChange]:
    """The newest external change of each path in the session."""
    found: dict[bytes, FileChange] = {}
    for entry in entries(project, session):
        for change in entry.files:
            if change.source == "external":
                found[change.path] = change
    return found


def recorded_with(project: Path, path: str, content: bytes | None, session: str = SESSION) -> bool:
    """Whether an external change of ``path`` now records ``content`` (None: absent)."""
    from rewind.history.filestate import fingerprint

    try:
        change = external(project, session).get(path.encode())
    except Exception:
        return False
    if change is None or change.after is None:
        return False
    if content is None:
        return change.after.kind == "absent"
    return change.after.kind == "file" and change.after.xxh == fingerprint(content)


class Watch:
    """A ``rewind watch`` process in the foreground of a test."""

    def __init__(self, project: Path, *arguments: str) -> None:
        self.project = project
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rewind", "watch", *arguments],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_for(self.ready, "the watcher to be ready")

    def ready(self) -> bool:
        if self.process.poll() is not None:
            _, err = self.process.communicate()
            raise AssertionError(f"rewind watch exited with {self.process.returncode}: {err}")
        info = store_dir(self.project) / "rewind" / "watch.json"
        try:
            data = json.loads(info.read_text())
        except (OSError, ValueError):
            return False
        return bool(data.get("ready")) and data.get("pid") == self.process.pid

    def stop(self, sign: int = signal.SIGTERM) -> str:
        """Stops it as Ctrl+C or SIGTERM would; returns its standard error."""
        if self.process.poll() is None:
            self.process.send_signal(sign)
        _, err = self.process.communicate(timeout=DEADLINE)
        assert self.process.returncode == 0, err
        return err


@pytest.fixture
def committed(project: Path) -> Path:
    """The git project with a few committed files, and a session begun (turn 1)."""
    (project / "src").mkdir()
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "notes.txt").write_text("one\ntwo\nthree\n")
    (project / "old.txt").write_text("to be renamed\n")
    (project / "doomed.txt").write_text("to be deleted\n")
    (project / "config.ini").write_text("[main]\nkey = 1\n")
    (project / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (project / "run.sh").chmod(0o755)
    (project / ".gitignore").write_text("build/\n*.log\n")
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=project, check=True)
    ok("begin", "--session", SESSION, "--agent", "claude-code", "--prompt", "work")
    return project


@pytest.fixture
def watching(committed: Path) -> Iterator[Watch]:
    watch = Watch(committed, "--session", SESSION)
    yield watch
    if watch.process.poll() is None:
        watch.stop()
