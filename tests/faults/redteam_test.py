"""Sequences found to lose a record, apply one twice, or block a hook; each test failed before
its fix."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewind.history import journal
from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import journal_path_of
from rewind.store.objects import ObjectReader
from rewind.store.repository import Store, StoreLock
from tests.conftest import log_json, ok, store_dir
from tests.support.agent_payloads import ClaudeCode

SESSION = "s1"
THREE_HOURS = 3 * 60 * 60


def journal_file(store: Store, session: str = SESSION) -> Path:
    return Path(journal_path_of(store, session))


def spool_files(store: Store) -> list[Path]:
    return sorted(p for p in journal_file(store).parent.iterdir() if journal.SPOOL_MARK in p.name)


def age_object(project: Path, oid: str) -> None:
    path = store_dir(project) / "objects" / oid[:2] / oid[2:]
    then = time.time() - THREE_HOURS
    os.utime(path, (then, then))


def spool_while_the_journal_is_held(
    store: Store, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """``track`` while another process holds the open turn's journal: the record is spooled."""
    monkeypatch.setattr(journal, "APPEND_LOCK_TIMEOUT", 0.2)
    fd = os.open(journal_file(store), os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        track(store, SESSION, [os.fsencode(path)])
    finally:
        os.close(fd)


class TestGcAndJournals:
    def test_gc_runs_once_a_journal_was_set_aside(self, project: Path) -> None:
        Path("a.txt").write_text("a\n")
        ok("track", "--session", SESSION, "a.txt")
        ok("end", "--session", SESSION)
        store = open_current_store()
        journal_file(store).write_text('{"journal":"0123456789abcdef","entry":"000000000000"}\n')
        ok("begin", "--session", SESSION)  # sets it aside, in journal/_orphaned/
        assert (journal_file(store).parent / journal.ORPHAN_DIR).is_dir()
        ok("gc")  # before the fix: IsADirectoryError, every gc, for good

    def test_gc_keeps_the_objects_of_records_spooled_while_no_turn_was_open(
        self, project: Path
    ) -> None:
        Path("a.txt").write_text("a\n")
        ok("track", "--session", SESSION, "a.txt")
        ok("end", "--session", SESSION)
        store = open_current_store()
        Path("b.txt").write_text("the only copy of b\n")
        # A hook that could not get the store lock to start a turn spools its record; there is
        # no journal until the next turn starts.
        store.lock_timeout = 0.1
        with StoreLock(store.state_path("lock")):
            states = track(store, SESSION, [b"b.txt"])
        assert len(spool_files(store)) == 1 and not journal_file(store).exists()
        oid = states[b"b.txt"].oid
        assert oid is not None
        age_object(project, oid)  # nobody started a turn for hours
        ok("gc")
        ok("begin", "--session", SESSION)  # the next turn takes the spooled record in
        Path("b.txt").write_text("changed\n")
        ok("end", "--session", SESSION)
        assert ObjectReader(str(store_dir(project))).read_blob(oid) == b"the only copy of b\n"
        ok("restore", "2", "--session", SESSION, "--yes")
        assert Path("b.txt").read_text() == "the only copy of b\n"

    def test_gc_keeps_the_objects_of_a_journal_set_aside(self, project: Path) -> None:
        Path("a.txt").write_text("a\n")
        ok("track", "--session", SESSION, "a.txt")
        ok("end", "--session", SESSION)
        store = open_current_store()
        oid = store.writer.write_blob(b"named only by the stray journal\n")
        stray = {"path": "x.txt", "before": {"kind": "file", "oid": oid, "mode": 420}, "at": 1.0}
        journal_file(store).write_text(
            '{"journal":"0123456789abcdef","entry":"000000000000"}\n'
            + json.dumps({"before": [{**stray, "after": None}]})
            + "\n"
        )
        ok("begin", "--session", SESSION)  # set aside, "kept for people"
        age_object(project, oid)
        ok("gc")
        data = ObjectReader(str(store_dir(project))).read_blob(oid)
        assert data == b"named only by the stray journal\n"


class TestHooksDuringARestore:
    def test_a_hook_does_not_wait_for_a_restore_under_way(self, project: Path) -> None:
        Path("a.txt").write_text("one\n")
        agent = ClaudeCode(project, session="s2")
        subprocess.run(
            [sys.executable, "-m", "rewind", "hook", "claude-code"],
            input=json.dumps(agent.prompt("go")),
            text=True,
            check=True,
            timeout=60,
        )
        store = open_current_store()
        before, _ = agent.edit("a.txt", "one", "two")
        # A restore of another session is under way: it holds the store and its journal says
        # so, for as long as it writes files.
        with StoreLock(store.state_path("lock")):
            restore_journal = store_dir(project) / "rewind" / "restore-journal.json"
            restore_journal.write_text(
                json.dumps({"session": SESSION, "entry": "000000000000", "pid": os.getpid()})
            )
            process = subprocess.Popen(
                [sys.executable, "-m", "rewind", "hook", "claude-code"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                # Appending to the open turn's journal takes no store lock: it must not wait.
                process.communicate(json.dumps(before), timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                pytest.fail("the hook waited for the restore of another session")
            restore_journal.unlink()  # the restore finished
        assert process.returncode == 0
        [turn] = log_json("--session", "s2")
        assert [f["path"] for f in turn["files"]] == ["a.txt"]


class TestSpooledRecords:
    def test_a_spool_file_a_commit_holds_is_not_applied_to_the_next_turn(
        self, project: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = open_current_store(create=True)
        Path("a.txt").write_text("before turn 1\n")
        begin(store, SESSION)
        spool_while_the_journal_is_held(store, monkeypatch, "a.txt")
        [spooled] = spool_files(store)
        kept = spooled.parent / "kept"
        shutil.copy(spooled, kept)
        Path("a.txt").write_text("after turn 1\n")
        ok("end", "--session", SESSION)
        # What a fold killed between its commit and the spool file's removal leaves behind:
        shutil.copy(kept, spooled)
        kept.unlink()
        ok("begin", "--session", SESSION)
        ok("track", "--session", SESSION, "a.txt")
        Path("a.txt").write_text("after turn 2\n")
        ok("end", "--session", SESSION)
        turns = log_json("--session", SESSION)
        assert turns[1]["files"][0]["before"]["size"] == len("after turn 1\n")
        ok("restore", "2", "--session", SESSION, "--yes")
        assert Path("a.txt").read_text() == "after turn 1\n"  # not turn 1's pre-image


class TestJournalLeftByAnInterruptedFold:
    def test_records_appended_after_an_interrupted_end_make_the_next_turn(
        self, project: Path
    ) -> None:
        store = open_current_store(create=True)
        Path("a.txt").write_text("a\n")
        begin(store, SESSION)
        track(store, SESSION, [b"a.txt"])
        saved = journal_file(store).read_bytes()
        ok("end", "--session", SESSION)
        # 'rewind end' killed between its commit and the journal's removal:
        journal_file(store).write_bytes(saved)
        Path("b.txt").write_text("b as it was\n")
        ok("track", "--session", SESSION, "b.txt")  # an agent's hook, before its edit
        Path("b.txt").write_text("b edited\n")
        ok("begin", "--session", SESSION)
        ok("end", "--session", SESSION)
        ok("restore", "2", "--session", SESSION, "--yes")
        assert Path("b.txt").read_text() == "b as it was\n"

    def test_records_appended_after_an_interrupted_restore_make_the_next_turn(
        self, project: Path
    ) -> None:
        store = open_current_store(create=True)
        Path("a.txt").write_text("a\n")
        begin(store, SESSION)
        track(store, SESSION, [b"a.txt"])
        Path("a.txt").write_text("a edited\n")
        record_after(store, SESSION, close=True)
        begin(store, SESSION)
        Path("c.txt").write_text("c\n")
        track(store, SESSION, [b"c.txt"])
        saved = journal_file(store).read_bytes()
        ok("restore", "1", "--session", SESSION, "--yes")
        # The restore killed between its commit and the journal's removal:
        journal_file(store).write_bytes(saved)
        Path("b.txt").write_text("b as it was\n")
        ok("track", "--session", SESSION, "b.txt")
        Path("b.txt").write_text("b edited\n")
        ok("begin", "--session", SESSION)  # the late record becomes a turn of its own first
        ok("end", "--session", SESSION)
        [*_, restore, turn, _] = log_json("--session", SESSION)
        assert restore["kind"] == "restore"
        assert [f["path"] for f in turn["files"]] == ["b.txt"]
        ok("restore", turn["id"], "--session", SESSION, "--yes")
        assert Path("b.txt").read_text() == "b as it was\n"


class TestSessionNames:
    def test_a_session_named_like_the_folder_of_journals_set_aside_records(
        self, project: Path
    ) -> None:
        Path("a.txt").write_text("a\n")
        ok("track", "--session", SESSION, "a.txt")
        ok("end", "--session", SESSION)
        store = open_current_store()
        journal_file(store).write_text('{"journal":"0123456789abcdef","entry":"000000000000"}\n')
        ok("begin", "--session", SESSION)  # sets it aside
        Path("b.txt").write_text("b\n")
        ok("track", "--session", "orphaned", "b.txt")
        [turn] = log_json("--session", "orphaned")
        assert [f["path"] for f in turn["files"]] == ["b.txt"]

    def test_a_session_named_like_a_spool_file_keeps_its_journal(self, project: Path) -> None:
        Path("a.txt").write_text("a\n")
        Path("b.txt").write_text("b\n")
        other = SESSION + ".spool-1-2-3"  # what spool files of s1 were named
        ok("track", "--session", other, "b.txt")
        ok("track", "--session", SESSION, "a.txt")
        ok("end", "--session", SESSION)  # must not take the other session's journal for its own
        [turn] = log_json("--session", other)
        assert [f["path"] for f in turn["files"]] == ["b.txt"]
        [turn] = log_json("--session", SESSION)
        assert [f["path"] for f in turn["files"]] == ["a.txt"]
