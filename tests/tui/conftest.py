"""A real store for the TUI tests: three turns recorded through the engine on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.store.repository import Store

SESSION = "demo"


def turn(store: Store, prompt: str, edits: dict[str, str | None]) -> None:
    """One turn: begin, track the paths, change the files, record the after-states."""
    begin(store, SESSION, prompt=prompt, agent="claude-code")
    track(store, SESSION, [name.encode() for name in edits])
    for name, text in edits.items():
        path = Path(name)
        if text is None:
            path.unlink()
        else:
            path.write_text(text)
    record_after(store, SESSION, close=True)


@pytest.fixture
def recorded(project: Path) -> Store:
    return record_demo()


def record_demo() -> Store:
    """Turn 1 creates calc.py and notes.txt, turn 2 edits calc.py, turn 3 deletes notes.txt."""
    store = open_current_store(create=True)
    turn(
        store,
        "Write a calculator\nwith add and sub",
        {"calc.py": "def add(a, b):\n    return a + b\n", "notes.txt": "todo\n"},
    )
    turn(
        store,
        "Add subtraction",
        {"calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"},
    )
    turn(store, "Remove the notes", {"notes.txt": None})
    return store


@pytest.fixture(autouse=True)
def patient_double_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    """Esc Esc within 5 s opens the rewind menu in the tests: quick for a person is 0.5 s, but a
    machine loaded by other tests may take longer than that between two keys it is sent."""
    monkeypatch.setattr("rewind.tui.app.DOUBLE_ESCAPE_SECONDS", 5.0)
