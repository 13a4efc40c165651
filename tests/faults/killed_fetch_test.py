"""Fetches killed half-way (issue 20): a real ``rewind fetch`` from a slow remote (``git
http-backend`` sending a 3 MB pack in small pauses) is interrupted or killed while git writes
its temporary pack into the mirror.

- Ctrl-C ends git with rewind, and removes what it wrote, at once;
- kill -9 of rewind and git leaves git's temporary pack: the next fetch removes it instead of
  counting it against ``max_fetch_mb`` (which refused that fetch);
- kill -9 of rewind alone: its git goes on, and the next fetch leaves it alone until it ends;
- two fetches at once: the second is refused in one line, and the first goes on untouched;
- gc collects a mirror: the objects of a session the remote deleted are gone from it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import error_line
from tests.faults.hostile_remote_test import PROJECT, Forge, change, git_blob_id, record
from tests.support.git import git
from tests.support.remote_servers import (
    Machine,
    bare_repository,
    http_backend,
    new_project,
    sh,
)

BIG = 3 << 20  # the size of the content of the session 'big': incompressible
PAUSE = 0.04  # seconds between two chunks of 64 KiB: about 2 s for the whole pack


class Remote:
    """A slow remote over HTTP, with an honest small session and a big one."""

    def __init__(self, base: Path, url: str) -> None:
        self.forge = Forge(base / "remote.git")
        self.url = url
        small = record("small", change("a.txt"))
        self.forge.session("ci", "small", small, **{"0.after": b"evil\n"})
        content = os.urandom(BIG)
        self.blob = git_blob_id(content)
        big = record("big", change("b.bin", content=content))
        self.forge.session("ci", "big", big, **{"0.after": content})


@pytest.fixture
def remote(tmp_path: Path) -> Iterator[Remote]:
    base = tmp_path / "served"
    bare_repository(base / "remote.git")
    with http_backend(base, pause=PAUSE) as url:
        yield Remote(base, url)


@pytest.fixture
def reviewer(tmp_path: Path, remote: Remote) -> Machine:
    root = new_project(tmp_path / "reviewer" / "calc")
    (root / "rewind.toml").write_text(f'project_id = "{PROJECT}"\n[remote]\nmax_fetch_mb = 4\n')
    sh(root, "git", "add", "rewind.toml")
    sh(root, "git", "commit", "-q", "-m", "id")
    machine = Machine(root, tmp_path / "reviewer-home", "reviewer")
    machine.ok("remote", "add", "backup", remote.url)
    return machine


def _mirror(machine: Machine) -> Path:
    return machine.store() / "rewind" / "remotes" / "backup"


def _temporary(machine: Machine) -> dict[str, int]:
    """git's temporary files in the mirror's objects/pack, with their sizes."""
    pack_dir = _mirror(machine) / "objects" / "pack"
    found = {}
    for name in os.listdir(pack_dir) if pack_dir.exists() else ():
        if name.startswith(("tmp_", ".tmp-")):
            try:
                found[name] = (pack_dir / name).stat().st_size
            except FileNotFoundError:
                pass
    return found


def _start_fetch(machine: Machine) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rewind", "fetch"],
        cwd=machine.root,
        env={**os.environ, **machine.env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal: a suite started in the background inherits SIGINT ignored
        # (as every background job of a shell does), and so would rewind.
        preexec_fn=_interruptible,
    )


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _mid_transfer(machine: Machine, fetching: subprocess.Popen[str]) -> int:
    """Waits until git has written 1 MiB of the pack; the pid of the git the fetch started."""
    deadline = time.monotonic() + 30
    while sum(_temporary(machine).values()) < 1 << 20:
        assert fetching.poll() is None, fetching.communicate()
        assert time.monotonic() < deadline, "the pack never grew"
        time.sleep(0.02)
    children = _children(fetching.pid)
    assert len(children) == 1, children
    return children[0]


def _children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except FileNotFoundError:
                continue
            if int(fields[1]) == pid:
                found.append(int(name))
    return found


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended (or is a zombie) within five seconds."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def _refs(machine: Machine) -> str:
    return git("for-each-ref", "--format=%(refname)", git_dir=_mirror(machine))


def test_a_fetch_killed_mid_transfer_is_cleared_by_the_next_one(reviewer: Machine) -> None:
    fetching = _start_fetch(reviewer)
    git_pid = _mid_transfer(reviewer, fetching)
    fetching.kill()  # kill -9 of rewind, and of git: nothing of theirs cleans up
    os.killpg(git_pid, signal.SIGKILL)
    fetching.communicate()
    assert _gone(git_pid)
    left = _temporary(reviewer)
    assert sum(left.values()) >= 1 << 20, left  # what they wrote is there
    # The pack is 3 MB, under max_fetch_mb = 4, but with what was left it would be more.
    fetched = reviewer.ok("fetch")
    assert "2 session(s)" in fetched, fetched
    assert _temporary(reviewer) == {}
    assert "sessions/big" in _refs(reviewer)
    assert not (_mirror(reviewer) / "rewind" / "fetching").exists()


def test_a_git_that_outlived_its_killed_fetch_is_left_alone_until_it_ends(
    reviewer: Machine,
) -> None:
    """kill -9 of rewind alone: its git (a session of its own) goes on writing. The next fetch
    must not remove what it writes; once it has ended, fetching works again."""
    fetching = _start_fetch(reviewer)
    git_pid = _mid_transfer(reviewer, fetching)
    fetching.kill()
    fetching.communicate()
    line = error_line(reviewer.run("fetch"))
    assert f"still runs (pid {git_pid})" in line, line
    assert _gone(git_pid)
    assert "2 session(s)" in reviewer.ok("fetch")
    assert _temporary(reviewer) == {}


def test_ctrl_c_ends_git_with_the_fetch_and_removes_what_it_wrote(reviewer: Machine) -> None:
    fetching = _start_fetch(reviewer)
    git_pid = _mid_transfer(reviewer, fetching)
    fetching.send_signal(signal.SIGINT)  # git has a session of its own: rewind must end it
    fetching.communicate(timeout=30)
    assert fetching.returncode == 130
    assert _gone(git_pid), "git went on fetching, unwatched, after rewind was interrupted"
    assert _temporary(reviewer) == {}
    assert "sessions/big" not in _refs(reviewer)
    assert not (_mirror(reviewer) / "rewind" / "fetching").exists()


def test_a_second_fetch_at_once_is_refused_and_leaves_the_first_alone(
    reviewer: Machine,
) -> None:
    fetching = _start_fetch(reviewer)
    _mid_transfer(reviewer, fetching)
    line = error_line(reviewer.run("fetch"))
    assert "another 'rewind fetch' from backup is running" in line, line
    out, err = fetching.communicate(timeout=60)
    assert fetching.returncode == 0, err
    assert "2 session(s)" in out
    assert _temporary(reviewer) == {}


def test_gc_collects_what_the_remote_deleted_from_the_mirror(
    reviewer: Machine, remote: Remote
) -> None:
    reviewer.ok("remote", "remove", "backup")  # the same remote, without the slow server
    reviewer.ok("remote", "add", "backup", str(remote.forge.bare))
    reviewer.ok("fetch")
    mirror = _mirror(reviewer)
    git("cat-file", "-e", remote.blob, git_dir=mirror)
    git("update-ref", "-d", f"refs/rewind/{PROJECT}/ci/sessions/big", git_dir=remote.forge.bare)
    assert "0 new or updated" in reviewer.ok("fetch")
    assert "sessions/big" not in _refs(reviewer)
    done = reviewer.ok("gc")
    assert "collected what was fetched from backup" in done, done
    missing = subprocess.run(
        ["git", f"--git-dir={mirror}", "cat-file", "-e", remote.blob], capture_output=True
    )
    assert missing.returncode != 0, "the deleted session's content is still in the mirror"
    shown = reviewer.ok("--no-pager", "log", "--remote", "backup", "--session", "small")
    assert "a.txt" in shown
    assert "collected" not in reviewer.ok("gc")  # nothing fetched since: left alone
