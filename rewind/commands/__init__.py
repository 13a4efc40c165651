"""The commands: one module per command, each with ``run(**options) -> int`` (its exit code),
named in :data:`COMMANDS` under the word people type after ``rewind``.

Each entry imports its module only when the command runs, so that the hook path loads only
what it uses; the parser (rewind.commands.parsing) builds the same words' options
(tests/dispatch_test.py keeps the two equal).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Run = Callable[..., int]


def _begin() -> Run:
    from rewind.commands.begin import run

    return run


def _track() -> Run:
    from rewind.commands.track import run

    return run


def _end() -> Run:
    from rewind.commands.end import run

    return run


def _hook() -> Run:
    from rewind.commands.hook import run

    return run


def _log() -> Run:
    from rewind.commands.log import run

    return run


def _history() -> Run:
    from rewind.commands.history import run

    return run


def _blame() -> Run:
    from rewind.commands.blame import run

    return run


def _show() -> Run:
    from rewind.commands.show import run

    return run


def _diff() -> Run:
    from rewind.commands.diff import run

    return run


def _restore() -> Run:
    from rewind.commands.restore import run

    return run


def _resume() -> Run:
    from rewind.commands.resume import run

    return run


def _undo() -> Run:
    from rewind.commands.undo import run

    return run


def _redo() -> Run:
    from rewind.commands.redo import run

    return run


def _apply() -> Run:
    from rewind.commands.apply import run

    return run


def _extract() -> Run:
    from rewind.commands.extract import run

    return run


def _label() -> Run:
    from rewind.commands.label import run

    return run


def _sessions() -> Run:
    from rewind.commands.sessions import run

    return run


def _remote() -> Run:
    from rewind.commands.remote import run

    return run


def _push() -> Run:
    from rewind.commands.push import run

    return run


def _fetch() -> Run:
    from rewind.commands.fetch import run

    return run


def _status() -> Run:
    from rewind.commands.status import run

    return run


def _stats() -> Run:
    from rewind.commands.stats import run

    return run


def _check() -> Run:
    from rewind.commands.check import run

    return run


def _gc() -> Run:
    from rewind.commands.gc import run

    return run


def _forget() -> Run:
    from rewind.commands.forget import run

    return run


def _completion() -> Run:
    from rewind.commands.completion import run

    return run


def _demo() -> Run:
    from rewind.commands.demo import run

    return run


def _install() -> Run:
    from rewind.commands.install import run

    return run


def _uninstall() -> Run:
    from rewind.commands.uninstall import run

    return run


def _doctor() -> Run:
    from rewind.commands.doctor import run

    return run


def _watch() -> Run:
    from rewind.commands.watch import run

    return run


def _help() -> Run:
    from rewind.commands.help import run

    return run


def _tui() -> Run:
    from rewind.commands.tui import run

    return run


def _mcp() -> Run:
    from rewind.commands.mcp import run

    return run


# Each command's run, by name, in the order 'rewind --help' lists them.
COMMANDS: dict[str, Callable[[], Run]] = {
    "begin": _begin,
    "track": _track,
    "end": _end,
    "hook": _hook,
    "log": _log,
    "history": _history,
    "blame": _blame,
    "show": _show,
    "diff": _diff,
    "restore": _restore,
    "resume": _resume,
    "undo": _undo,
    "redo": _redo,
    "apply": _apply,
    "extract": _extract,
    "label": _label,
    "sessions": _sessions,
    "remote": _remote,
    "push": _push,
    "fetch": _fetch,
    "status": _status,
    "stats": _stats,
    "check": _check,
    "gc": _gc,
    "forget": _forget,
    "completion": _completion,
    "demo": _demo,
    "install": _install,
    "uninstall": _uninstall,
    "doctor": _doctor,
    "watch": _watch,
    "help": _help,
    "tui": _tui,
    "mcp": _mcp,
}
