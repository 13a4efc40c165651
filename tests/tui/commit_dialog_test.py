"""``g`` on the timeline: the prompts behind the commits an entry made, from their notes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Static

from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.tui.app import RewindApp
from rewind.tui.commit_dialog import CommitDialog
from tests.conftest import ok
from tests.tui.conftest import SESSION, turn
from tests.tui.polish_test import run


def git(*arguments: str) -> str:
    done = subprocess.run(["git", *arguments], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def test_g_shows_the_prompts_behind_the_commit_a_turn_made(project: Path) -> None:
    Path("rewind.toml").write_text("[attribution]\nnotes = true\n")
    git("add", "rewind.toml")
    git("commit", "-q", "-m", "settings")
    store = open_current_store(create=True)
    turn(store, "A turn that commits nothing", {"a.txt": "a\n"})
    begin(store, SESSION, prompt="Write calc.py and commit it", agent="claude-code")
    track(store, SESSION, [b"calc.py"])
    Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
    git("add", "calc.py")
    git("commit", "-q", "-m", "calc")
    sha = git("rev-parse", "HEAD")
    ok("hook", "git-post-commit", json.dumps({"commit": sha}))
    record_after(store, SESSION, close=True)

    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, CommitDialog)
        shown = str(app.screen.query_one("#prompts", Static).render())
        assert shown.splitlines() == [
            f"commit {sha[:12]}  calc",
            f"  claude session {SESSION} #2: Write calc.py and commit it",
            "      calc.py 1-2",
        ]
        await pilot.press("escape")
        await pilot.press("up")  # turn 1: it made no commit
        await pilot.press("g")
        await pilot.pause()
        assert not isinstance(app.screen, CommitDialog)
        [notice] = app._notifications
        assert "turn 1 made no commit" in notice.message

    run(project, scenario)
