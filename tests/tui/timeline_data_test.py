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


def test_a_rename_is_one_row_diffed_from_the_old_name(recorded: Store, project: Path) -> None:
    """``mv calc.py arith.py`` (the quicksave's reading: both ends, the move announced), then an
    edit of the new file: one R row ``calc.py → arith.py``, its +/- and diff from the old name's
    content; the deleted old name is not a row of its own."""
    begin(recorded, SESSION, prompt="rename and edit", agent="claude-code")
    track(recorded, SESSION, [b"calc.py", b"arith.py"], moves={b"arith.py": b"calc.py"})
    (project / "calc.py").rename(project / "arith.py")
    with (project / "arith.py").open("a") as handle:
        handle.write("# renamed\n")
    record_after(recorded, SESSION, close=True)
    history = SessionHistory(recorded, SESSION)
    history.reload()
    index = len(history.entries) - 1
    [row] = history.file_rows(index)
    assert (row.path, row.status, row.shown, row.moved_from) == (
        b"arith.py",
        "renamed",
        "calc.py → arith.py",
        b"calc.py",
    )
    assert row.counts is not None and (row.counts.added, row.counts.removed) == (1, 0)
    diff = history.diff_text(index, b"arith.py", "changed")
    number = history.entries[index].number
    assert diff.title == f"arith.py: renamed from calc.py by turn {number}"
    assert "+# renamed" in diff.text and "-def add" not in diff.text
