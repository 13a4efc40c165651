"""Which objects the history reaches from a set of commits, short of what is packed already.

The packs are closed under reachability: each was written from such a walk (every object a
packed commit or tree leads to is packed too, in that pack or an older one), and packs are only
ever rolled together or rewritten whole. So a walk may stop at a packed commit and skip a
packed tree: what is beyond them is packed. The cost of a walk thus grows with what is new
since the last gc, not with the whole history.
"""

from __future__ import annotations

from rewind.store.objects import MODE_TREE, ObjectReader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable


def never_packed(oid: str) -> bool:
    return False


def unpacked_reachable(
    reader: ObjectReader,
    tips: Iterable[str],
    packed: Callable[[str], bool] = never_packed,
    seen: set[str] | None = None,
) -> set[str]:
    """Every commit, tree and blob reachable from ``tips`` (through first parents, as rewind
    writes no merges) that ``packed`` does not say is in a pack, added to ``seen`` (what an
    earlier walk found, which is not walked again)."""
    seen = set() if seen is None else seen
    for tip in tips:
        commit: str | None = tip
        while commit and commit not in seen and not packed(commit):
            seen.add(commit)
            tree, commit = reader.read_commit(commit)
            _add_tree(reader, tree, packed, seen)
    return seen


def _add_tree(
    reader: ObjectReader, root: str, packed: Callable[[str], bool], seen: set[str]
) -> None:
    pending = [root]
    while pending:
        tree = pending.pop()
        if tree in seen or packed(tree):
            continue
        seen.add(tree)
        for _, mode, oid in reader.read_tree(tree):
            if oid in seen or packed(oid):
                continue
            if mode == MODE_TREE:
                pending.append(oid)
            else:
                seen.add(oid)
