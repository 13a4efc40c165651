"""A reader that goes away (``rewind log | head -1``) ends every command quietly with exit code
0, as git does: whether the closed pipe is met while the command writes, or only when Python
flushes what it buffered, at exit (issue 24, item 8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ok


@pytest.mark.parametrize(
    "arguments",
    [["sessions"], ["log"], ["status"], ["help", "restore"], ["--help"], ["show", "1"]],
    ids=["sessions", "log", "status", "help", "--help", "show"],
)
def test_a_closed_pipe_ends_a_command_quietly(project: Path, arguments: list[str]) -> None:
    (project / "a.txt").write_text("a\n")
    ok("begin", "--session", "s", "--prompt", "p")
    ok("track", "--session", "s", "a.txt")
    ok("end", "--session", "s")
    reading, writing = os.pipe()
    os.close(reading)  # the reader is gone before the command writes a byte
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "rewind", "--no-pager", *arguments],
            stdout=writing,
            stderr=subprocess.PIPE,
            env=environment,
            timeout=60,
            check=False,
        )
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (0, b"")
