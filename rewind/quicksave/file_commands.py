"""The commands whose file operands are read here, by name (``find -exec`` and ``xargs`` look
them up too)."""

from __future__ import annotations

from rewind.quicksave.copy_move import cp, install, ln, mv
from rewind.quicksave.file_writers import chmod, dd, tee, touch, truncate
from rewind.quicksave.git_commands import git
from rewind.quicksave.in_place import awk, perl, sed
from rewind.quicksave.removal import rm, shred, unlink

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell

    Handler = Callable[[Analysis, list[str], Shell], None]

FILE_COMMANDS: dict[str, Handler] = {
    "rm": rm,
    "unlink": unlink,
    "shred": shred,
    "mv": mv,
    "cp": cp,
    "ln": ln,
    "install": install,
    "sed": sed,
    "gsed": sed,
    "perl": perl,
    "awk": awk,
    "gawk": awk,
    "tee": tee,
    "truncate": truncate,
    "touch": touch,
    "dd": dd,
    "chmod": chmod,
    "git": git,
}
