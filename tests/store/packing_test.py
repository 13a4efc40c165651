"""Packing keeps every version a session needs, shrinks the store, and frees forgotten ones.

Stores are built through rewind.Project (in process) and packed by real ``rewind gc``
processes; git itself says which objects a store holds.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import subprocess
import time
from pathlib import Path

import pytest

import rewind
from rewind.history.restoring.opening import open_store
from rewind.history.upkeep.collection import reachable_objects
from rewind.store.auto_gc import needs_packing
from rewind.store.pack_index import PackIndex
from rewind.store.packing import GRACE_SECONDS
from rewind.store.packs import to_roll_up
from rewind.store.repository import Store
from tests.conftest import ok, run_rewind
from tests.support.git import git, git_outcome

LINES = [f"line {i} of a long file that changes one line per turn" for i in range(2000)]


def store_path() -> Path:
    return Path(run_rewind("status").stdout.split("store:", 1)[1].split()[0])


def loose_objects(store: Path) -> list[Path]:
    """The store's loose objects now; a folder a gc running meanwhile removes is empty."""
    found: list[Path] = []
    for folder in sorted((store / "objects").glob("??")):
        try:
            found += [Path(entry.path) for entry in os.scandir(folder)]
        except FileNotFoundError:
            pass  # packed and removed by the gc since it was listed
    return found


def pack_files(store: Path) -> dict[str, os.stat_result]:
    return {p.name: p.stat() for p in (store / "objects" / "pack").glob("*.pack")}


def record_versions(project: Path, count: int) -> None:
    lines = list(LINES)
    target = project / "big.txt"
    for turn in range(count):
        lines[turn] = f"changed in turn {turn}"
        assert run_rewind("begin", "--session", "s").returncode == 0
        assert run_rewind("track", "--session", "s", "big.txt").returncode == 0
        target.write_text("\n".join(lines))
    assert run_rewind("end", "--session", "s").returncode == 0


def edit_turns(project: Path, session: str, count: int, name: str = "big.txt") -> None:
    """``count`` turns through the Python API, each changing one line of ``name``."""
    api = rewind.Project(project, session=session)
    path = project / name
    if not path.exists():
        path.write_text("\n".join(LINES) + "\n")
    for _ in range(count):
        text = path.read_text()
        number = len(api.log()) + 1
        old = next(line for line in text.splitlines() if line.startswith("line "))
        with api.turn(f"turn {number}") as turn:
            turn.edit(name, old + "\n", f"changed by turn {number} of {session}\n")


def age_all_loose_objects(store: Path) -> None:
    old = time.time() - GRACE_SECONDS - 60
    for path in loose_objects(store):
        os.utime(path, (old, old))


def stored(store: Path, oid: str) -> bool:
    return git_outcome("cat-file", "-e", oid, git_dir=store).returncode == 0


def every_turn_restorable(project: Path, session: str) -> None:
    """``rewind check`` reads every stored version; then the first turn is restored and undone."""
    assert "0 problem(s)" in ok("check").stdout
    api = rewind.Project(project, session=session)
    before = (project / "big.txt").read_bytes()
    api.restore(1)
    assert (project / "big.txt").read_text() == "\n".join(LINES) + "\n"
    api.undo()
    assert (project / "big.txt").read_bytes() == before


def test_gc_packs_history_small_and_restores_still_work(project: Path) -> None:
    original = "\n".join(LINES)
    (project / "big.txt").write_text(original)
    record_versions(project, 20)
    store = store_path()

    result = run_rewind("gc")
    assert result.returncode == 0, result.stderr
    assert loose_objects(store) == []  # packed, or superseded: none waits for its grace
    assert sorted(p.name for p in (store / "objects").iterdir()) == ["info", "pack"]
    pack_bytes = sum(p.stat().st_size for p in (store / "objects" / "pack").glob("*.pack"))
    assert pack_bytes < 3 * len(original)  # 21 versions of ~100 KB, stored as deltas

    assert run_rewind("check").returncode == 0
    assert run_rewind("restore", "1", "--yes", "--session", "s").returncode == 0
    assert (project / "big.txt").read_text() == original
    fsck = git_outcome("fsck", "--no-dangling", git_dir=store)
    assert fsck.returncode == 0, fsck.stderr


def test_superseded_turn_commits_are_gone_right_after_gc(project: Path) -> None:
    """The commit a turn gets at its beginning is replaced at its end: gc deletes it, its tree
    and its turn.json at once, not after the grace period; file contents stay."""
    api = rewind.Project(project, session="s")
    (project / "big.txt").write_text("\n".join(LINES) + "\n")
    store = Path(api.store.git_dir)
    superseded = []
    for number in range(1, 6):
        turn = api.turn(f"turn {number}")
        begun = git("rev-parse", "refs/rewind/sessions/s", git_dir=store).strip()
        turn.edit("big.txt", f"line {number} of", f"line {number} (changed) of")
        turn.end()
        superseded.append(begun)
    assert (store / "rewind" / "superseded").read_text().split() == superseded
    own = {git("rev-parse", f"{commit}^{{tree}}", git_dir=store).strip() for commit in superseded}
    own |= {git("rev-parse", f"{commit}:turn.json", git_dir=store).strip() for commit in superseded}
    assert all(stored(store, oid) for oid in set(superseded) | own)
    data = {entry["oid"] for entry in _file_states(api)}

    result = run_rewind("gc")
    assert result.returncode == 0, result.stderr
    assert loose_objects(store) == []
    assert [oid for oid in set(superseded) | own if stored(store, oid)] == []
    assert all(stored(store, oid) for oid in data)
    assert not (store / "rewind" / "superseded").exists()
    assert not (store / "rewind" / "superseded.taken").exists()
    every_turn_restorable(project, "s")


def _file_states(api: rewind.Project) -> list[dict[str, str]]:
    states = []
    for entry in api.log():
        for change in entry.files:
            for state in (change.before, change.after):
                if state is not None and state.oid:
                    states.append({"oid": state.oid})
    return states


def test_unnamed_blobs_wait_for_the_grace_period(project: Path) -> None:
    """A hook may have written a blob its entry does not name yet: young ones stay; old ones,
    which nothing named within the grace period, go."""
    (project / "a.txt").write_text("a")
    assert run_rewind("begin", "--session", "s").returncode == 0
    store = open_store(os.path.realpath(os.fsencode(project)))
    young = store.writer.write_blob(b"written by a hook a moment ago")
    old = store.writer.write_blob(b"written by a hook that never named it")
    then = time.time() - GRACE_SECONDS - 5
    os.utime(store.writer.path_of(old), (then, then))
    assert run_rewind("gc").returncode == 0
    assert store.reader.read_blob(young) == b"written by a hook a moment ago"
    assert not os.path.exists(store.writer.path_of(old))
    assert not stored(Path(store.git_dir), old)
    assert 60 <= GRACE_SECONDS <= 30 * 60  # minutes, not hours


def test_a_second_gc_writes_a_small_pack_and_leaves_the_big_one(project: Path) -> None:
    edit_turns(project, "s", 40)
    store = store_path()
    ok("gc")
    [(big, big_stat)] = pack_files(store).items()
    big_count = PackIndex(str(store / "objects" / "pack" / big.replace(".pack", ".idx"))).count

    edit_turns(project, "s", 3)
    output = ok("gc").stdout
    assert "with" not in output  # no older pack was rolled up
    after = pack_files(store)
    assert set(after) == {big, *after} and len(after) == 2
    assert (after[big].st_ino, after[big].st_mtime_ns) == (big_stat.st_ino, big_stat.st_mtime_ns)
    [small] = set(after) - {big}
    small_count = PackIndex(str(store / "objects" / "pack" / small.replace(".pack", ".idx"))).count
    assert small_count * 8 < big_count
    assert after[small].st_size * 3 < after[big].st_size
    assert loose_objects(store) == []
    every_turn_restorable(project, "s")


def test_pack_count_stays_small_over_many_gcs(project: Path) -> None:
    edit_turns(project, "s", 10)
    store = store_path()
    counts = []
    for _ in range(16):
        edit_turns(project, "s", 1)
        ok("gc")
        counts.append(len(pack_files(store)))
        assert "0 problem(s)" in ok("check").stdout
    # 16 gcs of about the same size: sizes 1, 2, 4, 8... times one gc's, like a binary counter.
    assert max(counts) <= 5, counts
    assert counts[-1] < 16
    sizes = sorted(
        PackIndex(str(path)).count for path in (store / "objects" / "pack").glob("*.idx")
    )
    assert all(larger >= 2 * smaller for smaller, larger in itertools.pairwise(sizes)), sizes
    every_turn_restorable(project, "s")


def test_forget_then_gc_repacks_in_full_and_frees_the_session(project: Path) -> None:
    edit_turns(project, "keep", 5, "kept.txt")
    edit_turns(project, "drop", 5, "dropped.txt")
    store = open_store(os.path.realpath(os.fsencode(project)))
    before = reachable_objects(store)
    ok("gc")
    assert loose_objects(store_path()) == []  # all of it is in packs now

    result = run_rewind("forget", "drop", "--yes")
    assert result.returncode == 0, result.stderr
    assert (store_path() / "rewind" / "gc.full").exists()
    assert "keep" in run_rewind("sessions").stdout
    assert "drop" not in run_rewind("sessions").stdout
    after = reachable_objects(store)
    assert after < before
    path = store_path()  # asked once: one 'rewind status' per object took most of the test
    assert all(stored(path, oid) for oid in before - after)

    output = ok("gc").stdout
    assert output.startswith("full repack: ")
    assert [oid for oid in before - after if stored(path, oid)] == []
    assert all(stored(path, oid) for oid in after)
    assert len(pack_files(store_path())) == 1
    assert not (store_path() / "rewind" / "gc.full").exists()
    assert not (store_path() / "rewind" / "gc.full.taken").exists()
    assert not ok("gc").stdout.startswith("full repack: ")  # done: the next one is not full
    assert "0 problem(s)" in ok("check").stdout


def test_gc_full_drops_what_the_packs_hold_that_nothing_needs(project: Path) -> None:
    """A gc while a turn is open packs the turn's first commit, which its end supersedes: only
    a full repack takes it out of the pack."""
    api = rewind.Project(project, session="s")
    (project / "big.txt").write_text("\n".join(LINES) + "\n")
    edit_turns(project, "s", 2)
    turn = api.turn("open while gc runs")
    begun = git("rev-parse", "refs/rewind/sessions/s", git_dir=store_path()).strip()
    ok("gc")
    turn.edit("big.txt", "line 10 of", "line ten of")
    turn.end()
    ok("gc")
    assert stored(store_path(), begun)  # in a pack: an ordinary gc leaves packs whole
    output = ok("gc", "--full").stdout
    assert output.startswith("full repack: ")
    assert not stored(store_path(), begun)
    assert len(pack_files(store_path())) == 1
    every_turn_restorable(project, "s")


def test_pack_index_reads_what_git_says_a_pack_holds(project: Path) -> None:
    edit_turns(project, "s", 3)
    ok("gc")
    [idx] = (store_path() / "objects" / "pack").glob("*.idx")
    shown = subprocess.run(
        ["git", "show-index"], stdin=idx.open("rb"), capture_output=True, check=True
    ).stdout.decode()
    names = sorted(line.split()[1] for line in shown.splitlines())
    index = PackIndex(str(idx))
    assert [raw.hex() for raw in index.raw_names()] == names
    assert index.count == len(names)
    assert all(name in index for name in names)
    assert "0" * 40 not in index and "f" * 40 not in index
    assert names[0][:-1] + "x" not in index


@pytest.mark.unit
def test_roll_up_keeps_pack_sizes_a_geometric_progression() -> None:
    assert to_roll_up({}, 10) == []
    assert to_roll_up({"big": 1000}, 10) == []  # a small new pack beside a big one
    assert to_roll_up({"big": 1000, "a": 10}, 10) == ["a"]  # 10 + 10: rolled together
    assert to_roll_up({"big": 1000, "b": 20}, 10) == []  # 10, 20, 1000: a progression
    assert sorted(to_roll_up({"big": 1000, "b": 20, "a": 10}, 10)) == ["a", "b"]
    assert sorted(to_roll_up({"big": 100, "b": 40}, 30)) == ["b", "big"]
    assert to_roll_up({"a": 5, "b": 7}, 0) == ["a", "b"]


def test_needs_packing_follows_the_sampled_directory(project: Path) -> None:
    assert run_rewind("begin", "--session", "s").returncode == 0
    store = open_store(os.path.realpath(os.fsencode(project)))
    assert not needs_packing(store)
    sample = Path(store.git_dir) / "objects" / "17"
    sample.mkdir(exist_ok=True)
    for index in range(30):
        (sample / f"{index:038x}").write_bytes(b"")
    assert needs_packing(store)


def test_a_retention_cut_makes_the_next_gc_take_the_dropped_turns_out_of_the_packs(
    project: Path,
) -> None:
    edit_turns(project, "old", 8, "old.txt")
    edit_turns(project, "new", 2, "new.txt")
    store = open_store(os.path.realpath(os.fsencode(project)))
    before = reachable_objects(store)
    ok("gc")  # everything packed, before any cut
    assert loose_objects(store_path()) == []
    (project / "rewind.toml").write_text("[retention]\nkeep_days = 0\nkeep_last = 3\n")

    output = ok("gc").stdout
    assert "retention dropped session old" in output
    assert "full repack: " in output  # the cut asked for it
    gone = before - reachable_objects(open_store(os.path.realpath(os.fsencode(project))))
    assert gone
    path = store_path()
    assert [oid for oid in gone if stored(path, oid)] == []
    assert len(pack_files(store_path())) == 1
    assert "0 problem(s)" in ok("check").stdout


def test_a_begin_on_a_store_due_for_a_gc_starts_one_in_the_background(project: Path) -> None:
    """The automatic gc, end to end: the store says a gc is due, and the history starts
    ``rewind gc --quiet`` detached (rewind.history.background), which packs the store."""
    record_versions(project, 2)
    path = store_path()
    assert loose_objects(path) and not pack_files(path)
    store = open_store(os.path.realpath(os.fsencode(project)))
    day_ago = time.time() - 25 * 3600
    os.utime(store.state_path("project.json"), (day_ago, day_ago))
    assert run_rewind("begin", "--session", "s").returncode == 0
    assert os.path.exists(store.state_path("gc.started"))
    deadline = time.monotonic() + 60
    while (loose_objects(path) or gc_running(store)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert loose_objects(path) == [] and pack_files(path)
    assert not needs_packing(store)


def gc_running(store: Store) -> bool:
    """Whether a gc holds the store's gc lock (rewind.store.packing)."""
    fd = os.open(store.state_path("gc.lock"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_store_in_use_is_collected_daily_whatever_its_loose_objects(project: Path) -> None:
    """gc applies retention: a project where the agent writes little still gets one a day."""
    assert run_rewind("begin", "--session", "s").returncode == 0
    store = open_store(os.path.realpath(os.fsencode(project)))
    assert not needs_packing(store)
    day_ago = time.time() - 25 * 3600
    os.utime(store.state_path("project.json"), (day_ago, day_ago))
    assert needs_packing(store)  # never collected, made more than a day ago
    started = Path(store.state_path("gc.started"))
    started.touch()
    assert not needs_packing(store)
    os.utime(started, (day_ago, day_ago))
    assert needs_packing(store)
