"""rewind: a per-turn undo history for files changed by coding agents.

The Python API lives in :mod:`rewind.api`; its names are re-exported here lazily so that
``import rewind`` costs nothing on the hook path.
"""

from __future__ import annotations

from time import perf_counter

# When rewind began to load (time.perf_counter): a hook call's latency in its stats runs from
# here, so that it covers rewind's imports, not only its work (rewind.hooks).
LOADED_AT = perf_counter()

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.api import Project, Turn

__all__ = ["LOADED_AT", "Project", "Turn", "__version__"]


def __getattr__(name: str) -> object:
    if name == "__version__":
        from rewind._version import __version__

        return __version__
    if name in ("Project", "Turn"):
        from rewind import api

        return getattr(api, name)
    raise AttributeError(name)
