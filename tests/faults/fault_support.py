"""Shared by the kill -9 and concurrency faults: the long mode, seeds, real processes, and the
checks every store must pass afterwards.

``REWIND_FAULTS=long`` (``make faults``) selects the long mode; the default is a sample small
enough for every ``make test``. ``REWIND_FAULTS_SEED=N`` replays a failing run.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import store_dir

LONG = os.environ.get("REWIND_FAULTS", "") == "long"
TEMPORARY_MARK = b".rewind-"

Snapshot = dict[str, bytes]


def seeded_rng(name: str) -> tuple[random.Random, int]:
    """A random generator and its seed (``REWIND_FAULTS_SEED`` to replay one), printed."""
    given = os.environ.get("REWIND_FAULTS_SEED", "")
    seed = int(given) if given else int.from_bytes(os.urandom(4), "big")
    print(f"{name}: seed {seed} (replay with REWIND_FAULTS_SEED={seed})")
    return random.Random(seed), seed


def rewind_argv(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "rewind", *arguments]


def hook_argv() -> list[str]:
    return rewind_argv("hook", "claude-code")


def run(argv: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def must(argv: list[str], cwd: Path, stdin: str | None = None, why: str = "") -> str:
    """Runs a process that must succeed; returns its standard output."""
    done = run(argv, cwd, stdin)
    assert done.returncode == 0, f"{why}{argv[3:]} -> {done.returncode}: {done.stderr}"
    return done.stdout


def hook(payload: dict[str, object], cwd: Path, why: str = "") -> None:
    """One Claude Code event through ``rewind hook``, which must exit 0 with nothing on standard
    error. The fault suite's own, not tests.conftest.hook: it runs through :func:`run`, as every
    process here does, so it has the suite's two minutes (the long mode starts hundreds of hooks
    at once, on a loaded machine) and its failure names the stream and step (``why``) among the
    hundreds that ran."""
    done = run(hook_argv(), cwd, json.dumps(payload))
    assert (done.returncode, done.stderr) == (0, ""), f"{why}hook: {done.stderr}"


class Killed:
    """The outcome of a process killed after ``delay`` seconds (or that ended before)."""

    def __init__(self, killed: bool, returncode: int, stderr: str) -> None:
        self.killed = killed
        self.returncode = returncode
        self.stderr = stderr


def run_and_kill(argv: list[str], cwd: Path, delay: float, stdin: str | None = None) -> Killed:
    """Starts ``argv``, sends it SIGKILL after ``delay`` seconds unless it ended already."""
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None
    if stdin is not None:
        try:
            process.stdin.write(stdin)
        except BrokenPipeError:
            pass
    try:
        process.stdin.close()
    except BrokenPipeError:
        pass
    time.sleep(delay)
    killed = process.poll() is None
    if killed:
        process.kill()  # SIGKILL
    assert process.stderr is not None
    stderr = process.stderr.read()
    process.wait(timeout=60)
    return Killed(killed and process.returncode == -9, process.returncode, stderr)


def timed(argv: list[str], cwd: Path, stdin: str | None = None, why: str = "") -> float:
    """Runs a process that must succeed; returns how long it took."""
    started = time.monotonic()
    must(argv, cwd, stdin, why)
    return time.monotonic() - started


def snapshot(root: Path, names: list[str]) -> Snapshot:
    """The content of each of ``names`` under ``root`` that exists."""
    found = {}
    for name in names:
        try:
            found[name] = (root / name).read_bytes()
        except FileNotFoundError:
            pass
    return found


def difference(expected: Snapshot, found: Snapshot) -> list[str]:
    """The names whose content (or existence) differs, for failure messages."""
    return sorted(
        name for name in expected.keys() | found.keys() if expected.get(name) != found.get(name)
    )


def temporary_files(root: Path) -> list[str]:
    """Files a restore writes under a temporary name (``.NAME.rewind-PID-N.tmp``) in the tree."""
    left = []
    for path in files_below(os.fsencode(root)):
        name = os.path.basename(path)
        if name.startswith(b".") and TEMPORARY_MARK in name and name.endswith(b".tmp"):
            left.append(os.fsdecode(path))
    return left


def files_below(top: bytes) -> list[bytes]:
    """Every non-folder below ``top`` but ``.git``, at any depth (os.walk recurses once per
    folder, so a tree 1,100 folders deep is walked here with a list instead)."""
    found = []
    waiting = [top]
    while waiting:
        folder = waiting.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if not (folder == top and entry.name == b".git"):
                        waiting.append(entry.path)
                else:
                    found.append(entry.path)
    return found


def make_deep(root: Path, depth: int, data: bytes, folder: bytes = b"a") -> bytes:
    """Writes ``a/a/.../a/f.txt`` (``depth`` folders) below ``root`` one level at a time (a
    path longer than the system takes can exist that way too); returns the relative path."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            try:
                os.mkdir(folder, dir_fd=fd)
            except FileExistsError:
                pass
            below = os.open(folder, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
        out = os.open(b"f.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=fd)
        os.write(out, data)
        os.close(out)
    finally:
        os.close(fd)
    return b"/".join([folder] * depth + [b"f.txt"])


def remove_tree(path: Path) -> None:
    """``rm -rf``: pytest's own clean-up (shutil.rmtree) recurses once per folder, and fails on
    the deep trees some faults make."""
    subprocess.run(["rm", "-rf", str(path)], check=True, timeout=120)


def check_store(project: Path, why: str = "") -> None:
    """``rewind check`` passes and git's fsck finds no error (dangling objects are fine)."""
    done = run(rewind_argv("check"), project)
    assert done.returncode == 0, f"{why}rewind check: {done.stdout}{done.stderr}"
    fsck = subprocess.run(
        ["git", f"--git-dir={store_dir(project)}", "fsck", "--no-progress", "--strict"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    complaints = [
        line
        for line in (fsck.stdout + fsck.stderr).splitlines()
        if not line.startswith(("dangling ", "notice: "))
    ]
    assert fsck.returncode == 0 and not complaints, f"{why}git fsck: {fsck.stdout}{fsck.stderr}"


def store_log(project: Path) -> str:
    path = store_dir(project) / "rewind" / "rewind.log"
    return path.read_text() if path.exists() else ""


# What the store's log says when a record had to wait too long or could not be taken.
GIVE_UPS = ("gave up", "busy", "not recorded", "kept in", "failed", "set aside", "bug in rewind")


def give_ups(project: Path) -> list[str]:
    return [line for line in store_log(project).splitlines() if any(g in line for g in GIVE_UPS)]
