"""The index of entries (rewind.history.index): commands read what they need, not the history.

Independence from the history's length is shown by counting the commits each command reads
(the reader is wrapped to count, and still reads the real objects), not only by timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import rewind
from rewind.history.index.database import index_path
from rewind.history.index.queries import EntryIndex
from rewind.history.lookup import changes_by_other_sessions, entries_from, find
from rewind.history.restoring.undo_stack import undo_stack
from rewind.history.session import load_head
from rewind.store.objects import ObjectReader
from rewind.store.repository import Store
from tests.conftest import run_rewind


class CountingReader(ObjectReader):
    """The store's reader, counting the commits it reads."""

    commits_read = 0

    def read_commit(self, oid: str) -> tuple[str, str | None]:
        CountingReader.commits_read += 1
        return super().read_commit(oid)


def counting(store: Store) -> Store:
    store.reader = CountingReader(store.git_dir)
    CountingReader.commits_read = 0
    return store


def history(project: Path, turns: int, session: str = "s") -> rewind.Project:
    recorded = rewind.Project(project, session=session, agent="tester")
    for number in range(1, turns + 1):
        with recorded.turn(f"turn {number}") as turn:
            turn.write_text("a.txt", f"a{number}\n")
            turn.write_text(f"f{number % 7}.txt", f"f{number}\n")
    return recorded


def commits_read_by(store: Store, action: Callable[[], object]) -> int:
    counting(store)
    action()
    return CountingReader.commits_read


def reads_once_indexed(root: Path, turns: int) -> list[int]:
    """The commits each command reads in a session of ``turns`` entries, once indexed."""
    root.mkdir()
    (root / ".git").mkdir()
    store = history(root, turns).store
    head = load_head(store, "s")
    find(store, head, "3")  # the first read indexes the session
    return [
        commits_read_by(store, lambda: find(store, head, "3")),
        commits_read_by(store, lambda: entries_from(store, head, str(turns - 2))),
        commits_read_by(store, lambda: undo_stack(store, head)),
        commits_read_by(store, lambda: changes_by_other_sessions(store, "t", {b"a.txt"})),
    ]


@pytest.mark.unit
def test_after_one_sync_a_command_reads_no_commit_however_long_the_history(
    tmp_path: Path,
) -> None:
    short = reads_once_indexed(tmp_path / "short", 10)
    long = reads_once_indexed(tmp_path / "long", 300)
    assert short == long == [0, 0, 0, 0]


def test_the_index_catches_up_with_what_was_recorded_since_reading_only_that(
    project: Path,
) -> None:
    recorded = history(project, 50)
    store = recorded.store
    find(store, load_head(store, "s"), "1")
    for number in range(3):
        with recorded.turn(f"later {number}") as turn:
            turn.write_text("a.txt", f"later {number}\n")
    head = load_head(store, "s")
    read = commits_read_by(store, lambda: find(store, head, "1"))
    assert 1 <= read <= 4  # the 3 new entries (the newest comes from the head's cache)
    assert [entry.prompt for entry in entries_from(store, head, "51")[1]] == [
        "later 0",
        "later 1",
        "later 2",
    ]


def _log(project: Path, *args: str) -> str:
    result = run_rewind("log", "--session", "s", *args, cwd=project)
    assert result.returncode == 0, result
    return result.stdout


def test_a_deleted_or_damaged_index_is_rebuilt_from_the_commits(project: Path) -> None:
    store = history(project, 12).store
    before = _log(project)
    path = index_path(store)
    assert os.path.exists(path)
    os.unlink(path)
    assert _log(project) == before
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    with open(path, "wb") as handle:
        handle.write(b"this is not a database" * 100)
    assert _log(project) == before
    log_text = Path(store.state_path("rewind.log")).read_text()
    assert "was unusable" in log_text


def test_rows_that_disagree_with_the_commits_are_found_by_check_and_repaired(
    project: Path,
) -> None:
    store = history(project, 6).store
    before = _log(project)
    with EntryIndex(store) as index:
        index.db.execute("UPDATE entries SET prompt = 'forged' WHERE number = 3")
        index.db.execute("DELETE FROM entries WHERE number = 2")
    assert "forged" in _log(project)
    checked = run_rewind("check", cwd=project)
    assert checked.returncode == 0, checked
    assert "the index did not match the commits" in checked.stderr
    assert _log(project) == before


def test_log_filters(project: Path) -> None:
    recorded = history(project, 30)
    assert (
        run_rewind("label", "--session", "s", "7", "release-candidate", cwd=project).returncode == 0
    )
    newest = _log(project, "-n", "3")
    assert [line.split()[0] for line in newest.splitlines()[1:] if line[:4].strip().isdigit()] == [
        "28",
        "29",
        "30",
    ]
    found = _log(project, "--grep", "TURN 1")
    numbers = [line.split()[0] for line in found.splitlines() if line[:4].strip().isdigit()]
    assert numbers == ["1", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"]
    by_label = _log(project, "--grep", "candidate")
    assert [line.split()[0] for line in by_label.splitlines() if line[:4].strip().isdigit()] == [
        "7"
    ]
    assert _log(project, "--since", "1h") == _log(project)
    future = time.strftime("%Y-%m-%d", time.localtime(time.time() + 3 * 86400))
    assert _log(project, "--since", future).splitlines()[1:] == []
    refused = run_rewind("log", "--since", "last tuesday", cwd=project)
    assert refused.returncode != 0 and "--since takes a date" in refused.stderr
    del recorded


def test_log_path_follows_one_file_across_sessions(project: Path) -> None:
    first = history(project, 3, session="s")
    other = rewind.Project(project, session="t", agent="other")
    with other.turn("other session") as turn:
        turn.write_text("a.txt", "from t\n")
    with first.turn("back in s") as turn:
        turn.write_text("b.txt", "b\n")
    result = run_rewind("log", "--path", "a.txt", cwd=project)
    assert result.returncode == 0, result
    lines = [line for line in result.stdout.splitlines() if line[:4].strip().isdigit()]
    assert [(line.split()[0], line.split()[4]) for line in lines] == [
        ("1", "s"),
        ("2", "s"),
        ("3", "s"),
        ("1", "t"),
        ("4", "s"),  # began by finding a.txt changed by t: kept as an external change
    ]
    files = [line.strip() for line in result.stdout.splitlines() if line.startswith("        ")]
    assert all("a.txt" in line for line in files) and len(files) == 5


def test_a_forgotten_session_leaves_the_index(project: Path) -> None:
    history(project, 2, session="s")
    other = rewind.Project(project, session="t", agent="other")
    with other.turn("other") as turn:
        turn.write_text("a.txt", "t\n")
    store = other.store
    assert set(changes_by_other_sessions(store, "s", {b"a.txt"})) == {b"a.txt"}
    assert run_rewind("forget", "t", "--yes", cwd=project).returncode == 0
    assert changes_by_other_sessions(store, "s", {b"a.txt"}) == {}
    assert "t" not in run_rewind("log", "--path", "a.txt", cwd=project).stdout.split()


def test_an_unwritable_index_falls_back_to_reading_the_commits(project: Path) -> None:
    store = history(project, 5).store
    before = _log(project)
    os.unlink(index_path(store))
    os.mkdir(index_path(store))  # cannot be opened as a database, nor removed as a file
    try:
        assert _log(project) == before
        assert run_rewind("restore", "--session", "s", "4", "--yes", cwd=project).returncode == 0
    finally:
        os.rmdir(index_path(store))


@pytest.mark.parametrize("count", ["0", "-2", "x"])
def test_max_count_must_be_a_positive_number(project: Path, count: str) -> None:
    history(project, 1)
    result = run_rewind("log", "-n", count, cwd=project)
    assert result.returncode == 1 and "positive whole number" in result.stderr


def test_readers_that_build_the_index_at_once_all_agree(project: Path) -> None:
    """Eight processes reading a history no index holds yet, each writing the same rows."""
    history(project, 40)
    recorded = rewind.Project(project, session="t", agent="other")
    with recorded.turn("another session") as turn:
        turn.write_text("a.txt", "t\n")
    readers = [
        subprocess.Popen(
            [sys.executable, "-m", "rewind", *arguments],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for arguments in [["log", "--session", "s"], ["log", "--path", "a.txt"]] * 4
    ]
    outputs = [reader.communicate() for reader in readers]
    assert [reader.returncode for reader in readers] == [0] * 8, outputs
    assert len({out for out, _ in outputs[0::2]}) == 1
    assert len({out for out, _ in outputs[1::2]}) == 1
    assert _log(project) == outputs[0][0]
    assert numbers_in(outputs[1][0]) == [*range(1, 41), 1]


def numbers_in(log: str) -> list[int]:
    return [int(line.split()[0]) for line in log.splitlines() if line[:4].strip().isdigit()]
