"""The open turn's journal: records are appended, never rewritten, and folded exactly once."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewind.history import journal
from rewind.history.recording.turns import begin, record_after, record_after_states, track
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import journal_path_of
from rewind.store.repository import Store, StoreLock
from tests.conftest import error_line, log_json, ok, run_rewind, store_dir

SESSION = "s1"


def ref_of(project: Path) -> str:
    return (store_dir(project) / "refs" / "rewind" / "sessions" / SESSION).read_text()


def journal_file(store: Store) -> Path:
    return Path(journal_path_of(store, SESSION))


def store_log(project: Path) -> str:
    path = store_dir(project) / "rewind" / "rewind.log"
    return path.read_text() if path.exists() else ""


def test_tracking_appends_to_the_journal_and_leaves_the_turns_commit_alone(
    project: Path,
) -> None:
    ok("begin", "--session", SESSION, "--prompt", "many files")
    tip = ref_of(project)
    for index in range(5):
        Path(f"f{index}.txt").write_text(f"{index}\n")
        ok("track", "--session", SESSION, f"f{index}.txt")
    assert ref_of(project) == tip  # no commit per record
    [turn] = log_json("--session", SESSION)
    assert turn["ended"] is None
    assert [f["path"] for f in turn["files"]] == [f"f{index}.txt" for index in range(5)]
    ok("end", "--session", SESSION)
    store = open_current_store()
    assert not journal_file(store).exists()
    [turn] = log_json("--session", SESSION)
    assert turn["ended"] is not None and len(turn["files"]) == 5


def test_a_line_cut_short_by_a_killed_hook_is_skipped_and_later_records_land(
    project: Path,
) -> None:
    Path("a.txt").write_text("a\n")
    Path("b.txt").write_text("b\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    store = open_current_store()
    with journal_file(store).open("ab") as handle:
        handle.write(b'{"before":[{"path":"gone.txt","bef')  # no newline: a writer died here
    ok("track", "--session", SESSION, "b.txt")
    [turn] = log_json("--session", SESSION)
    assert [f["path"] for f in turn["files"]] == ["a.txt", "b.txt"]
    Path("a.txt").write_text("changed\n")
    ok("end", "--session", SESSION)
    ok("restore", "1", "--session", SESSION, "--yes")
    assert Path("a.txt").read_text() == "a\n"


def test_a_fold_interrupted_before_the_journal_was_removed_is_not_applied_again(
    project: Path,
) -> None:
    store = open_current_store(create=True)
    Path("a.txt").write_text("before\n")
    begin(store, SESSION)
    track(store, SESSION, [b"a.txt"])
    Path("a.txt").write_text("first after\n")
    record_after_states(store, SESSION, [b"a.txt"])
    saved = journal_file(store).read_bytes()
    Path("a.txt").write_text("last after\n")
    record_after(store, SESSION, close=True)
    # What a fold killed between its commit and the journal's removal leaves behind:
    journal_file(store).write_bytes(saved)
    [turn] = log_json("--session", SESSION)
    after = turn["files"][0]["after"]
    assert after["size"] == len("last after\n")  # the journal's older after-state is not reapplied
    ok("begin", "--session", SESSION)
    assert not journal_file(store).exists()
    assert not (journal_file(store).parent / journal.ORPHAN_DIR).exists()


def test_a_journal_of_no_open_turn_is_set_aside_and_never_applied(project: Path) -> None:
    Path("a.txt").write_text("a\n")
    ok("track", "--session", SESSION, "a.txt")
    ok("end", "--session", SESSION)
    store = open_current_store()
    stray = journal_file(store)
    stray.write_text(
        '{"journal":"0123456789abcdef","entry":"000000000000"}\n'
        '{"before":[{"path":"x.txt","before":{"kind":"absent"},"after":null,"at":1.0}]}\n'
    )
    ok("begin", "--session", SESSION)
    entries = log_json("--session", SESSION)
    assert all(f["path"] != "x.txt" for entry in entries for f in entry["files"])
    [kept] = [p for p in (stray.parent / journal.ORPHAN_DIR).iterdir() if p.suffix != ".why"]
    assert "x.txt" in kept.read_text()
    assert "set aside" in store_log(project)


def test_records_that_cannot_wait_for_the_journals_lock_are_spooled_then_picked_up(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_current_store(create=True)
    begin(store, SESSION)
    Path("a.txt").write_text("kept\n")
    monkeypatch.setattr(journal, "APPEND_LOCK_TIMEOUT", 0.2)
    fd = os.open(journal_file(store), os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another process holds the journal, and does not let go
    try:
        track(store, SESSION, [b"a.txt"])
    finally:
        os.close(fd)
    spooled = [p for p in journal_file(store).parent.iterdir() if journal.SPOOL_MARK in p.name]
    assert len(spooled) == 1
    assert "kept in" in store_log(project)
    [turn] = log_json("--session", SESSION)
    assert [f["path"] for f in turn["files"]] == ["a.txt"]
    Path("a.txt").write_text("changed\n")
    ok("end", "--session", SESSION)
    assert not spooled[0].exists()
    ok("restore", "1", "--session", SESSION, "--yes")
    assert Path("a.txt").read_text() == "kept\n"


def test_parallel_writers_lose_no_record(project: Path) -> None:
    ok("begin", "--session", SESSION)
    names = [f"f{index:02d}.txt" for index in range(24)]
    for name in names:
        Path(name).write_text(name)
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "rewind", "track", "--session", SESSION, *names[i::6]],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for i in range(6)
    ]
    for process in processes:
        assert process.wait(timeout=60) == 0
    [turn] = log_json("--session", SESSION)
    assert sorted(f["path"] for f in turn["files"]) == names


class TestWaitingForTheStore:
    def test_a_command_says_what_it_waits_for(self, project: Path) -> None:
        Path("a.txt").write_text("a\n")
        ok("track", "--session", SESSION, "a.txt")
        store = open_current_store()
        with StoreLock(store.state_path("lock")):
            process = subprocess.Popen(
                [sys.executable, "-m", "rewind", "end", "--session", SESSION],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            time.sleep(2.5)  # the command waits, and says so after a second
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0
        assert f"waiting for the store, which process {os.getpid()}" in stderr

    def test_it_gives_up_with_a_sentence_and_changes_nothing(self, project: Path) -> None:
        Path("a.txt").write_text("a\n")
        ok("track", "--session", SESSION, "a.txt")
        store = open_current_store()
        with StoreLock(store.state_path("lock")):
            result = run_rewind("end", "--session", SESSION, env={"REWIND_LOCK_WAIT": "1.5"})
        assert result.returncode == 1
        assert "gave up after waiting 2 s for the store" in result.stderr
        assert "nothing was changed" in result.stderr
        [turn] = log_json("--session", SESSION)
        assert turn["ended"] is None


def test_forget_removes_the_open_turns_journal(project: Path) -> None:
    Path("a.txt").write_text("a\n")
    ok("track", "--session", SESSION, "a.txt")
    store = open_current_store()
    assert journal_file(store).exists()
    ok("forget", SESSION, "--yes")
    assert not journal_file(store).exists()
    assert error_line(run_rewind("log", "--session", SESSION))


def test_labels_appended_to_open_turns_land_on_them_and_survive_a_refold(project: Path) -> None:
    ok("begin", "--session", SESSION, "--prompt", "open", "--label", "first")
    ok("begin", "--session", "s2", "--prompt", "other open")
    store = open_current_store()
    directory = str(journal_file(store).parent)
    hour = lambda name: 3600.0  # noqa: E731
    assert journal.label_open_turns(directory, "commit:0123456789ab", hour) == 2
    assert journal.label_open_turns(directory, "commit:0123456789ab", hour) == 2  # once each
    [turn] = log_json("--session", SESSION)
    assert turn["labels"] == ["first", "commit:0123456789ab"]
    records = journal.read(str(journal_file(store)))
    assert records is not None
    assert journal.records_after(records, 0) == {
        "before": [],
        "after": [],
        "labels": ["commit:0123456789ab", "commit:0123456789ab"],
    }
    ok("end", "--session", SESSION)
    [turn] = log_json("--session", SESSION)
    assert turn["labels"] == ["first", "commit:0123456789ab"]
    assert journal.label_open_turns(directory, "commit:fedcba987654", hour) == 1  # s2 only
    # A turn whose journal nobody wrote to for longer than its age takes no label.
    old = time.time() - 7200
    os.utime(journal_path_of(store, "s2"), (old, old))
    assert journal.label_open_turns(directory, "commit:aaaaaaaaaaaa", hour) == 0
    bad: dict[str, object] = {"labels": ["ok", "\udcff", "x" * 201, "esc\x1b[2J", 7, "fine"]}
    assert journal.append(journal_path_of(store, "s2"), bad)
    [turn] = log_json("--session", "s2")
    assert turn["labels"] == ["commit:0123456789ab", "commit:fedcba987654", "ok", "fine"]
