"""Which changed paths watch mode leaves out: ``.git``, rewind's own files, an agent's
temporary files of an atomic write, the exclude globs and what the project's ignore rules
(``.gitignore`` and the like) exclude.

The ignore rules are read through libgit2 (:mod:`rewind.store.project_repository`), read-only:
it reads ``.gitignore`` files, ``.git/info/exclude`` and ``core.excludesFile`` and writes nothing.
"""

from __future__ import annotations

import os
import re
from fnmatch import translate

from rewind.store.root import GIT_DIR_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.store.project_repository import ProjectRepository


# An agent's atomic write: Claude Code writes FILE.tmp.PID.HEX (12 hex digits; FILE.tmp.HEX, 8,
# for some of its own files) and renames it over FILE a moment later. Recorded, the temporary
# would be a change of its own whenever a barrier falls between the two (another session's
# prompt or turn's end), an "added" then a "deleted" file nobody made.
AGENT_TEMPORARY = re.compile(r".+\.tmp\.(?:[0-9]+\.[0-9a-f]{12}|[0-9a-f]{8})")


class IgnoreRules:
    """``ignored(relative)`` for paths relative to the root, as bytes."""

    def __init__(
        self,
        root: bytes,
        own_directories: list[str],
        globs: tuple[str, ...],
        repository: ProjectRepository | None,
    ) -> None:
        self.root = root
        # rewind's home (its stores, its logs) when it lies under the root.
        self.own_prefixes = []
        for directory in own_directories:
            real = os.fsencode(os.path.realpath(directory))
            if real.startswith(root.rstrip(b"/") + b"/"):
                self.own_prefixes.append(os.path.relpath(real, root) + b"/")
        # One regular expression for all the name globs, one for all the path globs.
        names = [translate(g.rstrip("/")) for g in globs if "/" not in g.rstrip("/")]
        paths = [
            f"(?:{translate(g)})|(?:{translate(g.rstrip('/') + '/*')})"
            for g in globs
            if "/" in g.rstrip("/")
        ]
        self.name_globs = re.compile("|".join(names)) if names else None
        self.path_globs = re.compile("|".join(paths)) if paths else None
        self.repository = repository  # None outside git

    def ignored(self, relative: bytes) -> bool:
        parts = relative.split(b"/")
        if GIT_DIR_NAME in parts or relative in (b"", b"."):
            return True
        if any(relative.startswith(prefix) for prefix in self.own_prefixes):
            return True
        text = os.fsdecode(relative)
        if AGENT_TEMPORARY.fullmatch(text.rsplit("/", 1)[-1]):
            return True
        if self.name_globs is not None:
            match = self.name_globs.match
            if any(match(part) for part in text.split("/")):
                return True
        if self.path_globs is not None and self.path_globs.match(text):
            return True
        return self._git_ignored(text)

    def _git_ignored(self, text: str) -> bool:
        if self.repository is None:
            return False
        try:
            return self.repository.is_ignored(text)
        except (UnicodeError, ValueError):  # a name libgit2 cannot take: record it
            return False
