"""What git says is changed in a work tree, asked read-only.

Used before commands that can destroy uncommitted work (``git reset --hard``, ``git checkout --``,
``git clean``, ``git stash``...) and by the pre-commit safety net. ``--no-optional-locks`` keeps
``git status`` from refreshing (writing) the user's index: rewind never writes the user's
``.git``.
"""

from __future__ import annotations

import os
import time

from rewind.errors import UserError


def changed_paths(worktree: bytes) -> list[bytes]:
    """Every path git reports modified, staged, added, deleted, renamed (both names) or
    untracked and not ignored, relative to the top of ``worktree``'s repository."""
    environment = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    arguments = [
        b"git",
        b"-C",
        worktree,
        b"--no-optional-locks",
        b"status",
        b"--porcelain=v1",
        b"-z",
        b"--untracked-files=all",
        b"--ignore-submodules=all",
    ]
    try:
        code, output, errors = run_quietly(arguments, environment, timeout=60)
    except OSError as error:
        raise UserError(f"git status could not run in {os.fsdecode(worktree)} ({error}).") from None
    if code != 0:
        message = errors.decode("utf-8", "replace").strip().splitlines()
        raise UserError(
            f"git status failed in {os.fsdecode(worktree)}: {message[-1] if message else '?'}."
        )
    return parse_porcelain(output)


def run_quietly(
    arguments: list[bytes], environment: dict[str, str], timeout: float
) -> tuple[int, bytes, bytes]:
    """Runs a program with no standard input; returns its exit code, output and errors.

    What ``subprocess.run`` does, without importing ``subprocess``: on the hook path its
    ``locale``, ``re``, ``enum`` and ``signal`` imports would cost about 5 ms per call. A program
    still running after ``timeout`` seconds is killed (``TimeoutError``).
    """
    output_read, output_write = os.pipe()
    errors_read, errors_write = os.pipe()
    try:
        pid = os.posix_spawnp(
            arguments[0],
            arguments,
            environment,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, output_write, 1),
                (os.POSIX_SPAWN_DUP2, errors_write, 2),
            ],
        )
    except BaseException:
        os.close(output_read)
        os.close(errors_read)
        raise
    finally:
        os.close(output_write)
        os.close(errors_write)
    collected = _collect(pid, [output_read, errors_read], time.monotonic() + timeout)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), collected[output_read], collected[errors_read]


def _collect(pid: int, descriptors: list[int], deadline: float) -> dict[int, bytes]:
    """Everything written to ``descriptors`` until they close (each is closed here)."""
    import select

    chunks: dict[int, list[bytes]] = {descriptor: [] for descriptor in descriptors}
    poller = select.poll()
    for descriptor in descriptors:
        poller.register(descriptor, select.POLLIN)
    remaining = set(descriptors)
    try:
        while remaining:
            wait = deadline - time.monotonic()
            events = poller.poll(max(0, int(wait * 1000))) if wait > 0 else []
            if not events:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                raise TimeoutError(f"still running after the time allowed (pid {pid})")
            for descriptor, _ in events:
                data = os.read(descriptor, 65536)
                if data:
                    chunks[descriptor].append(data)
                else:
                    poller.unregister(descriptor)
                    remaining.discard(descriptor)
    finally:
        for descriptor in descriptors:
            os.close(descriptor)
    return {descriptor: b"".join(parts) for descriptor, parts in chunks.items()}


def parse_porcelain(output: bytes) -> list[bytes]:
    """Paths from ``git status --porcelain=v1 -z``: ``XY path\\0``, renames and copies
    followed by ``\\0`` and the original path."""
    paths: list[bytes] = []
    fields = output.split(b"\0")
    index = 0
    while index < len(fields):
        field = fields[index]
        index += 1
        if len(field) < 4:
            continue
        status, path = field[:2], field[3:]
        paths.append(path)
        if b"R" in status or b"C" in status:
            if index < len(fields) and fields[index]:
                paths.append(fields[index])
            index += 1
    return list(dict.fromkeys(paths))
