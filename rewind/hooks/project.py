"""Which project an agent's event belongs to, when its working directory is not the root.

An agent's shell can ``cd`` anywhere; outside git, the directory an event names is not enough to
find the project, and an edit in a sibling directory would look "outside the root" and be lost.
In order, the root is:

1. an enclosing directory whose store already holds the event's session (where the session's
   history is, it goes on);
2. the project directory the agent names (``CLAUDE_PROJECT_DIR``, ``GEMINI_PROJECT_DIR``,
   Cursor's ``workspace_roots``), when it holds the event's directory;
3. the enclosing git work tree, else the event's directory.
"""

from __future__ import annotations

import os

from rewind.history.session import ref_name
from rewind.store.home import store_dir_for
from rewind.store.root import find_root, is_inside

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def project_root(start: bytes, project_dirs: Iterable[str], session: str) -> bytes:
    """The root of the project an event in the directory ``start`` belongs to."""
    real = os.path.realpath(start)
    if session:
        recorded = _root_holding_session(real, ref_name(session))
        if recorded is not None:
            return recorded
    for project in project_dirs:
        directory = os.path.realpath(os.fsencode(project))
        if project and os.path.isdir(directory) and is_inside(real, directory):
            return find_root(directory)
    return find_root(real)


def _root_holding_session(start: bytes, ref: str) -> bytes | None:
    directory = start
    while True:
        if os.path.exists(os.path.join(store_dir_for(directory), ref)):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
