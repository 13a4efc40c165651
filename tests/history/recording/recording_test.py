"""Recording turns: ``begin`` opens one, ``track`` keeps the state before a change, ``end`` the
state after."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from rewind.history.entry import EDIT, SHELL, FileChange
from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import load_head
from rewind.history.sessions import read_entries
from tests.conftest import log_json, ok, run_rewind, store_dir

SESSION = "s"


def entries() -> list[dict[str, Any]]:
    return log_json("--session", SESSION)


def files_of(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["path"]: item for item in entry["files"]}


def git_blob_id(data: bytes) -> str:
    """The id the real git binary gives ``data``: what rewind must have stored."""
    done = subprocess.run(
        ["git", "hash-object", "--stdin"], input=data, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


def test_begin_starts_numbered_turns_with_prompt_and_agent(project: Path) -> None:
    first = ok("begin", "--session", SESSION, "--prompt", "Fix the bug", "--agent", "claude")
    assert first.stdout.startswith("turn 1 of session s (")
    ok("begin", "--session", SESSION, "--prompt", "Add a test")
    listed = entries()
    assert [(e["turn"], e["kind"], e["prompt"]) for e in listed] == [
        (1, "turn", "Fix the bug"),
        (2, "turn", "Add a test"),
    ]
    assert [e["agent"] for e in listed] == ["claude", "claude"]  # a later turn inherits it


def test_track_records_the_state_before_the_change(project: Path) -> None:
    (project / "a.txt").write_bytes(b"before\n")
    (project / "a.txt").chmod(0o640)
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_bytes(b"after\n")
    before = files_of(entries()[0])["a.txt"]["before"]
    assert before["kind"] == "file"
    assert before["oid"] == git_blob_id(b"before\n")
    assert before["mode"] == 0o640
    assert before["size"] == len(b"before\n")


def test_first_track_in_a_turn_wins(project: Path) -> None:
    (project / "a.txt").write_bytes(b"original\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_bytes(b"first edit\n")
    ok("track", "--session", SESSION, "a.txt", "a.txt")
    (project / "a.txt").write_bytes(b"second edit\n")
    ok("end", "--session", SESSION)
    [entry] = entries()
    assert [f["path"] for f in entry["files"]] == ["a.txt"]
    assert entry["files"][0]["before"]["oid"] == git_blob_id(b"original\n")
    assert entry["files"][0]["after"]["oid"] == git_blob_id(b"second edit\n")


def test_different_spellings_of_one_path_are_one_record(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "a.txt").write_bytes(b"a\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "./a.txt", "sub/../a.txt", str(project / "a.txt"))
    ok("track", "--session", SESSION, "../a.txt", cwd=project / "sub")
    assert [f["path"] for f in entries()[0]["files"]] == ["a.txt"]


def test_missing_path_is_recorded_as_absent(project: Path) -> None:
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "new/deep/file.txt")
    before = files_of(entries()[0])["new/deep/file.txt"]["before"]
    assert before["kind"] == "absent"
    assert before["missing_dirs"] == 2


def test_symlink_is_recorded_as_a_link_not_followed(project: Path) -> None:
    (project / "target.txt").write_bytes(b"target content\n")
    (project / "link").symlink_to("target.txt")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "link")
    before = files_of(entries()[0])["link"]["before"]
    assert before["kind"] == "link"
    assert before["oid"] == git_blob_id(b"target.txt")


def test_track_without_begin_starts_a_turn(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    started = ok("track", "--session", SESSION, "a.txt")
    [entry] = entries()
    assert (entry["turn"], entry["kind"], entry["ended"]) == (1, "turn", None)
    assert [f["path"] for f in entry["files"]] == ["a.txt"]
    # Said on standard error (its output stays empty for scripts); not again in the same turn.
    assert (started.stdout, started.stderr) == (
        "",
        f"rewind: no turn was open in session {SESSION}: started turn 1 without a prompt "
        "('rewind begin --prompt TEXT' starts one with its prompt).\n",
    )
    assert ok("track", "--session", SESSION, "a.txt").stderr == ""


def test_track_after_end_starts_the_next_turn(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    ok("begin", "--session", SESSION, "--prompt", "one")
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_bytes(b"A\n")
    ok("end", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    listed = entries()
    assert [e["turn"] for e in listed] == [1, 2]
    assert listed[1]["files"][0]["before"]["oid"] == git_blob_id(b"A\n")


def test_end_records_after_states_and_closes_the_turn(project: Path) -> None:
    (project / "a.txt").write_bytes(b"one\ntwo\n")
    (project / "gone.txt").write_bytes(b"gone\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt", "gone.txt", "new.txt")
    (project / "a.txt").write_bytes(b"one\n2\nthree\n")
    (project / "gone.txt").unlink()
    (project / "new.txt").write_bytes(b"new\n")
    ok("end", "--session", SESSION)
    [entry] = entries()
    assert entry["ended"] is not None
    files = files_of(entry)
    assert files["a.txt"]["after"]["oid"] == git_blob_id(b"one\n2\nthree\n")
    assert (files["a.txt"]["status"], files["a.txt"]["added"], files["a.txt"]["removed"]) == (
        "modified",
        2,
        1,
    )
    assert files["gone.txt"]["after"]["kind"] == "absent"
    assert files["gone.txt"]["status"] == "deleted"
    assert files["new.txt"]["status"] == "added"


def test_tracked_files_are_pending_while_the_turn_is_open(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    [entry] = entries()
    assert entry["ended"] is None
    assert entry["files"][0]["status"] == "pending"
    assert entry["files"][0]["after"] is None


def test_begin_closes_the_previous_turn_with_its_after_states(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    ok("begin", "--session", SESSION)
    first = entries()[0]
    assert first["ended"] is not None
    assert first["files"][0]["after"]["oid"] == git_blob_id(b"a1\n")


def test_each_turn_records_the_state_it_found(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    ok("end", "--session", SESSION)
    (project / "a.txt").write_bytes(b"edited between turns\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    _, outside, second = entries()
    assert outside["files"][0]["source"] == "external"  # the edit between turns, kept on its own
    assert second["files"][0]["before"]["oid"] == git_blob_id(b"edited between turns\n")


def test_end_without_an_open_turn_changes_nothing(project: Path) -> None:
    ok("begin", "--session", SESSION)
    ok("end", "--session", SESSION)
    again = run_rewind("end", "--session", SESSION)
    assert again.returncode == 0, again
    assert "no open turn" in again.stderr
    assert len(entries()) == 1


def test_session_comes_from_the_environment(project: Path) -> None:
    ok("begin", env={"REWIND_SESSION": "from-env"})
    ok("track", "a.txt", env={"REWIND_SESSION": "from-env"})
    [entry] = log_json("--session", "from-env")
    assert entry["session"] == "from-env"
    assert [f["path"] for f in entry["files"]] == ["a.txt"]


def test_most_recent_session_is_the_default(project: Path) -> None:
    ok("begin", "--session", "older")
    ok("begin", "--session", "newer", "--prompt", "latest")
    ok("track", "b.txt")
    [entry] = log_json()
    assert (entry["session"], entry["prompt"]) == ("newer", "latest")
    assert [f["path"] for f in entry["files"]] == ["b.txt"]


def test_begin_without_a_session_makes_a_new_one(project: Path) -> None:
    result = ok("begin")
    session = result.stdout.split("of session ", 1)[1].split()[0]
    assert log_json("--session", session)[0]["session"] == session


def test_labels_are_recorded(project: Path) -> None:
    ok("begin", "--session", SESSION, "--label", "wip", "--label", "risky")
    assert entries()[0]["labels"] == ["wip", "risky"]


def test_track_only_touches_the_store_outside_the_project(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    assert sorted(p.name for p in project.iterdir()) == [".git", "a.txt"]
    assert (store_dir(project) / "HEAD").is_file()


def test_the_source_of_each_record_is_kept(project: Path) -> None:
    store = open_current_store(create=True)
    (project / "a.txt").write_text("a\n")
    (project / "b.txt").write_text("b\n")
    begin(store, "s", prompt="p")
    track(store, "s", [b"a.txt"], source=SHELL)
    track(store, "s", [b"a.txt", b"b.txt"])  # a.txt's first record (and its source) stays
    record_after(store, "s", close=True)
    entry = read_entries(store, load_head(store, "s"))[-1]
    assert [(c.path, c.source) for c in entry.files] == [(b"a.txt", SHELL), (b"b.txt", EDIT)]


@pytest.mark.unit
def test_records_without_a_source_were_edits() -> None:
    data: dict[str, object] = {"path": "a.txt", "before": None, "after": None, "at": 1.0}
    assert FileChange.from_json(data).source == EDIT
    assert "source" not in FileChange.from_json(data).to_json()
    assert FileChange.from_json({**data, "source": "nonsense"}).source == EDIT
