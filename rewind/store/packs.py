"""The store's packs (``objects/pack``): which there are, writing one, removing one, and which
ones a gc rolls together so that their sizes stay a geometric progression.

A pack is written into a folder of its own (``.incoming-PID``) and moved in beside the others
index last: a pack is seen only once it is whole. It is removed index first, so that readers
skip it from then on. Whatever a killed gc left (its folder, libgit2's temporary files, a pack
whose index was not moved in or was already removed) is cleared by the next one.
"""

from __future__ import annotations

import os

from rewind.store.pack_index import PackIndex
from rewind.store.packed import build_pack

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

INCOMING = ".incoming-"  # a pack being written, in a folder of its own under objects/pack
# Like 'git repack --geometric=2': after a gc, each pack holds at least twice as many objects as
# the next smaller one, so that a store of N objects has at most about log2(N) packs, and a gc
# rewrites only the small ones (on average, each object is rewritten O(log N) times in all).
GEOMETRIC_FACTOR = 2
_REMOVAL_ORDER = (".idx", ".pack", ".rev")  # the index first: readers then skip the pack


class Packs:
    """The packs that were complete when this was made, with their indexes mapped."""

    def __init__(self, pack_dir: str) -> None:
        self.indexes: dict[str, PackIndex] = {}
        try:
            for name in pack_names(pack_dir):
                self.indexes[name] = PackIndex(os.path.join(pack_dir, name + ".idx"))
        except BaseException:
            self.close()
            raise

    def holds(self, oid: str) -> bool:
        try:
            raw = bytes.fromhex(oid)
        except ValueError:
            return False
        return len(raw) == 20 and any(index.holds(raw) for index in self.indexes.values())

    def sizes(self) -> dict[str, int]:
        """Each pack's object count."""
        return {name: index.count for name, index in self.indexes.items()}

    def close(self) -> None:
        for index in self.indexes.values():
            index.close()


def pack_names(pack_dir: str) -> list[str]:
    """The complete packs: those with an index."""
    return sorted(name[:-4] for name in os.listdir(pack_dir) if name.endswith(".idx"))


def to_roll_up(sizes: dict[str, int], new_objects: int) -> list[str]:
    """The packs to write together with ``new_objects`` new objects, so that every pack is at
    least :data:`GEOMETRIC_FACTOR` times the size of the next smaller one afterwards.

    The largest packs that already form such a progression (each one at least twice the next
    smaller) are left alone; the smaller ones are rolled up, and so is each next larger pack
    while it is not twice the size of what is rolled up so far.
    """
    ordered = sorted((size, name) for name, size in sizes.items())
    if new_objects:
        ordered.append((new_objects, ""))  # "": the new objects' own pack, not yet written
        ordered.sort()
    if len(ordered) < 2:
        return []
    start = len(ordered) - 1
    while start > 0 and ordered[start][0] >= GEOMETRIC_FACTOR * ordered[start - 1][0]:
        start -= 1
    if start == 0:
        return []
    rolled = sum(size for size, _ in ordered[: start + 1])
    end = start + 1
    while end < len(ordered) and ordered[end][0] < GEOMETRIC_FACTOR * rolled:
        rolled += ordered[end][0]
        end += 1
    return [name for _, name in ordered[:end] if name]


def write_pack(git_dir: str, pack_dir: str, objects: Iterable[bytes]) -> str:
    """Writes one pack of ``objects`` (20-byte ids) and moves it in beside the others; returns
    its name."""
    import shutil

    incoming = os.path.join(pack_dir, f"{INCOMING}{os.getpid()}")
    os.makedirs(incoming, exist_ok=True)
    build_pack(git_dir, incoming, objects)
    written = pack_names(incoming)
    for name in written:  # the index last: a pack is seen only once it is whole
        for suffix in (".pack", ".rev", ".idx"):
            source = os.path.join(incoming, name + suffix)
            if os.path.exists(source):
                os.replace(source, os.path.join(pack_dir, name + suffix))
    shutil.rmtree(incoming, ignore_errors=True)
    return written[0] if written else ""


def remove_pack(pack_dir: str, name: str) -> None:
    for suffix in _REMOVAL_ORDER:
        try:
            os.unlink(os.path.join(pack_dir, name + suffix))
        except FileNotFoundError:
            pass


def clear_leftovers(pack_dir: str) -> None:
    """What a killed gc left: its incoming folder, temporary pack files (nothing else is ever
    named so), and the rest of a pack without an index (moved in or removed halfway)."""
    import shutil  # not at the top: shutil imports re, and this may run beside a hook

    names = os.listdir(pack_dir)
    complete = {name[:-4] for name in names if name.endswith(".idx")}
    for name in names:
        path = os.path.join(pack_dir, name)
        unindexed = name.endswith((".pack", ".rev")) and name.rsplit(".", 1)[0] not in complete
        if name.startswith(INCOMING):
            shutil.rmtree(path, ignore_errors=True)
        elif name.startswith(("pack_git2_", "tmp_pack_")) or unindexed:
            _remove(path)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
