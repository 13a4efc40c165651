"""Labels given after the fact: ``rewind label``, shown by the log, kept by gc, gone with forget."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rewind.history.insight.labels import add_label, remove_label
from rewind.history.restoring.opening import open_store
from rewind.history.session import load_head
from rewind.history.sessions import labels_of
from rewind.history.upkeep.collection import reachable_objects
from tests.conftest import run_rewind
from tests.store.packing_test import age_all_loose_objects, loose_objects, store_path
from tests.support.git import git, git_outcome


def ok(*args: str) -> str:
    result = run_rewind(*args)
    assert result.returncode == 0, result
    return result.stdout


def refused(*args: str) -> str:
    result = run_rewind(*args)
    assert result.returncode == 1, result
    assert result.stdout == ""
    return result.stderr


def two_turns(project: Path, session: str = "s") -> None:
    (project / "a.txt").write_text("first\n")
    ok("begin", "--session", session, "--prompt", "one", "--label", "from-begin")
    ok("track", "--session", session, "a.txt")
    (project / "a.txt").write_text("second\n")
    ok("begin", "--session", session, "--prompt", "two")
    ok("track", "--session", session, "a.txt")
    (project / "a.txt").write_text("third\n")


def log_labels(session: str = "s") -> list[list[str]]:
    return [entry["labels"] for entry in json.loads(ok("log", "--json", "--session", session))]


def test_label_is_shown_by_log_and_removed(project: Path) -> None:
    two_turns(project)
    assert "labelled turn 1" in ok("label", "1", "before-refactor")
    ok("label", "1", "before-refactor")  # again: nothing changes
    ok("label", "1", "v1.2")
    assert log_labels() == [["from-begin", "before-refactor", "v1.2"], []]
    text = ok("log")
    assert "one [from-begin, before-refactor, v1.2]" in text
    assert "one [from-begin, before-refactor, v1.2]" in ok("show", "1").splitlines()[0]

    store = store_path()
    commit = git("rev-parse", "refs/rewind/labels/s/before-refactor", git_dir=store).strip()
    first = git("rev-parse", "refs/rewind/sessions/s~1", git_dir=store).strip()
    assert commit == first

    assert "removed label v1.2 from turn 1" in ok("label", "--remove", "1", "v1.2")
    assert log_labels() == [["from-begin", "before-refactor"], []]
    assert not (store / "refs/rewind/labels/s/v1.2").exists()


def test_open_turn_and_bad_names_are_refused(project: Path) -> None:
    two_turns(project)
    assert "turn 2 is still open; label it once it ends" in refused("label", "2", "wip")
    assert "cannot be a label" in refused("label", "1", "../sessions/s")
    assert "cannot be a label" in refused("label", "1", "a/b")
    assert "cannot be a label" in refused("label", "--remove", "1", "../sessions/s")
    assert "there is no turn '7'" in refused("label", "7", "nope")
    ok("end", "--session", "s")
    ok("label", "2", "done")
    assert "already names turn 2" in refused("label", "1", "done")
    assert "is on turn 2, not on turn 1" in refused("label", "--remove", "1", "done")
    assert "turn 1 has no label 'other'" in refused("label", "--remove", "1", "other")
    assert "part of its record" in refused("label", "--remove", "1", "from-begin")
    assert log_labels() == [["from-begin"], ["done"]]
    assert (project / "a.txt").read_text() == "third\n"  # labelling recorded nothing


def test_gc_keeps_what_a_label_reaches(project: Path) -> None:
    """A label ref keeps its entry and the entry's history, even with no session ref left."""
    two_turns(project)
    ok("end", "--session", "s")
    ok("label", "1", "keep")
    store = store_path()
    git("update-ref", "-d", "refs/rewind/sessions/s", git_dir=store)
    age_all_loose_objects(store)
    ok("gc")
    assert loose_objects(store) == []
    assert git("show", "refs/rewind/labels/s/keep:files/0.before", git_dir=store) == "first\n"
    assert git("show", "refs/rewind/labels/s/keep:files/0.after", git_dir=store) == "second\n"
    fsck = git_outcome("fsck", "--no-dangling", git_dir=store)
    assert fsck.returncode == 0, fsck.stderr


def test_forget_removes_the_labels_and_gc_frees_them(project: Path) -> None:
    two_turns(project, "drop")
    two_turns(project, "keep")
    ok("end", "--session", "drop")
    ok("end", "--session", "keep")
    ok("label", "--session", "drop", "1", "mine")
    ok("label", "--session", "keep", "1", "mine")
    store = open_store(os.path.realpath(os.fsencode(project)))
    before = reachable_objects(store)
    assert "and its 1 label(s)" in ok("forget", "drop", "--yes")
    assert not (store_path() / "refs/rewind/labels/drop").exists()
    after = reachable_objects(store)
    assert after < before
    age_all_loose_objects(store_path())
    ok("gc")
    assert log_labels("keep") == [["from-begin", "mine"], []]
    assert ok("check").startswith("checked")


def test_engine_functions_take_entries_and_odd_session_ids(project: Path) -> None:
    two_turns(project, "a session with spaces")
    ok("end", "--session", "a session with spaces")
    store = open_store(os.path.realpath(os.fsencode(project)))
    head = load_head(store, "a session with spaces")
    assert head.current is not None
    second = add_label(store, "a session with spaces", head.current, "latest")
    first = add_label(store, "a session with spaces", "1", "earliest")
    assert labels_of(store, "a session with spaces") == {
        first.id: ["earliest"],
        second.id: ["latest"],
    }
    labels = store.all_ref_names("refs/rewind/labels/")
    assert len(labels) == 2 and all(name.startswith("refs/rewind/labels/x-") for name in labels)
    remove_label(store, "a session with spaces", second, "latest")
    assert labels_of(store, "a session with spaces") == {first.id: ["earliest"]}
