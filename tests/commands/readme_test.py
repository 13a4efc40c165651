"""README.md's examples that a person copies: they run as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import log_json
from tests.support.paths import ROOT


def block_after(heading: str) -> str:
    """The first ```sh block of README.md after ``heading``."""
    text = (ROOT / "README.md").read_text()
    found = re.search(re.escape(heading) + r".*?```sh\n(.*?)```", text, re.S)
    assert found is not None, heading
    return found.group(1)


def test_the_hook_events_sent_by_hand_record_a_turn_and_restore_it(project: Path) -> None:
    script = block_after("### What a hook receives, by hand")
    path = f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"
    environment = {**os.environ, "PATH": path, "REWIND_CAPTURE_PROGRAMS": "0"}
    environment.pop("CLAUDE_PROJECT_DIR", None)
    done = subprocess.run(
        ["sh", "-e", "-c", script],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done
    assert "write hello.txt" in done.stdout and "A hello.txt  +1 -0" in done.stdout, done.stdout
    assert not (project / "hello.txt").exists()  # the restore at its end
    turn, restore = log_json("--session", "try-1")
    assert (turn["prompt"], turn["agent"], restore["kind"]) == (
        "write hello.txt",
        "claude-code",
        "restore",
    )
