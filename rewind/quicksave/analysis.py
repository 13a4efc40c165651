"""The paths found so far, the warnings, and what the limits still allow: the words of a
command made paths, and directories walked within the limits."""

from __future__ import annotations

import os

from rewind.quicksave.words import expands_as_glob, is_dynamic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from rewind.quicksave.plan import QuicksaveLimits
    from rewind.quicksave.shell import Shell

UNLIMITED_DEPTH = 1 << 30
_MAX_SCANNED_ENTRIES = 100_000  # directory entries looked at per command (find filters some out)
_UNSAVED_TREES = ("/dev", "/proc", "/sys")
_MAX_WARNINGS = 100  # per command line: each one is logged
# Commands read per command line, a loop's once per run (reading one takes some microseconds).
MAX_COMMANDS_READ = 30_000


class Analysis:
    """The paths found so far, the warnings, and what the limits still allow."""

    __slots__ = (
        "bytes_taken",
        "commands_read",
        "cwd",
        "files_taken",
        "found",
        "limit_reached",
        "limits",
        "moves",
        "scanned",
        "unshown_warnings",
        "warned",
        "warnings",
        "written",
    )

    def __init__(self, limits: QuicksaveLimits, cwd: str) -> None:
        self.limits = limits
        self.cwd = cwd
        self.found: dict[str, None] = {}  # an ordered set
        self.moves: dict[str, str] = {}  # destination: source, for each file mv moves
        self.written: dict[str, str] = {}  # path: text, for each file cat > FILE <<EOF writes
        self.warnings: list[str] = []
        self.warned: set[str] = set()
        self.unshown_warnings = 0
        self.files_taken = 0
        self.bytes_taken = 0
        self.limit_reached = False
        self.scanned = 0
        self.commands_read = 0

    @property
    def paths(self) -> list[str]:
        return list(self.found)

    # results ---------------------------------------------------------------------------

    def warn(self, message: str) -> None:
        """Adds ``message`` once; past the most warnings kept, only counts it."""
        if message in self.warned:
            return
        self.warned.add(message)
        if len(self.warnings) < _MAX_WARNINGS:
            self.warnings.append(message)
        else:
            self.unshown_warnings += 1

    @property
    def all_warnings(self) -> list[str]:
        """The warnings kept, and how many more there were."""
        if not self.unshown_warnings:
            return self.warnings
        return [*self.warnings, f"and {self.unshown_warnings} more warnings, not shown"]

    def add(self, path: str) -> None:
        path = os.path.normpath(path)
        if not _excluded(path):
            self.found.setdefault(path, None)

    def add_existing(self, path: str) -> None:
        if os.path.lexists(path):
            self.add(path)

    def read_command(self) -> bool:
        """Counts one more command read; False, with a warning, past the most a command line
        may make read."""
        self.commands_read += 1
        if self.commands_read <= MAX_COMMANDS_READ:
            return True
        self.warn(
            f"the command runs more than {MAX_COMMANDS_READ} commands (a loop's once per run): "
            "the rest were not read (nothing in them was recorded)"
        )
        return False

    def take(self, size: int, what: str, taken: int) -> bool:
        """Counts one more file found expanding ``what`` (a directory, or git's list of ...;
        ``taken`` files so far) against the limits; False, with a warning, once they are
        reached."""
        limits = self.limits
        full = self.files_taken >= limits.max_files
        if full or self.bytes_taken + size > limits.max_bytes or self.limit_reached:
            self.limit_reached = True
            self._warn_limit(what, taken)
            return False
        self.files_taken += 1
        self.bytes_taken += size
        return True

    def _warn_limit(self, what: str, taken: int) -> None:
        limits = self.limits
        if taken == 0 and self.files_taken:
            self.warn(f"{what}: not expanded, the quicksave limits were reached")
        elif self.files_taken >= limits.max_files:
            self.warn(
                f"{what} has more than {taken} files: recorded the first {taken} "
                f"(quicksave_max_files is {limits.max_files})"
            )
        else:
            self.warn(
                f"{what} has more than {_size_text(limits.max_bytes)} in files: recorded the "
                f"first {taken} files (quicksave_max_bytes is {limits.max_bytes})"
            )

    def shown(self, path: str) -> str:
        """A short name for a warning: relative to the command's directory when inside it,
        with a slash after a directory's name."""
        if path == self.cwd:
            return "./"
        slash = "/" if os.path.isdir(path) and not path.endswith("/") else ""
        if path.startswith(self.cwd.rstrip("/") + "/"):
            path = os.path.relpath(path, self.cwd)
        return path + slash

    # paths from words ----------------------------------------------------------------------

    def resolve(self, word: str, shell: Shell, context: str) -> str | None:
        """The absolute path ``word`` names (no glob expansion); None, with a warning, when
        only the running shell could tell."""
        if is_dynamic(word):
            self.warn(f"{context}: a path only the running shell knows was not recorded")
            return None
        if not word:
            return None
        if os.path.isabs(word):
            return os.path.normpath(word)
        if shell.cwd is None:
            self.warn(f"{context}: {word} is relative to a directory only the shell knows")
            return None
        return os.path.normpath(os.path.join(shell.cwd, word))

    def operand_paths(self, word: str, shell: Shell, context: str) -> list[str]:
        """The paths an operand names: its glob matches (and the literal name, if that
        exists), or the literal name when it has no matches, as the shell passes it on."""
        path = self.resolve(word, shell, context)
        if path is None or not expands_as_glob(word):
            return [] if path is None else [path]
        matches = shell.glob(word, recursive=True)
        paths = [os.path.normpath(os.path.join(shell.cwd or "/", match)) for match in matches]
        if not paths or os.path.lexists(path):
            paths.append(path)
        return paths

    def record_created(self, word: str, shell: Shell, context: str) -> None:
        for path in self.operand_paths(word, shell, context):
            self.add(path)

    def record_changed(self, word: str, shell: Shell, context: str) -> None:
        for path in self.operand_paths(word, shell, context):
            self.add_existing(path)

    # walking directories ------------------------------------------------------------------

    def record_tree(
        self, directory: str, mirrors: tuple[str, ...] = (), include_files: bool = True
    ) -> None:
        """Records every file and symlink under ``directory`` (and the same relative paths
        under each of ``mirrors``), within the limits."""
        what = f"directory {self.shown(directory)}"
        taken = 0
        for path, kind, size, _ in self.tree_entries(directory, what):
            if kind not in ("f", "l"):
                continue
            if include_files and not mirrors and path in self.found:
                continue  # walked before (src/** matches a directory and what is inside it)
            if not self.take(size, what, taken):
                return
            taken += 1
            if include_files:
                self.add(path)
            if mirrors:
                relative = os.path.relpath(path, directory)
                for mirror in mirrors:
                    self.add(os.path.join(mirror, relative))

    def tree_entries(
        self, directory: str, what: str, max_depth: int = UNLIMITED_DEPTH
    ) -> Iterator[tuple[str, str, int, int]]:
        """Everything under ``directory``: path, kind (``d``/``l``/``f``/``o``), size, depth
        (1: in ``directory``). Sorted, depth first, symlinks not followed; ``.git`` (directory
        or file) and ``/dev``, ``/proc``, ``/sys`` skipped."""
        pending = [(directory, 0)]
        while pending:
            parent, depth = pending.pop()
            if depth >= max_depth:
                continue
            subdirectories: list[tuple[str, int]] = []
            for entry in self._scan(parent, what):
                if is_skipped_in_walks(entry.path):
                    continue  # a .git directory, or a submodule's .git file: never recorded
                kind, size = _entry_kind(entry)
                if kind == "d":
                    subdirectories.append((entry.path, depth + 1))
                yield entry.path, kind, size, depth + 1
            pending.extend(reversed(subdirectories))

    def _scan(self, directory: str, what: str) -> list[os.DirEntry[str]]:
        """The entries of ``directory`` sorted by name; none once too many were looked at."""
        if self.scanned > _MAX_SCANNED_ENTRIES:
            return []
        try:
            with os.scandir(directory) as entries:
                found = sorted(entries, key=_entry_name)
        except OSError:
            return []
        self.scanned += len(found)
        if self.scanned > _MAX_SCANNED_ENTRIES:
            self.warn(f"{what}: stopped looking after {_MAX_SCANNED_ENTRIES} entries")
            return []
        return found


def is_skipped_in_walks(path: str) -> bool:
    """``.git``, ``/dev``, ``/proc``, ``/sys``: walks do not go into them."""
    return os.path.basename(path) == ".git" or path in _UNSAVED_TREES


def _excluded(path: str) -> bool:
    if ".git" in path.split("/"):
        return True
    return any(path == tree or path.startswith(tree + "/") for tree in _UNSAVED_TREES)


def _size_text(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB".replace(".0 MiB", " MiB")


def _entry_name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _entry_kind(entry: os.DirEntry[str]) -> tuple[str, int]:
    """``d`` directory, ``l`` symlink, ``f`` regular file (with its size), ``o`` other."""
    try:
        if entry.is_symlink():
            return "l", 0
        if entry.is_dir(follow_symlinks=False):
            return "d", 0
        if entry.is_file(follow_symlinks=False):
            return "f", entry.stat(follow_symlinks=False).st_size
    except OSError:
        pass
    return "o", 0
