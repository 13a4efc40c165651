"""rewind: a per-turn undo history for files changed by coding agents.

The Python API lives in :mod:`rewind.api`; its names are re-exported here lazily so that
``import rewind`` costs nothing on the hook path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.api import Project, Turn

__all__ = ["Project", "Turn", "__version__"]


def __getattr__(name: str) -> object:
    if name == "__version__":
        from rewind._version import __version__

        return __version__
    if name in ("Project", "Turn"):
        from rewind import api

        return getattr(api, name)
    raise AttributeError(name)
