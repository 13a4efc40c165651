"""The records of the public interface: the limits a quicksave works within, and its plan."""

from __future__ import annotations

from rewind.store.config import DEFAULT_QUICKSAVE_MAX_BYTES, DEFAULT_QUICKSAVE_MAX_FILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.store.config import Config


class QuicksaveLimits:
    """How much expanding directories may add to the quicksave of one command."""

    __slots__ = ("max_bytes", "max_files")

    def __init__(
        self,
        max_files: int = DEFAULT_QUICKSAVE_MAX_FILES,
        max_bytes: int = DEFAULT_QUICKSAVE_MAX_BYTES,
    ) -> None:
        self.max_files = max_files
        self.max_bytes = max_bytes

    def __repr__(self) -> str:
        return f"QuicksaveLimits(max_files={self.max_files}, max_bytes={self.max_bytes})"


class QuicksavePlan:
    """The absolute paths to record before the command runs, in a stable order, and the files
    among them that ``mv`` moves (``moves``: destination to source)."""

    __slots__ = ("moves", "paths", "understood", "warnings")

    def __init__(
        self,
        paths: list[bytes],
        understood: bool,
        warnings: list[str],
        moves: dict[bytes, bytes] | None = None,
    ) -> None:
        self.paths = paths
        self.understood = understood
        self.warnings = warnings
        self.moves = moves or {}

    def __repr__(self) -> str:
        return (
            f"QuicksavePlan(paths={self.paths!r}, understood={self.understood}, "
            f"warnings={self.warnings!r})"
        )


def limits_from(config: Config) -> QuicksaveLimits:
    return QuicksaveLimits(config.quicksave_max_files, config.quicksave_max_bytes)
