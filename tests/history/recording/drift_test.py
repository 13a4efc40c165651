"""Drift: files changed outside rewind's sight between two turns are found at ``rewind begin``,
kept as an entry of external changes, and rewound like any other entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rewind.history.entry import DRIFT_PROMPT, EXTERNAL, WATCH_AGENT, Entry, FileChange
from rewind.history.filestate import capture
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import Settled, load_head, new_entry_id, save_entry
from tests.conftest import error_line, log_json, ok, run_rewind, store_dir

SESSION = "s"


def files_of(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["path"]: item for item in entry["files"]}


def one_turn(prompt: str, edits: dict[str, str | None]) -> None:
    """A turn through the command line: begin, track, the edits, end."""
    ok("begin", "--session", SESSION, "--prompt", prompt)
    ok("track", "--session", SESSION, *edits)
    for name, text in edits.items():
        if text is None:
            Path(name).unlink()
        else:
            Path(name).write_text(text)
    ok("end", "--session", SESSION)


def test_a_file_changed_between_turns_is_kept_as_an_entry_of_its_own(project: Path) -> None:
    one_turn("write a", {"a.txt": "by the agent\n"})
    Path("a.txt").write_text("by the person\n")

    started = ok("begin", "--session", SESSION, "--prompt", "next")
    assert started.stdout.startswith("turn 3 of session s")
    assert "changed outside rewind since it last recorded them (kept as entry 2" in started.stderr
    assert started.stderr.rstrip().endswith(": a.txt")

    log = log_json("--session", SESSION)
    assert [entry["prompt"] for entry in log] == ["write a", DRIFT_PROMPT, "next"]
    drift = files_of(log[1])["a.txt"]
    assert (drift["source"], drift["status"]) == ("external", "modified")
    assert (drift["added"], drift["removed"]) == (1, 1)
    assert log[1]["ended"] is not None
    assert log[2]["files"] == []
    logged = (store_dir(project) / "rewind" / "rewind.log").read_text()
    assert "1 file(s) changed outside rewind since it last recorded them (a.txt)" in logged


def test_the_change_outside_is_rewound_and_nothing_is_lost(project: Path) -> None:
    Path("a.txt").write_text("original\n")
    one_turn("edit a", {"a.txt": "by the agent\n"})
    Path("a.txt").write_text("by the person\n")
    one_turn("edit a again", {"a.txt": "agent again\n"})

    ok("restore", "--session", SESSION, "3", "--yes")  # before the last turn: the person's text
    assert Path("a.txt").read_text() == "by the person\n"
    ok("restore", "--session", SESSION, "2", "--yes")  # before the change outside
    assert Path("a.txt").read_text() == "by the agent\n"
    ok("undo", "--session", SESSION, "--yes")
    assert Path("a.txt").read_text() == "by the person\n"

    # Further back, the person's change would be undone along the way: refused unless forced.
    refused = run_rewind("restore", "--session", SESSION, "1", "--yes")
    assert "changed outside the agent, kept as entry 2" in refused.stdout
    assert "nothing was written" in error_line(refused)
    assert Path("a.txt").read_text() == "by the person\n"
    ok("restore", "--session", SESSION, "1", "--yes", "--force")
    assert Path("a.txt").read_text() == "original\n"
    ok("undo", "--session", SESSION, "--yes")
    assert Path("a.txt").read_text() == "by the person\n"


def test_deleted_and_recreated_outside(project: Path) -> None:
    Path("gone.txt").write_text("here\n")
    Path("back.txt").write_text("deleted by the agent\n")
    one_turn("edit both", {"gone.txt": "edited\n", "back.txt": None})
    Path("gone.txt").unlink()
    Path("back.txt").write_text("made again\n")
    ok("begin", "--session", SESSION, "--prompt", "next")
    drift = files_of(log_json("--session", SESSION)[1])
    assert drift["gone.txt"]["status"] == "deleted"
    assert drift["back.txt"]["status"] == "added"
    ok("restore", "--session", SESSION, "2", "--yes")
    assert Path("gone.txt").read_text() == "edited\n"
    assert not Path("back.txt").exists()


def test_nothing_changed_outside_adds_no_entry(project: Path) -> None:
    one_turn("write a", {"a.txt": "a\n"})
    Path("never-recorded.txt").write_text("rewind never saw this file\n")
    started = ok("begin", "--session", SESSION, "--prompt", "next")
    assert started.stderr == ""
    assert [entry["turn"] for entry in log_json("--session", SESSION)] == [1, 2]


def test_files_changed_inside_the_open_turn_are_its_own(project: Path) -> None:
    """The open turn's files get their after-states when the next begin closes it: no drift."""
    ok("begin", "--session", SESSION, "--prompt", "first")
    ok("track", "--session", SESSION, "a.txt")
    Path("a.txt").write_text("written during the turn, after the agent's last hook\n")
    started = ok("begin", "--session", SESSION, "--prompt", "next")
    assert started.stderr == ""
    assert files_of(log_json("--session", SESSION)[0])["a.txt"]["status"] == "added"


def test_the_cache_of_last_states_is_rebuilt_when_damaged(project: Path) -> None:
    one_turn("write a", {"a.txt": "a\n"})
    one_turn("write b", {"b.txt": "b\n"})
    cache = store_dir(project) / "rewind" / "sessions" / f"{SESSION}.latest.json"
    # read at the second begin: the history up to the first turn
    assert set(json.loads(cache.read_text())["states"]) == {"a.txt"}
    cache.write_text("{not json")
    Path("a.txt").write_text("changed outside\n")
    ok("begin", "--session", SESSION, "--prompt", "next")
    assert [e["prompt"] for e in log_json("--session", SESSION)][-2] == DRIFT_PROMPT
    assert set(json.loads(cache.read_text())["states"]) == {"a.txt", "b.txt"}


def test_a_restore_is_not_taken_for_a_change_outside(project: Path) -> None:
    Path("a.txt").write_text("original\n")
    one_turn("edit a", {"a.txt": "edited\n"})
    ok("restore", "--session", SESSION, "1", "--yes")
    started = ok("begin", "--session", SESSION, "--prompt", "next")
    assert started.stderr == ""
    assert all(e["prompt"] != DRIFT_PROMPT for e in log_json("--session", SESSION))


def test_a_turn_after_one_watch_mode_opened_does_not_inherit_its_agent(project: Path) -> None:
    store = open_current_store(create=True)
    ok("begin", "--session", SESSION, "--agent", "claude-code")
    with store.lock(), Settled(store, SESSION) as head:  # as rewind.watch.recorder does
        number = head.next_number
        watch_turn = Entry(SESSION, number, new_entry_id(), agent=WATCH_AGENT, started=1.0)
        save_entry(store, head, watch_turn, replace_tip=False)
    ok("begin", "--session", SESSION, "--prompt", "next")
    assert [entry["agent"] for entry in log_json("--session", SESSION)] == [
        "claude-code",
        WATCH_AGENT,
        "",
    ]


def test_changes_watch_mode_kept_between_turns_are_conflicts_further_back(project: Path) -> None:
    Path("a.txt").write_text("original\n")
    one_turn("edit a", {"a.txt": "by the agent\n"})
    store = open_current_store()
    head = load_head(store, SESSION)
    before = head.current.files[0].after if head.current else None
    Path("a.txt").write_text("by the person, seen by the watcher\n")
    after = capture(b"a.txt", store.config.max_file_size, store.writer)
    seen = FileChange(b"a.txt", before, after, at=2.0, source=EXTERNAL)
    watch_turn = Entry(SESSION, 2, new_entry_id(), agent=WATCH_AGENT, started=2.0, files=[seen])
    with store.lock(), Settled(store, SESSION) as head:  # as rewind.watch.recorder does
        save_entry(store, head, watch_turn, replace_tip=False)
    refused = run_rewind("restore", "--session", SESSION, "1", "--yes")
    assert "changed outside the agent, kept as entry 2" in refused.stdout
    assert Path("a.txt").read_text() == "by the person, seen by the watcher\n"
    ok("restore", "--session", SESSION, "2", "--yes")  # the watch turn itself: not refused
    assert Path("a.txt").read_text() == "by the agent\n"
