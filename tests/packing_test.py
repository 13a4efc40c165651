"""Packing keeps every version a session needs, shrinks the store, and frees forgotten ones."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from rewind.history.opening import open_store
from rewind.history.upkeep import reachable_objects
from rewind.store.packing import GRACE_SECONDS, needs_packing
from tests.conftest import run_rewind


def store_path() -> Path:
    return Path(run_rewind("status").stdout.split("store:", 1)[1].split()[0])


def loose_objects(store: Path) -> list[Path]:
    return [p for p in (store / "objects").glob("??/*")]


def record_versions(project: Path, count: int) -> None:
    lines = [f"line {i} of a long file that changes one line per turn" for i in range(2000)]
    target = project / "big.txt"
    for turn in range(count):
        lines[turn] = f"changed in turn {turn}"
        assert run_rewind("begin", "--session", "s").returncode == 0
        assert run_rewind("track", "--session", "s", "big.txt").returncode == 0
        target.write_text("\n".join(lines))
    assert run_rewind("end", "--session", "s").returncode == 0


def age_all_loose_objects(store: Path) -> None:
    old = time.time() - GRACE_SECONDS - 60
    for path in loose_objects(store):
        os.utime(path, (old, old))


def test_gc_packs_history_small_and_restores_still_work(project: Path) -> None:
    original = "\n".join(
        f"line {i} of a long file that changes one line per turn" for i in range(2000)
    )
    (project / "big.txt").write_text(original)
    record_versions(project, 20)
    store = store_path()
    age_all_loose_objects(store)  # superseded versions of open turns may now go

    result = run_rewind("gc")
    assert result.returncode == 0, result.stderr
    assert loose_objects(store) == []
    pack_bytes = sum(p.stat().st_size for p in (store / "objects" / "pack").glob("*.pack"))
    assert pack_bytes < 3 * len(original)  # 21 versions of ~100 KB, stored as deltas

    assert run_rewind("check").returncode == 0
    assert run_rewind("restore", "1", "--yes", "--session", "s").returncode == 0
    assert (project / "big.txt").read_text() == original
    fsck = subprocess.run(
        ["git", "--git-dir", str(store), "fsck", "--no-dangling"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr


def test_gc_keeps_recent_unreferenced_objects(project: Path) -> None:
    """A hook may have written a blob its entry does not name yet: young objects stay."""
    (project / "a.txt").write_text("a")
    assert run_rewind("begin", "--session", "s").returncode == 0
    store = open_store(os.path.realpath(os.fsencode(project)))
    orphan = store.writer.write_blob(b"written by a hook a moment ago")
    assert run_rewind("gc").returncode == 0
    assert store.reader.read_blob(orphan) == b"written by a hook a moment ago"


def test_forget_then_gc_frees_the_session(project: Path) -> None:
    (project / "a.txt").write_text("kept by session keep")
    (project / "b.txt").write_text("only in session drop")
    assert run_rewind("track", "--session", "keep", "a.txt").returncode == 0
    assert run_rewind("track", "--session", "drop", "b.txt").returncode == 0
    store = open_store(os.path.realpath(os.fsencode(project)))
    before = reachable_objects(store)

    result = run_rewind("forget", "drop", "--yes")
    assert result.returncode == 0, result.stderr
    assert "keep" in run_rewind("sessions").stdout
    assert "drop" not in run_rewind("sessions").stdout
    after = reachable_objects(store)
    assert after < before
    age_all_loose_objects(store_path())
    assert run_rewind("gc").returncode == 0
    for oid in before - after:
        assert not (store_path() / "objects" / oid[:2] / oid[2:]).exists()
    assert run_rewind("check").returncode == 0


def test_needs_packing_follows_the_sampled_directory(project: Path) -> None:
    assert run_rewind("begin", "--session", "s").returncode == 0
    store = open_store(os.path.realpath(os.fsencode(project)))
    assert not needs_packing(store)
    sample = Path(store.git_dir) / "objects" / "17"
    sample.mkdir(exist_ok=True)
    for index in range(30):
        (sample / f"{index:038x}").write_bytes(b"")
    assert needs_packing(store)
