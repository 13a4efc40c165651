"""``paths_at_risk``: the command line parsed, read in imitation of the shell, and what it may
change made a plan. Never raises."""

from __future__ import annotations

import os
import stat  # loaded by os already

from rewind.quicksave.analysis import Analysis
from rewind.quicksave.interpreter import run_sequence
from rewind.quicksave.parser import parse
from rewind.quicksave.plan import QuicksavePlan
from rewind.quicksave.prepass import unread_warning
from rewind.quicksave.shell import Shell

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.plan import QuicksaveLimits


def paths_at_risk(command: str, cwd: bytes, limits: QuicksaveLimits) -> QuicksavePlan:
    """Every path ``command``, run in ``cwd``, may create, overwrite or delete. Never raises."""
    try:
        parsed = parse(command)
    except ValueError as error:
        return QuicksavePlan([], False, [f"the command could not be parsed ({error})"])
    except Exception as error:  # never raise on the hook path (RecursionError...)
        return QuicksavePlan([], False, [f"the command could not be parsed ({error!r})"])
    analysis: Analysis | None = None
    try:
        given = os.fsdecode(cwd)
        directory = os.path.normpath(given if os.path.isabs(given) else os.path.abspath(given))
        analysis = Analysis(limits, directory)
        if parsed.unread:
            analysis.warn(unread_warning(parsed.unread))
        run_sequence(analysis, parsed.commands, Shell(directory))
        paths = [os.fsencode(path) for path in analysis.paths if not _is_directory(path)]
        kept = set(paths)
        moves = {
            os.fsencode(destination): os.fsencode(source)
            for destination, source in analysis.moves.items()
            if os.fsencode(destination) in kept and os.fsencode(source) in kept
        }
    except Exception as error:  # never raise on the hook path
        message = f"the command could not be analysed ({error!r}); nothing recorded"
        return QuicksavePlan([], False, [*(analysis.all_warnings if analysis else []), message])
    return QuicksavePlan(paths, True, analysis.all_warnings, moves)


def _is_directory(path: str) -> bool:
    """An existing directory, not a symlink to one: not recorded (its files are)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
