"""The rows the TUI shows, built from the engine without any widget."""

from __future__ import annotations

from pathlib import Path

from rewind.history.recording.turns import begin, record_after, track
from rewind.store.repository import Store
from rewind.tui.app import RewindApp
from rewind.tui.timeline_data import TO_NOW, SessionHistory, session_rows
from tests.tui.conftest import SESSION


def test_rows_and_kinds(recorded: Store) -> None:
    begin(recorded, "git", prompt="pre-commit on main at 10:00", agent="git")
    track(recorded, "git", [b"calc.py"])
    record_after(recorded, "git", close=True)
    history = SessionHistory(recorded, "git")
    assert history.reload()
    [row] = history.rows()
    assert row.kind == "pre-commit"
    assert not history.reload()  # nothing new: nothing re-read
    agents = {row.session_id: row.agent for row in session_rows(recorded)}
    assert agents == {"git": "git", SESSION: "claude-code"}


def test_counts_and_notes(recorded: Store, project: Path) -> None:
    history = SessionHistory(recorded, SESSION)
    history.reload()
    counts = history.entry_counts(1)
    assert (counts.added, counts.removed) == (4, 0)
    (project / "calc.py").unlink()
    diff = history.diff_text(1, b"calc.py", TO_NOW)
    assert "-def add(a, b):" in diff.text


def test_no_color_is_respected(recorded: Store, project: Path) -> None:
    # tests/conftest.py sets NO_COLOR for every test; Textual drops colours when it is set
    assert RewindApp(str(project), SESSION, watch=False).no_color
