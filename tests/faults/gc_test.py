"""gc under pressure: one at a time, no runaway starts, no pile of packs, no leftovers."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from rewind.history.opening import open_current_store
from rewind.store.auto_gc import GC_STARTED, needs_packing
from tests.conftest import ok, run_rewind, store_dir

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


def test_gc_leaves_one_pack_however_often_it_runs(project: Path) -> None:
    for index in range(3):
        record_turn(f"f{index}.txt", f"turn {index}")
        ok("gc")
    packs = list((store_dir(project) / "objects" / "pack").glob("*.pack"))
    assert len(packs) == 1
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
    # A loose object the killed gc had moved aside to delete, though something needs it.
    needed = next(p for p in objects.glob("??/*") if len(p.name) == 38)
    needed.rename(needed.with_name(needed.name + ".gc-trash"))
    ok("gc")
    assert not incoming.exists()
    assert not temporary.exists()
    assert not list(objects.glob("??/*.gc-trash"))
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
