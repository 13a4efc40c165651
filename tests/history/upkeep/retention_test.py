"""Retention ([retention] in rewind.toml, applied by gc): what is dropped and what is kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import rewind
from rewind.history.index.queries import EntryIndex
from rewind.history.session import load_head
from rewind.history.upkeep import retention
from rewind.history.upkeep.collection import reachable_objects
from rewind.store.objects import SHALLOW
from tests.conftest import run_rewind

Snapshots = dict[int, dict[str, bytes]]


def record(project: Path, session: str, turns: int) -> tuple[rewind.Project, Snapshots]:
    """``turns`` turns of one session, each changing two of four files; what the work tree
    held before each turn, by turn number."""
    recorded = rewind.Project(project, session=session, agent="tester")
    before: Snapshots = {}
    for number in range(1, turns + 1):
        before[number] = {
            name: (project / name).read_bytes()
            for name in ("a.txt", "b.txt", "c.txt", "d.txt")
            if (project / name).exists()
        }
        with recorded.turn(f"{session} turn {number}") as turn:
            turn.write_text("abcd"[number % 4] + ".txt", f"{session} {number}\n" * number)
            turn.write_text("a.txt", f"{session} a {number}\n")
    return recorded, before


def policy(project: Path, text: str) -> None:
    (project / "rewind.toml").write_text("[retention]\n" + text)


def ok(project: Path, *args: str) -> str:
    result = run_rewind(*args, cwd=project)
    assert result.returncode == 0, result
    return result.stdout


def numbers(log: str) -> list[int]:
    return [int(line.split()[0]) for line in log.splitlines() if line[:4].strip().isdigit()]


def work_tree(project: Path) -> dict[str, bytes]:
    return {
        name: (project / name).read_bytes()
        for name in ("a.txt", "b.txt", "c.txt", "d.txt")
        if (project / name).exists()
    }


def test_old_turns_go_but_the_last_ones_labelled_ones_and_the_newest_session_stay(
    project: Path,
) -> None:
    old, _ = record(project, "old", 12)
    ok(project, "label", "--session", "old", "9", "keep-me")
    record(project, "new", 4)
    policy(project, "keep_days = 0\nkeep_last = 2\n")
    dry = ok(project, "gc", "--dry-run")
    assert "would drop session old: entries before 9 (8," in dry
    assert "session new" not in dry
    done = ok(project, "gc")
    assert "retention dropped session old: entries before 9 (8," in done
    assert numbers(ok(project, "log", "--session", "old")) == [9, 10, 11, 12]
    assert numbers(ok(project, "log", "--session", "new")) == [1, 2, 3, 4]
    assert "retention dropped session old" in Path(old.store.state_path("rewind.log")).read_text()
    assert ok(project, "gc", "--dry-run").startswith("retention would drop 0 entries")


def test_every_kept_turn_is_restorable_byte_for_byte_after_the_cut(project: Path) -> None:
    _, before = record(project, "old", 10)
    record(project, "new", 1)
    policy(project, "keep_days = 0\nkeep_last = 4\n")
    ok(project, "gc")
    for number in (7, 8, 9, 10):
        ok(project, "restore", "--session", "old", str(number), "--yes", "--force")
        tree = work_tree(project)
        touched = {"a.txt"} | {"abcd"[k % 4] + ".txt" for k in range(number, 11)}
        expected = {name: before[number].get(name) for name in touched}
        assert {name: tree.get(name) for name in touched} == expected, number
        ok(project, "undo", "--session", "old", "--yes", "--force")
    refused = run_rewind("restore", "--session", "old", "6", "--yes", cwd=project)
    assert refused.returncode != 0 and "turns go from 7" in refused.stderr
    assert ok(project, "check").startswith("checked")


def test_what_only_dropped_entries_named_is_no_longer_reachable(project: Path) -> None:
    old, _ = record(project, "old", 6)
    record(project, "new", 1)
    store = old.store
    with EntryIndex(store) as index:
        dropped = index.entries(load_head(store, "old"), 1, 3)
    named = {
        state.oid
        for entry in dropped
        for change in entry.files
        for state in (change.before, change.after)
        if state is not None and state.oid
    }
    assert named <= reachable_objects(store)
    policy(project, "keep_days = 0\nkeep_last = 3\n")
    store.config = rewind.Project(project, session="old").store.config
    cuts = retention.apply(store, retention.plan(store, store.config.retention))
    assert [(cut.session, cut.keep_from, cut.dropped) for cut in cuts] == [("old", 4, 3)]
    still = reachable_objects(store)
    kept = {
        state.oid
        for entry in rewind.Project(project, session="old").log()
        for change in entry.files
        for state in (change.before, change.after)
        if state is not None and state.oid
    }
    assert kept <= still
    assert named - kept and not (named - kept) & still


def test_the_size_budget_drops_the_oldest_first_and_keeps_the_last_ones(project: Path) -> None:
    recorded = rewind.Project(project, session="old", agent="tester")
    for number in range(1, 9):  # 8 turns of 400 KB that do not compress: about 3.2 MB
        with recorded.turn(f"big {number}") as turn:
            turn.write_bytes(f"big{number}.bin", os.urandom(400 * 1024))
    record(project, "new", 1)
    policy(project, "keep_days = 100000\nkeep_last = 3\nmax_size_mb = 8\n")
    assert ok(project, "gc", "--dry-run").startswith("retention would drop 0 entries")
    policy(project, "keep_days = 100000\nkeep_last = 3\nmax_size_mb = 2\n")
    dry = ok(project, "gc", "--dry-run")
    done = ok(project, "gc")
    kept = numbers(ok(project, "log", "--session", "old"))
    assert kept[-3:] == [6, 7, 8] and kept[0] > 1, kept
    first = kept[0]
    assert f"would drop session old: entries before {first} ({first - 1}," in dry
    assert f"retention dropped session old: entries before {first} ({first - 1}," in done
    assert numbers(ok(project, "log", "--session", "new")) == [1]


def test_an_index_follows_a_cut_it_did_not_make(project: Path) -> None:
    old, _ = record(project, "old", 5)
    record(project, "new", 1)
    store = old.store
    ok(project, "log", "--session", "old")  # indexed, all 5
    with EntryIndex(store) as index:
        commit = index.commit_of(load_head(store, "old"), 3)
    assert commit is not None
    # A retention killed after writing the cut, before dropping the rows:
    (Path(store.git_dir) / SHALLOW).write_text(commit + "\n")
    os.unlink(store.state_path("sessions", "old.json"))
    assert numbers(ok(project, "log", "--session", "old")) == [3, 4, 5]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("keep_days = -1\n", "retention.keep_days must be a number of days"),
        ("keep_last = 0\n", "retention.keep_last must be a number of entries"),
        ("enabled = 1\n", "retention.enabled must be true or false"),
        ("keep = 3\n", "[retention] has no key 'keep'"),
    ],
)
def test_a_wrong_policy_is_one_clear_sentence(project: Path, text: str, message: str) -> None:
    record(project, "old", 1)
    policy(project, text)
    result = run_rewind("gc", cwd=project)
    assert result.returncode != 0 and message in result.stderr


def test_retention_can_be_turned_off(project: Path) -> None:
    record(project, "old", 6)
    record(project, "new", 1)
    policy(project, "enabled = false\nkeep_days = 0\nkeep_last = 1\n")
    ok(project, "gc")
    assert numbers(ok(project, "log", "--session", "old")) == [1, 2, 3, 4, 5, 6]
