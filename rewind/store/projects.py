"""Every project rewind keeps a store for: the stores under the rewind home, each with the
root its ``rewind/project.json`` names."""

from __future__ import annotations

import os

from rewind.store.fastjson import load_object
from rewind.store.home import rewind_home, store_dir_for

STORES_DIR = "stores"


class KnownStore:
    """A store directory and the project root it was made for (None when its project.json
    cannot be read, or names a root whose store is another directory)."""

    __slots__ = ("root", "store_dir")

    def __init__(self, store_dir: str, root: bytes | None) -> None:
        self.store_dir = store_dir
        self.root = root


def known_stores() -> list[KnownStore]:
    """The stores under ``$REWIND_HOME/stores`` (those whose layout is complete: a ``HEAD``),
    by directory name."""
    top = os.path.join(rewind_home(), STORES_DIR)
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return []
    found = []
    for name in names:
        store_dir = os.path.join(top, name)
        if os.path.isfile(os.path.join(store_dir, "HEAD")):
            found.append(KnownStore(store_dir, _root_of(store_dir)))
    return found


def _root_of(store_dir: str) -> bytes | None:
    try:
        with open(os.path.join(store_dir, "rewind", "project.json"), encoding="utf-8") as handle:
            root = load_object(handle.read()).get("root")
    except (OSError, ValueError):
        return None
    if not isinstance(root, str) or not root:
        return None
    path = os.fsencode(root)
    return path if store_dir_for(path) == store_dir else None
