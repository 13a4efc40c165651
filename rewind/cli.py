"""``rewind``'s entry point: parse, run one command, map failures to exit codes.

A user's mistake prints one line and exits 1; a bug prints where its traceback was written and
exits 3; Ctrl-C exits 130. Each command is found in :data:`rewind.commands.COMMANDS`, which
imports its module only when it runs, so the hook path loads only what it uses.
"""

from __future__ import annotations

import os
import sys
import time

from rewind.commands import COMMANDS
from rewind.commands.parsing.quick_parser import quick_parse
from rewind.errors import ExitCode, UserError, environment_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    try:
        code = _run(argv, started)
    except SystemExit as stop:  # argparse ends '--help' this way
        if not isinstance(stop.code, int | None):
            raise
        code = stop.code or 0
    try:
        sys.stdout.flush()  # here, not at exit, where a closed pipe would end in exit code 120
    except BrokenPipeError:
        _detach_stdout()
        return code
    except (OSError, ValueError):  # standard output closed or gone: nothing more can be said
        pass
    return code


def _run(argv: Sequence[str] | None, started: float) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments and sys.stdin.isatty() and sys.stdout.isatty():
        arguments = ["tui"]  # plain 'rewind' on a terminal opens the TUI
    elif not arguments:  # elsewhere, the usage and the commands, as 'git' prints them
        from rewind.commands.parsing.parser import build_parser

        sys.stdout.write(build_parser().format_help())
        return 1
    if arguments == ["--version"]:
        return _print_version()
    try:
        options = quick_parse(arguments) or _parse_with_argparse(arguments)
        command = str(options.pop("command"))
        _change_directory(options.pop("directory"))
        if command not in QUIET_COMMANDS:
            _say_when_waiting()
        no_pager = bool(options.pop("no_pager", False))
        if command == "hook":  # the call's latency, in the store's stats, runs from main()
            options["started"] = started
        run = COMMANDS[command]()
        if command not in PAGED_COMMANDS:
            return int(run(**options))
        from rewind.commands.output.pager import paged

        with paged(no_pager):
            return int(run(**options))
    except UserError as error:
        print(f"rewind: {error}", file=sys.stderr)
        return int(error.exit_code)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:  # the reader went away (| head): done, as git is
        _detach_stdout()
        return int(ExitCode.OK)
    except OSError as error:
        problem = environment_problem(error)
        if problem is None:
            return _crashed(error, arguments)
        print(f"rewind: {problem}", file=sys.stderr)
        return int(ExitCode.USER_ERROR)
    except UnicodeDecodeError as error:
        name = _file_being_read(error)
        if name is None:
            return _crashed(error, arguments)
        print(
            f"rewind: {name} is not UTF-8 text ({error.reason} at byte {error.start}); "
            "repair it or move it out of the way, then run the command again.",
            file=sys.stderr,
        )
        return int(ExitCode.USER_ERROR)
    except Exception as error:
        return _crashed(error, arguments)


def _detach_stdout() -> None:
    """Points standard output at the null device once its reader has gone: what is still
    buffered can never be written, and Python's flush at exit must not fail on it."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _print_version() -> int:
    """``rewind --version``, answered before any parser or command is imported (argparse knows
    the option too, for ``--help`` and for ``-C DIR --version``)."""
    from rewind._version import __version__

    print(f"rewind {__version__}")
    return int(ExitCode.OK)


def _crashed(error: Exception, arguments: list[str]) -> int:
    """A bug: keep the details, tell the person where they are."""
    path = _write_crash_log(arguments)
    print(f"rewind: unexpected error: {error!r}; details in {path}", file=sys.stderr)
    return int(ExitCode.CRASH)


def _file_being_read(error: BaseException) -> str | None:
    """The text file open where ``error`` was raised (the innermost one), if any: a file
    someone damaged (a store's packed-refs) is the person's to repair, not a bug."""
    import io

    name = None
    trace = error.__traceback__
    while trace is not None:
        for value in trace.tb_frame.f_locals.values():
            if isinstance(value, io.TextIOWrapper) and isinstance(value.name, str | bytes):
                name = os.fsdecode(value.name)
        trace = trace.tb_next
    return name


# Commands whose output goes through a pager on a terminal (rewind.commands.output.pager).
PAGED_COMMANDS = frozenset({"log", "show", "diff", "history", "blame", "help"})
# Commands that never print while they wait for the store: agents' hooks (their output belongs
# to the agent) and the watcher (it waits between its own batches).
QUIET_COMMANDS = frozenset({"hook", "watch", "tui"})
# How long a person's command waits for the store lock at most (docs/cli.md), and after how long
# it says what it is waiting for.
LOCK_WAIT_LIMIT = 120.0
LOCK_WAIT_NOTICE = 1.0


def _say_when_waiting() -> None:
    from rewind.store.repository import StoreLock

    try:
        limit = float(os.environ.get("REWIND_LOCK_WAIT", "") or LOCK_WAIT_LIMIT)
    except ValueError:
        limit = LOCK_WAIT_LIMIT
    StoreLock.default_timeout = limit
    StoreLock.notify_after = LOCK_WAIT_NOTICE


def _change_directory(directory: object) -> None:
    """``-C DIR``: like git, run as if started in DIR (relative paths included)."""
    if directory is None:
        return
    try:
        os.chdir(str(directory))
    except OSError as error:
        raise UserError(
            f"{directory} is not a directory ({error.strerror}); give -C one that exists."
        ) from None


def _parse_with_argparse(arguments: list[str]) -> dict[str, object]:
    """The options of ``arguments``: through the grammar of the one command they name, and,
    should that not parse them as that command, through the whole grammar (whose answer,
    an error included, is then the one given). In 'rewind resume TURN -- ARGS', ARGS are
    the agent's client's, never rewind's options."""
    named = _command_word(arguments)
    passed_on = None
    if named == "resume":
        at = arguments.index("--") if "--" in arguments else len(arguments)
        arguments, passed_on = arguments[:at], arguments[at + 1 :]
    options = _parsed(arguments, named)
    if passed_on is not None:
        options["client_args"] = passed_on
    return options


def _parsed(arguments: list[str], named: str | None) -> dict[str, object]:
    from rewind.commands.parsing.parser import build_parser

    if named is not None:
        try:
            options = vars(build_parser(only=named).parse_args(arguments))
        except UserError:
            pass
        else:
            if options.get("command") == named:
                return options
    return vars(build_parser().parse_args(arguments))


def _command_word(arguments: list[str]) -> str | None:
    """The command ``arguments`` name: their first word after the options that come before a
    command (``-C DIR`` takes a value, as does an abbreviation of ``--root``)."""
    words = iter(arguments)
    for word in words:
        if word == "-C" or (len(word) > 2 and "--root".startswith(word)):
            next(words, None)
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word
    return None


def _write_crash_log(arguments: list[str]) -> str:
    import traceback

    from rewind.store.home import rewind_home

    path = os.path.join(rewind_home(), "crash.log")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # Arguments and messages may hold bytes that are not UTF-8: write them escaped.
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(f"--- rewind {' '.join(arguments)}\n{traceback.format_exc()}\n")
    except OSError as error:
        return f"(the log could not be written: {error.strerror})"
    return path
