"""``rewind ARGS`` as a process of its own, forked from one that has already imported rewind.

Most of a test's time went into starting interpreters: each ``python -m rewind CMD`` imports
rewind, argparse and often pygit2 again (about 150 ms of CPU, a test starts several). Here each
test worker starts one **server** process (``python -c "...serve()"``) that imports them once,
then, for each command, forks: the child is a separate process, with its own working
directory, environment, standard input and output files, that runs ``rewind.cli.main`` and
exits with its code, as ``python -m rewind`` does (atexit handlers and non-daemon threads
included). Nothing a command does can reach the next one: each starts from the server's
state, in which nothing has run but imports.

The server is single-threaded and holds no repository, database or file open when it forks.
What its imports read of the environment, the child reads again from its own: the time zone,
and libgit2's paths of the person's git configuration (read when pygit2 is imported;
``tests/fresh_lane_test.py`` runs a forked command in each of two homes). rewind's modules keep
no state of their own from when they were imported (a hook's latency runs from its command's
start, not from its process's). ``REWIND_TEST_FRESH=1`` runs every command in a fresh
interpreter instead, as the fresh lane's tests do (tests/support/fresh_lane.py).

Hooks (``tests.conftest.hook``) always run as fresh interpreters: their start-up cost and what
they import are part of what is tested.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

# What the server imports once: the command line and what most commands load.
PRELOADED = (
    "rewind.cli",
    "rewind.commands.parsing.parser",
    "rewind.commands.log",
    "rewind.commands.show",
    "rewind.commands.restore",
    "rewind.commands.status",
    "rewind.history.index.queries",
    "pygit2",
)
ROOT = Path(__file__).resolve().parents[2]


class ForkedRewind:
    """A server that forks one process per ``rewind`` command (see the module's doc)."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path[1:]])}
        self.server = subprocess.Popen(
            [sys.executable, "-c", "from tests.support.forked_rewind import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        self.scratch = tempfile.mkdtemp(prefix="rewind-forked-")

    def run(
        self, argv: list[str], cwd: str, env: dict[str, str], input: str | None, timeout: float
    ) -> tuple[int, str, str]:
        """Runs ``rewind ARGV``; its exit code, standard output and standard error."""
        assert self.server.stdin is not None and self.server.stdout is not None
        files = [os.path.join(self.scratch, name) for name in ("in", "out", "err")]
        with open(files[0], "w", encoding="utf-8") as handle:
            handle.write(input or "")
        request = {"argv": argv, "cwd": cwd, "env": env, "files": files, "timeout": timeout}
        self.server.stdin.write(json.dumps(request).encode() + b"\n")
        self.server.stdin.flush()
        answer = self.server.stdout.readline()
        if not answer:
            raise RuntimeError("the forking server of rewind commands ended")
        code = json.loads(answer)["code"]
        outputs = []
        for path in files[1:]:
            with open(path, encoding="utf-8", errors="replace", newline=None) as handle:
                outputs.append(handle.read())
        return code, outputs[0], outputs[1]

    def close(self) -> None:
        if self.server.stdin is not None:
            self.server.stdin.close()
        self.server.wait(timeout=10)


def serve() -> None:
    """The server: imports :data:`PRELOADED`, then forks a child per request line."""
    import importlib

    for name in PRELOADED:
        importlib.import_module(name)
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)  # never returns
        code = _wait(pid, float(request["timeout"]))
        answers.write(json.dumps({"code": code}).encode() + b"\n")
        answers.flush()


def _wait(pid: int, timeout: float) -> int:
    """The child's exit code, as subprocess gives it (-N for a signal); killed past
    ``timeout`` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.002)


def _child(request: dict[str, Any]) -> None:
    """In the forked child: becomes ``python -m rewind ARGV`` in its directory and
    environment, with its standard streams on the request's files; exits with its code."""
    import atexit
    import threading
    import time
    import traceback

    code = 1
    try:
        stdin, stdout, stderr = request["files"]
        for fd, path, flags in (
            (0, stdin, os.O_RDONLY),
            (1, stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            opened = os.open(path, flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        sys.stdin = _stream(0, "r")
        sys.stdout = _stream(1, "w")
        sys.stderr = _stream(2, "w", errors="backslashreplace")
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        _libgit2_reads_the_environment()
        argv = [str(word) for word in request["argv"]]
        sys.argv = [os.path.join(os.path.dirname(_rewind_file()), "__main__.py"), *argv]
        from rewind.cli import main

        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException:
            traceback.print_exc()
            code = 1
        threading._shutdown()  # type: ignore[attr-defined]  # as at a process's end
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    finally:
        os._exit(code)


def _libgit2_reads_the_environment() -> None:
    """What libgit2 read of the environment when the server imported pygit2, read again from
    the command's, as a fresh interpreter's import reads it: where the person's git
    configuration is (global, XDG, system) and the home ``~`` means in it (core.excludesFile,
    the ignore and attributes files). The one setting of the environment it keeps is where
    the TLS certificates are: rewind's libgit2 never goes to the network (git does)."""
    from pygit2.enums import ConfigLevel, Option
    from pygit2.options import option

    for level in (ConfigLevel.GLOBAL, ConfigLevel.XDG, ConfigLevel.SYSTEM, ConfigLevel.PROGRAMDATA):
        option(Option.SET_SEARCH_PATH, level, None)  # None: found again, as at the start
    option(Option.SET_HOMEDIR, None)


def _stream(fd: int, mode: str, errors: str = "strict") -> TextIO:
    """A text stream on ``fd`` as a fresh interpreter makes one for a file."""
    raw = io.FileIO(fd, mode, closefd=False)
    if mode == "r":
        return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors=errors)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors=errors)


def _rewind_file() -> str:
    import rewind

    return str(rewind.__file__)
