"""gc under pressure: one at a time, no runaway starts, no pile of packs, no leftovers, and
kill -9 of a real ``rewind gc`` at any point leaves a store that checks and restores."""

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

import rewind
from rewind.history.restoring.opening import open_current_store
from rewind.history.upkeep.collection import reachable_objects
from rewind.store.auto_gc import GC_STARTED, needs_packing
from rewind.store.objects import ObjectWriter
from rewind.store.packing import GRACE_SECONDS
from tests.conftest import ok, run_rewind, store_dir
from tests.faults.fault_support import (
    LONG,
    check_store,
    rewind_argv,
    run,
    run_and_kill,
    seeded_rng,
)

SESSION = "s1"


def record_turn(name: str, text: str) -> None:
    Path(name).write_text(text)
    ok("begin", "--session", SESSION, "--prompt", text)
    ok("track", "--session", SESSION, name)
    Path(name).write_text(text + " changed\n")
    ok("end", "--session", SESSION)


def test_a_second_gc_exits_at_once_while_one_runs(project: Path) -> None:
    record_turn("a.txt", "one")
    lock = store_dir(project) / "rewind" / "gc.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a gc is running
    try:
        result = run_rewind("gc")  # before the fix it waited for the lock, without end
    finally:
        os.close(fd)
    assert result.returncode == 0, result
    assert "another 'rewind gc' is packing this store" in result.stdout


def test_gc_keeps_few_packs_however_often_it_runs(project: Path) -> None:
    for index in range(12):
        record_turn(f"f{index}.txt", f"turn {index}")
        ok("gc")
        packs = list((store_dir(project) / "objects" / "pack").glob("*.pack"))
        assert len(packs) <= 4, f"after gc {index + 1}: {len(packs)} packs"
    assert "0 problem(s)" in ok("check").stdout
    ok("restore", "1", "--session", SESSION, "--yes")
    assert Path("f0.txt").read_text() == "turn 0"


def test_what_a_killed_gc_left_is_cleared_by_the_next(project: Path) -> None:
    record_turn("a.txt", "one")
    objects = store_dir(project) / "objects"
    incoming = objects / "pack" / ".incoming-99999"
    incoming.mkdir(parents=True)
    (incoming / "pack_git2_a1b2").write_bytes(b"half a pack")
    temporary = objects / "pack" / "pack_git2_c3d4"
    temporary.write_bytes(b"half a pack")
    # The rest of a pack whose index was not moved in yet (or was removed first).
    half_moved = objects / "pack" / f"pack-{'ab' * 20}.pack"
    half_moved.write_bytes(b"PACK and the rest")
    # Loose objects the killed gc had moved aside to delete, though something needs them (the
    # second under the name an older rewind gave them).
    needed, also = [p for p in objects.glob("??/*") if len(p.name) == 38][:2]
    needed.rename(needed.with_name("tmp_obj_gc-" + needed.name))
    also.rename(also.with_name(also.name + ".gc-trash"))
    ok("gc")
    assert not incoming.exists()
    assert not temporary.exists()
    assert not half_moved.exists()
    assert not list(objects.glob("??/tmp_obj_*")) and not list(objects.glob("??/*.gc-trash"))
    assert "0 problem(s)" in ok("check").stdout


def test_begin_starts_no_gc_right_after_one(project: Path) -> None:
    record_turn("a.txt", "one")
    store = open_current_store()
    fan_out = store_dir(project) / "objects" / "17"
    fan_out.mkdir(exist_ok=True)
    for index in range(40):  # as if some 10,000 loose objects had piled up
        (fan_out / f"{index:038x}").write_bytes(b"x")
    started = Path(store.state_path(GC_STARTED))
    started.unlink(missing_ok=True)
    assert needs_packing(store)
    started.touch()  # a gc started just now: its garbage in grace must not start another
    assert not needs_packing(store)


# kill -9 of a real 'rewind gc' ------------------------------------------------------------------

# A gc (``python -c KILL_AT_CHANGE N rewind-arguments...``) that kills itself just before its
# N-th change to the file system (a file or folder removed or renamed); with N = 0 it runs to
# the end and prints how many changes it made.
KILL_AT_CHANGE = """
import os, signal, sys
from rewind.cli import main

at, count = int(sys.argv[1]), [0]

def counted(original):
    def change(*arguments, **options):
        count[0] += 1
        if count[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)
        return original(*arguments, **options)
    return change

for name in ("unlink", "rename", "replace", "rmdir"):
    setattr(os, name, counted(getattr(os, name)))
code = main(sys.argv[2:])
print("changes", count[0])
sys.exit(code)
"""

KEPT = "kept.txt"
BASE = [f"line {i} of a file kept by session keep" for i in range(400)]


class GcWorld:
    """A store with packs to roll up, superseded commits (packed and loose), garbage past its
    grace period and, with ``forget``, a forgotten session whose objects are in packs. It is
    copied aside once built, and put back before each killed gc."""

    def __init__(self, project: Path, forget: bool) -> None:
        self.project = project
        self.store = store_dir(project)
        (project / KEPT).write_text("\\n".join(BASE) + "\\n")
        (project / "dropped.txt").write_text("only session drop has this\\n")
        keep = rewind.Project(project, session="keep")
        drop = rewind.Project(project, session="drop")
        self.turns(keep, 6)
        with drop.turn("drop 1") as turn:
            turn.write_text("dropped.txt", "still only in drop\\n")
        ok("gc")
        self.turns(keep, 5)
        ok("gc")
        open_turn = keep.turn("open while gc runs")  # its first commit gets packed
        ok("gc")
        open_turn.edit(KEPT, "line 300 of", "line 300 (changed) of")
        open_turn.end()
        self.turns(keep, 3)  # loose superseded commits
        writer = ObjectWriter(str(self.store))
        self.stale = writer.write_blob(b"written long ago, never named")
        then = time.time() - GRACE_SECONDS - 60
        os.utime(writer.path_of(self.stale), (then, then))
        self.dropped: set[str] = set()
        if forget:
            every = reachable_objects(open_current_store())
            ok("forget", "drop", "--yes")
            self.dropped = every - reachable_objects(open_current_store())
            assert self.dropped
        self.latest = (project / KEPT).read_bytes()
        self.backup = project.parent / "store-as-built"
        shutil.copytree(self.store, self.backup, symlinks=True)

    def turns(self, api: rewind.Project, count: int) -> None:
        for _ in range(count):
            number = len(api.log()) + 1
            with api.turn(f"turn {number}") as turn:
                turn.edit(KEPT, f"line {number} of", f"line {number} (turn {number}) of")

    def put_back(self) -> None:
        shutil.rmtree(self.store)
        shutil.copytree(self.backup, self.store, symlinks=True)

    def check_after_kill(self, why: str) -> None:
        """The store passes 'rewind check' and git fsck, and every turn can be restored."""
        check_store(self.project, why)
        entries = json.loads(ok("log", "--session", "keep", "--json").stdout)
        for entry in entries:  # every version every turn recorded is readable
            assert entry["kind"] == "turn", why
        ok("restore", "1", "--session", "keep", "--yes")
        assert (self.project / KEPT).read_text() == "\\n".join(BASE) + "\\n", why
        ok("undo", "--session", "keep", "--yes")
        assert (self.project / KEPT).read_bytes() == self.latest, why

    def check_cleaned_up(self, why: str) -> None:
        """A gc run after the killed one leaves nothing of it behind."""
        ok("gc")
        pack_dir = self.store / "objects" / "pack"
        left = [p.name for p in pack_dir.iterdir() if not p.name.startswith("pack-")]
        assert left == [], f"{why}{left}"
        packs = {p.stem for p in pack_dir.glob("pack-*.idx")}
        assert {p.stem for p in pack_dir.glob("pack-*.pack")} == packs, why
        assert [p for p in (self.store / "objects").glob("??/*")] == [], why
        state = self.store / "rewind"
        assert not [p.name for p in state.iterdir() if p.name.startswith(("superseded", "gc.full"))]
        assert not stored(self.store, self.stale), why
        assert [oid for oid in self.dropped if stored(self.store, oid)] == [], why
        check_store(self.project, why)


def stored(store: Path, oid: str) -> bool:
    done = subprocess.run(["git", f"--git-dir={store}", "cat-file", "-e", oid], check=False)
    return done.returncode == 0


@pytest.mark.parametrize("forget", [False, True], ids=["geometric", "full-after-forget"])
def test_gc_killed_before_any_of_its_changes(project: Path, forget: bool) -> None:
    """Every removal and rename a gc makes is a point where kill -9 may land: a sample of them
    (all of them in the long mode), each on a fresh copy of the same store."""
    rng, seed = seeded_rng(f"gc killed at a change (forget={forget})")
    world = GcWorld(project, forget)
    counting = run([sys.executable, "-c", KILL_AT_CHANGE, "0", "gc"], project)
    assert counting.returncode == 0, counting.stderr
    changes = int(counting.stdout.split("changes")[-1])
    assert changes > 20, counting.stdout  # packs rolled up or replaced, loose objects removed
    points = range(1, changes + 1)
    chosen = list(points) if LONG else sorted({1, changes, *rng.sample(points, 4)})
    for at in chosen:
        why = f"[seed {seed}, killed before change {at} of {changes}] "
        world.put_back()
        done = run([sys.executable, "-c", KILL_AT_CHANGE, str(at), "gc"], project)
        assert done.returncode == -9, f"{why}{done.returncode}: {done.stderr}"
        world.check_after_kill(why)
        world.check_cleaned_up(why)


def test_gc_killed_at_random_moments(project: Path) -> None:
    rng, seed = seeded_rng("gc killed at random moments")
    world = GcWorld(project, forget=True)
    started = time.monotonic()
    ok("gc")
    duration = time.monotonic() - started
    kills = 0
    for attempt in range(40 if LONG else 5):
        world.put_back()
        delay = rng.uniform(0.05, 1.0) * duration
        outcome = run_and_kill(rewind_argv("gc"), project, delay)
        why = f"[seed {seed}, attempt {attempt}, killed after {delay * 1000:.0f} ms] "
        if outcome.killed:
            kills += 1
        else:
            assert outcome.returncode == 0, f"{why}{outcome.stderr}"
        world.check_after_kill(why)
        world.check_cleaned_up(why)
    assert kills > 0, f"[seed {seed}] no gc was killed (a gc takes {duration * 1000:.0f} ms)"
