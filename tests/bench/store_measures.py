"""What the store benchmarks (store_size, gc_growth) share: recording turns through the Python
API, a shadow git repository of the same versions, sizes on disk, and a timed ``rewind gc``.

Sizes are apparent sizes (the bytes of each file, not the blocks it takes), of:

- a store: ``objects/`` (loose objects and packs), ``refs/``, ``packed-refs`` and rewind's own
  state (``rewind/``: the sessions' caches, journals, notes for gc; lock files are empty);
- a shadow git repository: ``objects/``, ``refs/`` and ``packed-refs`` (its history; not its
  index, hooks samples, logs or config, which a store has no counterpart of).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.bench.harness import PYTHON, BenchError, Sandbox

STORE_PARTS = ("objects", "refs", "packed-refs", "rewind")
GIT_PARTS = ("objects", "refs", "packed-refs")


def bytes_under(root: Path, parts: Sequence[str]) -> int:
    total = 0
    for part in parts:
        top = root / part
        if top.is_file():
            total += top.stat().st_size
            continue
        for folder, _, names in os.walk(top):
            for name in names:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
    return total


def files_under(root: Path) -> int:
    return sum(len(names) for _, _, names in os.walk(root))


def pack_count(store: Path) -> int:
    return len(list((store / "objects" / "pack").glob("*.pack")))


@contextlib.contextmanager
def sandbox_environment(box: Sandbox) -> Iterator[None]:
    """The sandbox's environment in this process too, for rewind.Project (and what it starts)."""
    saved = dict(os.environ)
    os.environ.update(box.env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def store_of(workspace: Path) -> Path:
    from rewind.history.restoring.opening import open_store

    return Path(open_store(os.fsencode(os.path.realpath(workspace))).git_dir)


def wait_for_gc(store: Path) -> None:
    """Waits until no gc runs (one ``begin`` started in the background, say)."""
    lock = store / "rewind" / "gc.lock"
    if not lock.exists():
        return
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    finally:
        os.close(fd)


class GcRun:
    """One ``rewind gc`` process: its wall-clock time, its peak memory, and what it printed."""

    def __init__(self, seconds: float, peak_bytes: int, output: str) -> None:
        self.seconds = seconds
        self.peak_bytes = peak_bytes
        self.output = output


# Runs a command and writes its time and peak memory (its own ru_maxrss, from os.wait4) to
# standard error. A small process of its own starts it: Linux carries the high-water mark of
# the memory a child was forked from (this benchmark's, with the whole history in it) across
# exec, so measuring from here would report at least this process's size.
MEASURE = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(child.pid, 0)
print("measured", time.perf_counter() - started, usage.ru_maxrss * 1024, file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_gc(box: Sandbox, workspace: Path, *options: str) -> GcRun:
    """Runs ``rewind gc`` in ``workspace``: its time, and its peak memory (see MEASURE)."""
    wait_for_gc(store_of(workspace))
    argv = [PYTHON, "-c", MEASURE, PYTHON, "-m", "rewind", "gc", *options]
    done = subprocess.run(argv, cwd=workspace, env=box.env, capture_output=True, check=False)
    errors = done.stderr.decode(errors="replace")
    if done.returncode != 0 or "measured" not in errors:
        raise BenchError(f"rewind gc {' '.join(options)} exited {done.returncode}: {errors}")
    seconds, peak = errors.rsplit("measured", 1)[1].split()
    return GcRun(float(seconds), int(peak), done.stdout.decode(errors="replace").strip())


def shadow_repository(box: Sandbox, directory: Path, versions: Sequence[dict[str, bytes]]) -> Path:
    """A git repository holding ``versions`` (each: the files it changes, by path) as one commit
    each, written by ``git fast-import`` and then packed with ``git gc --prune=now``."""
    directory.mkdir(parents=True)
    box.run(["git", "init", "-q", "--bare", str(directory)], cwd=directory)
    stream = bytearray()
    for number, changed in enumerate(versions, 1):
        message = f"version {number}\n".encode()
        stream += b"commit refs/heads/main\n"
        stream += b"committer Bench <bench@example.com> %d +0000\n" % (1_800_000_000 + number)
        stream += b"data %d\n%s\n" % (len(message), message)
        for path, data in changed.items():
            stream += b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data)
    box.run(["git", "fast-import", "--quiet"], cwd=directory, stdin=bytes(stream))
    box.run(["git", "gc", "--quiet", "--prune=now"], cwd=directory)
    return directory
