"""The disaster drill: every kept state rebuilt in a scratch directory and verified, the work tree
untouched; what cannot be restored is named with its entry and path (rewind check --drill)."""

from __future__ import annotations

import json
import os
import random
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rewind
from rewind.api import RewindWarning
from rewind.history import commits
from rewind.history.entry import Entry
from rewind.history.restoring.opening import open_store
from rewind.history.session import load_head
from rewind.history.sessions import read_entries_with_commits
from rewind.history.upkeep.drill import CORRUPTED, DAMAGED, MISMATCH, MISSING, SCRATCH_PREFIX, drill
from rewind.store.failure_log import STORE_LOG
from rewind.store.repository import Store
from tests.conftest import error_line, ok, run_rewind, snapshot, store_dir

SESSION = "s"


def recorded_history(project: Path, session: str = SESSION) -> rewind.Project:
    """Two turns: an edit, a new file, a deletion, a file too large to keep, an executable
    edited, a symlink pointed elsewhere; then the first file edited again."""
    (project / "rewind.toml").write_text("max_file_size = 64\n")
    (project / "a.txt").write_text("one\n")
    (project / "old.txt").write_text("old\n")
    (project / "big.bin").write_bytes(b"x" * 100)
    (project / "run.sh").write_text("#!/bin/sh\necho 1\n")
    (project / "run.sh").chmod(0o755)
    (project / "link").symlink_to("a.txt")
    history = rewind.Project(project, session=session, agent="tester")
    with history.turn("first") as turn:
        turn.write_text("a.txt", "two\n")
        turn.write_text("new.txt", "new\n")
        turn.delete("old.txt")
        with pytest.warns(RewindWarning):
            turn.track("big.bin")
        (project / "big.bin").write_bytes(b"y" * 100)
        turn.write_text("run.sh", "#!/bin/sh\necho 2\n")
        turn.track("link")
        (project / "link").unlink()
        (project / "link").symlink_to("new.txt")
    with history.turn("second") as turn:
        turn.write_text("a.txt", "three\n")
    return history


def the_store(project: Path) -> Store:
    return open_store(os.path.realpath(os.fsencode(project)))


def tree_with_times(root: Path) -> dict[bytes, tuple[Any, int]]:
    """Every path under ``root`` (``.git`` included): what it holds, and its mtime."""
    found: dict[bytes, tuple[Any, int]] = {}
    contents = snapshot(root)
    top = os.fsencode(root)
    for folder, directories, names in os.walk(top):
        for name in directories + names:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, top)
            found[relative] = (contents.get(relative), os.lstat(path).st_mtime_ns)
    found[b"."] = (None, os.lstat(top).st_mtime_ns)
    return found


def drill_json(*arguments: str, code: int = 0) -> dict[str, Any]:
    result = run_rewind("check", "--drill", "--json", *arguments)
    assert result.returncode == code, result
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def state_oid(history: rewind.Project, number: int, path: bytes, side: str) -> str:
    entry = next(entry for entry in history.log() if entry.number == number)
    change = entry.file(path)
    assert change is not None
    state = change.before if side == "before" else change.after
    assert state is not None and state.oid is not None
    return state.oid


def object_file(project: Path, oid: str) -> Path:
    return store_dir(project) / "objects" / oid[:2] / oid[2:]


def rewrite_newest_entry(store: Store, change: Callable[[Entry], None]) -> None:
    """Records the session's newest entry again, changed by ``change``, in place of the old."""
    head = load_head(store, SESSION)
    assert head.current is not None
    change(head.current)
    store.write_ref(head.ref, commits.write_entry(store, head.current, head.parent))


def scratch_directories(project: Path) -> list[str]:
    return [name for name in os.listdir(store_dir(project) / "rewind") if "drill" in name]


# a clean store ----------------------------------------------------------------------------------


def test_a_clean_store_is_restorable_with_exact_counts(project: Path) -> None:
    recorded_history(project)
    before = tree_with_times(project)

    data = drill_json()

    assert data == {
        "format": 1,
        "restorable": True,
        "sample": None,
        "entries": 2,
        "states": 14,
        # one, two, three, new, old, both run.sh, both link targets ("two" is shared)
        "contents": 9,
        "sessions": [
            {
                "session": SESSION,
                "entries": 2,
                "damaged_entries": 0,
                "states": 14,
                "verified": 12,
                "never_restorable": {"too-large": 2},
                "failed": 0,
            }
        ],
        "problems": [],
    }
    assert tree_with_times(project) == before
    assert scratch_directories(project) == []


def test_the_drill_prints_a_line_per_session_and_a_summary(project: Path) -> None:
    recorded_history(project)
    result = ok("check", "--drill")
    assert result.stdout == (
        "session s: 2 entries, 14 states: 12 verified, 2 never restorable by design "
        "(too-large 2)\n"
        "drill: rebuilt 9 distinct contents in a scratch directory, checked 14 states: "
        "everything recorded is restorable\n"
    )
    assert result.stderr == ""


def test_links_and_mode_bits_are_rebuilt_as_restores_write_them(project: Path) -> None:
    """A content written without its mode bits, or a link target written as a file, would not
    match its record: every kind of link and mode verifies, and nothing is followed."""
    modes = {"exec.sh": 0o755, "private.txt": 0o600, "readonly.txt": 0o444}
    if os.geteuid() == 0:  # only root records a file its owner may not read with its content
        modes["none.txt"] = 0o000
    links = {"dangling": "nowhere", "outside": "../../../../etc/passwd", "dir": "."}
    for name, mode in modes.items():
        (project / name).write_text(name)
        (project / name).chmod(mode)
    for name, target in links.items():
        (project / name).symlink_to(target)
    history = rewind.Project(project, session=SESSION)
    with history.turn("touch them all") as turn:
        turn.track(*modes, *links)
        for name, mode in modes.items():
            (project / name).chmod(0o644)
            (project / name).write_text(name + " changed")
            (project / name).chmod(mode)
    before = tree_with_times(project)

    report = drill(the_store(project))

    assert report.problems == []
    [session] = report.sessions
    states = 2 * (len(modes) + len(links))
    assert (session.verified, session.states) == (states, states)
    # each file has two contents; a link's before- and after-states share its target
    assert report.contents == 2 * len(modes) + len(links)
    recorded = {change.path: change.before for change in history.log()[0].files}
    kinds = {name: (s.kind, s.mode) for name, s in recorded.items() if s is not None}
    assert kinds == {
        **{name.encode(): ("file", mode) for name, mode in modes.items()},
        **{name.encode(): ("link", 0) for name in links},
    }
    assert tree_with_times(project) == before
    assert scratch_directories(project) == []


# what cannot be restored ------------------------------------------------------------------------


def test_a_corrupted_loose_object_is_named_with_its_entry_and_path(project: Path) -> None:
    history = recorded_history(project)
    oid = state_oid(history, 1, b"old.txt", "before")
    path = object_file(project, oid)
    path.chmod(0o644)
    path.write_bytes(b"not zlib at all")
    before = tree_with_times(project)

    result = run_rewind("check", "--drill")

    assert result.returncode == 1, result
    [line] = result.stderr.splitlines()
    assert line.startswith("session s, entry 1 (id ")
    assert f"the before-state of old.txt cannot be read: object {oid}" in line
    assert "corrupted" in line and "backup" in line
    assert "1 NOT restorable" in result.stdout
    [problem] = drill_json(code=1)["problems"]
    assert (problem["problem"], problem["entry"], problem["path"]) == (CORRUPTED, 1, "old.txt")
    assert (problem["side"], problem["oid"]) == ("before", oid)
    assert tree_with_times(project) == before
    assert scratch_directories(project) == []


def test_a_missing_object_is_named_with_every_state_that_needs_it(project: Path) -> None:
    history = recorded_history(project)
    oid = state_oid(history, 1, b"a.txt", "after")  # "two": turn 2's before-state too
    object_file(project, oid).unlink()

    data = drill_json(code=1)

    assert not data["restorable"]
    assert data["sessions"][0]["failed"] == 2
    assert data["sessions"][0]["verified"] == 10
    found = [(p["problem"], p["entry"], p["path"], p["side"], p["oid"]) for p in data["problems"]]
    assert found == [(MISSING, 1, "a.txt", "after", oid), (MISSING, 2, "a.txt", "before", oid)]
    assert f"is missing from the store (object {oid})" in data["problems"][0]["message"]


def test_a_content_whose_recorded_fingerprint_no_longer_matches_is_named(project: Path) -> None:
    recorded_history(project)
    store = the_store(project)

    def wrong_fingerprint(entry: Entry) -> None:
        change = entry.file(b"a.txt")
        assert change is not None and change.after is not None
        change.after.xxh = "0123456789abcdef"

    rewrite_newest_entry(store, wrong_fingerprint)

    result = run_rewind("check", "--drill")
    assert result.returncode == 1, result
    [line] = result.stderr.splitlines()
    assert line.startswith("session s, entry 2 (id ")
    assert "the after-state of a.txt (object " in line
    assert "where 0123456789abcdef was recorded" in line
    assert "'rewind show 2 --session s'" in line
    [problem] = drill(store).problems
    assert (problem.kind, problem.entry, problem.path, problem.side) == (
        MISMATCH,
        2,
        "a.txt",
        "after",
    )


def test_a_file_state_without_content_is_damaged(project: Path) -> None:
    recorded_history(project)
    store = the_store(project)

    def no_content(entry: Entry) -> None:
        change = entry.file(b"a.txt")
        assert change is not None and change.before is not None
        change.before.oid = None

    rewrite_newest_entry(store, no_content)
    [problem] = drill(store).problems
    assert (problem.kind, problem.entry, problem.path, problem.side) == (
        DAMAGED,
        2,
        "a.txt",
        "before",
    )
    assert "names no stored content" in problem.message


def test_a_damaged_entry_is_named_and_the_others_still_drilled(project: Path) -> None:
    recorded_history(project)
    store = the_store(project)
    head = load_head(store, SESSION)
    (_, commit), _ = read_entries_with_commits(store, head)
    tree, _ = store.reader.read_commit(commit)
    [record] = [oid for name, _, oid in store.reader.read_tree(tree) if name == b"turn.json"]
    object_file(project, record).unlink()

    report = drill(store)

    [problem] = report.problems
    assert (problem.kind, problem.entry) == (DAMAGED, 1)
    assert (
        f"(commit {commit[:12]})" in problem.message and "choose a turn after it" in problem.message
    )
    [session] = report.sessions
    assert (session.entries, session.damaged_entries, session.verified) == (2, 1, 2)
    assert run_rewind("check", "--drill").returncode == 1


def test_a_damaged_ref_is_named_with_how_to_repair_it(project: Path) -> None:
    recorded_history(project)
    (store_dir(project) / "refs" / "rewind" / "sessions" / SESSION).write_text("garbage\n")

    [problem] = drill_json("--session", SESSION, code=1)["problems"]

    assert (problem["problem"], problem["session"], problem["entry"]) == (DAMAGED, SESSION, None)
    assert "update-ref refs/rewind/sessions/s " in problem["message"]


def test_a_history_that_cannot_be_read_is_named(project: Path) -> None:
    recorded_history(project)
    store = the_store(project)
    head = load_head(store, SESSION)
    assert head.parent is not None
    object_file(project, head.parent).unlink()  # the commit of entry 1

    report = drill(store)

    [problem] = report.problems
    assert (problem.kind, problem.session, problem.entry) == (DAMAGED, SESSION, None)
    assert problem.message == (
        f"session s: its history cannot be read (object {head.parent} is missing from the "
        "store), so its entries cannot be restored; copy the store back from a backup if "
        "there is one."
    )


# choosing what to drill -------------------------------------------------------------------------


def test_session_limits_the_drill_to_one_session(project: Path) -> None:
    (project / "other.txt").write_text("other\n")
    other = rewind.Project(project, session="other")
    with other.turn("edit other") as turn:
        turn.write_text("other.txt", "changed\n")
    history = recorded_history(project)
    object_file(project, state_oid(history, 1, b"old.txt", "before")).unlink()

    clean = drill_json("--session", "other")
    assert [s["session"] for s in clean["sessions"]] == ["other"]
    assert (clean["restorable"], clean["states"], clean["contents"]) == (True, 2, 2)
    damaged = drill_json("--session", SESSION, code=1)
    assert [s["session"] for s in damaged["sessions"]] == [SESSION]
    assert [p["path"] for p in damaged["problems"]] == ["old.txt"]
    assert len(drill_json(code=1)["sessions"]) == 2

    line = error_line(run_rewind("check", "--drill", "--session", "nope"))
    assert "there is no session 'nope'" in line and "rewind sessions" in line
    assert "--drill" in error_line(run_rewind("check", "--session", "other"))


def test_a_sample_drills_that_many_entries_across_sessions(project: Path) -> None:
    recorded_history(project)
    other = rewind.Project(project, session="other")
    for number in range(3):
        with other.turn(f"turn {number}") as turn:
            turn.write_text("counter.txt", f"{number}\n")
    store = the_store(project)

    sampled = drill(store, sample=2, rng=random.Random(7))
    assert (sampled.entries, sampled.sample, sampled.restorable) == (2, 2, True)
    everything = drill(store, sample=20)
    assert everything.entries == 5
    assert everything.states == drill(store).states == 14 + 6


def test_an_abandoned_scratch_directory_is_removed(project: Path) -> None:
    recorded_history(project)
    abandoned = store_dir(project) / "rewind" / f"{SCRATCH_PREFIX}999999999-x"
    abandoned.mkdir()
    (abandoned / "state").write_text("left by a drill that was killed")
    ok("check", "--drill")
    assert scratch_directories(project) == []


# gc -------------------------------------------------------------------------------------------


def test_gc_drills_a_sample_after_packing(project: Path) -> None:
    recorded_history(project)
    result = ok("gc")
    assert result.stdout.splitlines()[1] == (
        "drill: checked 14 states of 2 entries drawn at random: all restorable"
    )
    assert ok("gc", "--quiet").stdout == ""
    assert scratch_directories(project) == []


def test_gc_logs_and_prints_what_its_drill_finds(project: Path) -> None:
    recorded_history(project)

    def wrong_fingerprint(entry: Entry) -> None:
        change = entry.file(b"a.txt")
        assert change is not None and change.after is not None
        change.after.xxh = "0123456789abcdef"

    rewrite_newest_entry(the_store(project), wrong_fingerprint)
    log = store_dir(project) / "rewind" / STORE_LOG

    quiet = run_rewind("gc", "--quiet")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (1, "", "")
    assert log.read_text().count("gc's recovery drill: session s, entry 2") == 1

    loud = run_rewind("gc")
    assert loud.returncode == 1
    [line] = loud.stderr.splitlines()
    assert line.startswith("rewind: session s, entry 2 (id ") and "a.txt" in line
    assert "1 problem(s)" in loud.stdout and "'rewind check --drill'" in loud.stdout
    assert log.read_text().count("gc's recovery drill: session s, entry 2") == 2
    assert stat.S_ISDIR(os.stat(store_dir(project) / "objects" / "pack").st_mode)
