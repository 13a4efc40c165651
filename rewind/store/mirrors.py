"""The mirrors of remotes (rewind.store.remotes): one fetch at a time in each, what a killed
fetch leaves behind, and their gc.

Only ``git fetch`` writes a mirror (rewind.history.remote.fetched), holding the mirror's
``rewind/fetch.lock`` throughout: a second fetch from the same remote at once is refused, so
nothing one fetch writes is taken by another for a leftover. The fetch also notes the pid of
the git it started in ``rewind/fetching`` until that git has ended.

A fetch killed outright (kill -9, a machine that went down) leaves git's temporary files
(``objects/pack/tmp_pack_*``, ``tmp_idx_*``...), maybe a pack without its index or a ref's
``.lock`` file, and its note. The next fetch, or gc, removes them first, so that they are never
counted against ``max_fetch_mb``, once no git a fetch noted still runs: the git of a killed
rewind can outlive it, and while it runs, the mirror is left to it (a fetch says so, a gc
passes it over).

gc (rewind.history.upkeep.collection) collects a mirror that a fetch changed since the last gc with
``git gc --prune=now`` through the git program, under the same lock and with the same settings as a
fetch: its packs rolled into one, and the objects of sessions the remote deleted removed.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from typing import NamedTuple

from rewind.errors import UserError
from rewind.store.atomic import write_text_atomically
from rewind.store.git_program import run_git
from rewind.store.remotes import MIRRORS_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from rewind.store.repository import Store

FETCH_LOCK = "fetch.lock"
FETCHING = "fetching"  # the pids of the gits fetches started, one per line, until they end
GC_WANTED = "gc.wanted"  # a fetch changed the mirror's refs since its last gc
# What git names its temporary files in objects/pack: index-pack's tmp_pack_*, tmp_idx_*,
# tmp_rev_*, and pack-objects' .tmp-PID-pack-* (a repack).
TEMPORARY = ("tmp_", ".tmp-")
# A mirror's gc: as light on the machine as a background gc must be (one thread, a bounded
# delta window), and nothing of git's that is not needed (commit graphs).
_GC_SETTINGS = (
    "-c",
    "gc.writeCommitGraph=false",
    "-c",
    "pack.threads=1",
    "-c",
    "pack.windowMemory=256m",
)


def state_file(mirror: str, name: str) -> str:
    return os.path.join(mirror, "rewind", name)


@contextmanager
def fetch_lock(mirror: str) -> Iterator[bool]:
    """The mirror's fetch lock, held until the block ends; yields whether it was free (it is
    never waited for)."""
    os.makedirs(os.path.join(mirror, "rewind"), exist_ok=True)
    fd = os.open(state_file(mirror, FETCH_LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def note_git(mirror: str, pid: int) -> None:
    """Notes the git a fetch started, until :func:`forget_git` (with the fetch lock held)."""
    write_text_atomically(
        state_file(mirror, FETCHING), "".join(f"{p}\n" for p in [*_noted(mirror), pid])
    )


def forget_git(mirror: str, pid: int) -> None:
    """The git ``pid`` has ended (it was waited for)."""
    _keep_noted(mirror, [p for p in _noted(mirror) if p != pid])


def running_gits(mirror: str) -> list[int]:
    """The gits fetches noted that still run: those whose rewind was killed before it saw them
    end (the note of each that has ended is dropped)."""
    noted = _noted(mirror)
    running = [pid for pid in noted if _runs(pid)]
    if running != noted:
        _keep_noted(mirror, running)
    return running


def clear_leftovers(mirror: str) -> None:
    """Removes what killed fetches left in the mirror: call it holding the fetch lock, once
    :func:`running_gits` is empty (nothing else writes a mirror)."""
    pack_dir = os.path.join(mirror, "objects", "pack")
    names = os.listdir(pack_dir) if os.path.isdir(pack_dir) else []
    indexed = {name[:-4] for name in names if name.endswith(".idx")}
    for name in names:
        unindexed = name.endswith((".pack", ".rev")) and name.rsplit(".", 1)[0] not in indexed
        if name.startswith(TEMPORARY) or unindexed:
            _remove(os.path.join(pack_dir, name))
    for lock in _ref_locks(mirror):
        _remove(lock)


def temporary_files(pack_dir: str) -> list[str]:
    try:
        return [name for name in os.listdir(pack_dir) if name.startswith(TEMPORARY)]
    except FileNotFoundError:
        return []


def want_gc(mirror: str) -> None:
    """Notes that a fetch changed the mirror: the next gc collects it."""
    with open(state_file(mirror, GC_WANTED), "w"):
        pass


def collect(mirror: str, remote: str, full: bool = False) -> tuple[int, int] | None:
    """One gc of the mirror, when a fetch changed it since the last one (or ``full``), what a
    killed fetch left removed first: the bytes its objects took before and after, or None when
    it did not run. A mirror a fetch is writing, or a git of a killed fetch, is left for the
    next gc."""
    with fetch_lock(mirror) as free:
        if not free or running_gits(mirror):
            return None
        wanted = state_file(mirror, GC_WANTED)
        objects = os.path.join(mirror, "objects")
        if not (full or os.path.exists(wanted) or temporary_files(os.path.join(objects, "pack"))):
            return None
        size_before = usage(objects)
        clear_leftovers(mirror)
        run_git(
            mirror,
            *_GC_SETTINGS,
            "gc",
            "--prune=now",
            "--quiet",
            what=f"collecting what was fetched from {remote}",
        )
        _remove(wanted)
        return size_before, usage(objects)


class MirrorsCollected(NamedTuple):
    """What one gc did to the mirrors: the remotes whose mirror it collected, and the bytes
    their objects took before and after."""

    remotes: list[str]
    size_before: int
    size_after: int


def collect_all(store: Store, full: bool = False) -> MirrorsCollected:
    """:func:`collect` on the mirror of every remote; one that fails is logged and left."""
    top = store.state_path(MIRRORS_DIR)
    names = sorted(os.listdir(top)) if os.path.isdir(top) else []
    collected: list[str] = []
    size_before = size_after = 0
    for name in names:
        mirror = os.path.join(top, name)
        if not os.path.exists(os.path.join(mirror, "HEAD")):
            continue
        try:
            sizes = collect(mirror, name, full)
        except (UserError, OSError) as error:
            store.log_problem(f"gc left the mirror of {name} as it was: {error}")
            continue
        if sizes is not None:
            collected.append(name)
            size_before += sizes[0]
            size_after += sizes[1]
    return MirrorsCollected(collected, size_before, size_after)


def usage(top: str) -> int:
    """Bytes the files under ``top`` take."""
    total = 0
    for folder, _, names in os.walk(top):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except FileNotFoundError:
                pass
    return total


def _noted(mirror: str) -> list[int]:
    try:
        with open(state_file(mirror, FETCHING), encoding="ascii", errors="replace") as handle:
            return [int(line) for line in handle.read().split() if line.isdigit()]
    except FileNotFoundError:
        return []


def _keep_noted(mirror: str, pids: list[int]) -> None:
    if pids:
        write_text_atomically(state_file(mirror, FETCHING), "".join(f"{p}\n" for p in pids))
    else:
        _remove(state_file(mirror, FETCHING))


def _runs(pid: int) -> bool:
    """Whether the git a fetch noted as ``pid`` still runs (and the pid is not another
    process's now)."""
    if not 1 < pid < 2**31:  # not a pid a fetch noted (0 would be this process group)
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or another user's process now
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            name, _, state = stat.read().rpartition(b")")
    except OSError:
        return True  # no /proc to say more (macOS): it may be the git still
    # A zombie has ended (its rewind was killed and init may take its time to reap it); a
    # process that is not git has the pid now.
    return name.partition(b"(")[2].startswith(b"git") and state.split()[:1] != [b"Z"]


def _ref_locks(mirror: str) -> list[str]:
    """The ``.lock`` files of refs a killed git left (a ref it was updating stays locked)."""
    found = [os.path.join(mirror, "packed-refs.lock")]
    for top, _, names in os.walk(os.path.join(mirror, "refs")):
        found += [os.path.join(top, name) for name in names if name.endswith(".lock")]
    return [path for path in found if os.path.exists(path)]


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
