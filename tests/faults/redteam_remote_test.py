"""A red-team pass over the remotes (issue 14): each test shows a way that push, fetch, apply,
extract or the automatic backup could lose data, write where it must not, or send what must stay
on the machine, and that it no longer does.

- a fetched session is portable hostile input: a name that is ``.git`` on macOS or Windows
  (``.GIT``, ``.git.``, ``git~1``, ``.g<U+200C>it``), or two paths that are one file there
  (``Link`` and ``link/x``, NFC and NFD), must be refused on every system, as git itself does
  (``core.protectNTFS``, ``core.protectHFS``): a reviewer on a Mac must not get ``.git/hooks``
  written by an apply;
- what is private is decided by the sharing policy at the time of the push: a pattern added to
  ``[remote] exclude`` must hold for every later push, to any remote, not only for entries
  recorded after it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from rewind.history.remote import backup
from rewind.history.restoring.opening import open_current_store
from tests.conftest import error_line, ok, snapshot
from tests.support.git import git
from tests.support.two_machines import (
    REMOTE,
    TwoMachines,
    craft_session,
    everything_under,
    state,
    two_machines,
)

LINES = b"one\ntwo\n"
HOOK = b"#!/bin/sh\necho pwned\n"


def _hostile(project: Path, tmp_path: Path) -> TwoMachines:
    machines = two_machines(project, tmp_path, {"a.txt": LINES})
    machines.a.turn("s1", "one", ["a.txt"], lambda: (project / "a.txt").write_bytes(b"x\n"))
    machines.a.ok("push", "--all")
    return machines


def _refused_everywhere(machines: TwoMachines, tmp_path: Path, session: str) -> None:
    """apply (all or nothing, and --skip-conflicts) and extract refuse the whole session, and
    nothing is written."""
    b = machines.b.root
    before = snapshot(b)
    for arguments in (
        ["apply", "--remote", REMOTE, session, "1"],
        ["apply", "--remote", REMOTE, session, "1", "--skip-conflicts"],
    ):
        line = error_line(machines.b.run(*arguments))
        assert "nothing was written" in line, line
    target = tmp_path / f"x-{session}"
    line = error_line(
        machines.b.run("extract", "--remote", REMOTE, "--session", session, "1", str(target))
    )
    assert "nothing was written" in line, line
    assert snapshot(b) == before
    assert not target.exists() or everything_under(target) == set()


# names that are .git on another file system ---------------------------------------------------

GIT_ALIASES = [
    ".git./hooks/pre-commit",  # Windows drops trailing dots
    ".git /hooks/pre-commit",  # and trailing spaces
    "git~1/hooks/pre-commit",  # the 8.3 short name of .git
    ".g\u200cit/hooks/pre-commit",  # HFS+ ignores some code points (ZWNJ here)
    ".git\ufeff/hooks/pre-commit",  # the byte order mark, likewise
    "sub/.GIT/config",
]


@pytest.mark.parametrize("index", range(len(GIT_ALIASES)))
def test_a_name_that_is_git_on_windows_or_macos_is_refused(
    project: Path, tmp_path: Path, index: int
) -> None:
    machines = _hostile(project, tmp_path)
    remote = machines.remote
    path = GIT_ALIASES[index]
    craft_session(
        remote,
        "evil",
        "alias",
        [(path, state(remote, "absent"), state(remote, "file", HOOK, 0o755))],
    )
    machines.b.ok("fetch", REMOTE)
    _refused_everywhere(machines, tmp_path, "alias")


# two paths that are one file on a case-insensitive or normalising file system ------------------


@pytest.mark.parametrize(
    ("link", "below"),
    [
        ("Link", "link/hooks/pre-commit"),  # macOS and Windows: one name
        ("caf\u00e9", "cafe\u0301/hooks/pre-commit"),  # macOS: NFC and NFD are one name
    ],
)
def test_a_path_below_a_symlink_spelled_differently_is_refused(
    project: Path, tmp_path: Path, link: str, below: str
) -> None:
    """The symlink points at .git: on a Mac, writing ``link/hooks/pre-commit`` after ``Link``
    would go through it into .git/hooks (the root's real path is inside the project, so the
    write-time check lets it through)."""
    machines = _hostile(project, tmp_path)
    remote = machines.remote
    craft_session(
        remote,
        "evil",
        "folded",
        [
            (link, state(remote, "absent"), state(remote, "link", b".git")),
            (below, state(remote, "absent"), state(remote, "file", HOOK, 0o755)),
        ],
    )
    machines.b.ok("fetch", REMOTE)
    _refused_everywhere(machines, tmp_path, "folded")


# privacy: the sharing policy at the time of the push ------------------------------------------


def _objects_holding(remote: Path, content: bytes) -> list[str]:
    """The blobs of ``remote`` whose content is ``content``."""
    listed = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch-check"],
        cwd=remote,
        capture_output=True,
        check=True,
    ).stdout.decode()
    found = []
    for line in listed.splitlines():
        oid, kind, _ = line.split()
        if (
            kind == "blob"
            and git("cat-file", "blob", oid, cwd=remote).strip().encode() + b"\n" == content
        ):
            found.append(oid)
    return found


def test_a_file_excluded_after_a_push_never_reaches_a_new_remote(
    project: Path, tmp_path: Path
) -> None:
    """``secrets.yaml`` was pushed to a private backup; once it is in ``[remote] exclude``, a
    push to another remote must hold its contents back (the record of which commit was sent as
    which must not carry the old policy over)."""
    secret = b"token: hunter2-before\n"
    later = b"token: hunter2-after\n"
    machines = two_machines(project, tmp_path, {"secrets.yaml": b"token: none\n"})
    a = machines.a
    a.turn("s1", "one", ["secrets.yaml"], lambda: (project / "secrets.yaml").write_bytes(secret))
    a.ok("push", "--all")
    assert _objects_holding(machines.remote, secret)  # it was not private then
    (project / "rewind.toml").write_text('[remote]\nexclude = ["secrets.yaml"]\n')
    a.turn("s1", "two", ["secrets.yaml"], lambda: (project / "secrets.yaml").write_bytes(later))
    team = tmp_path / "team.git"
    git("init", "-q", "--bare", str(team), cwd=tmp_path)
    a.ok("remote", "add", "team", str(team))
    dry = a.ok("push", "team", "--all", "--dry-run").stdout
    assert "not shared: matches secrets.yaml" in dry, dry
    a.ok("push", "team", "--all")
    assert _objects_holding(team, later) == []
    assert _objects_holding(team, secret) == []
    # and the backup, pushed to again, is cut the same way: its refs no longer reach it
    a.ok("push", REMOTE, "--all")
    reachable = git("rev-list", "--objects", "--all", cwd=machines.remote)
    assert not any(oid in reachable for oid in _objects_holding(machines.remote, secret))


# the automatic backup: a stalled remote ---------------------------------------------------------


def test_a_stalled_remote_does_not_hold_the_backup_pusher_forever(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ssh remote that connects and then never answers (here: an ssh that sleeps) used to
    keep ``rewind push --background`` waiting for ever, holding backup.lock, so that no later
    turn was ever backed up. The push now gives up after its timeout, with git and everything
    git started, and says so in backup.json."""
    (project / "a.txt").write_text("one\n")
    git("add", ".", cwd=project)
    git("commit", "-qm", "start", cwd=project)
    pids = tmp_path / "ssh-pids"
    stalled_ssh = tmp_path / "stalled-ssh"
    stalled_ssh.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 600\n")
    stalled_ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(stalled_ssh))
    ok("remote", "add", "backup", "ssh://git@stalled.invalid/sessions.git")
    ok("begin", "--session", "s", "--prompt", "p")
    ok("track", "--session", "s", "a.txt")
    (project / "a.txt").write_text("two\n")
    ok("end", "--session", "s")
    monkeypatch.setattr(backup, "PUSH_TIMEOUT_SECONDS", 3.0, raising=False)
    store = open_current_store()
    outcome: list[bool] = []
    worker = threading.Thread(target=lambda: outcome.append(backup.backup_once(store, "backup")))
    worker.start()
    worker.join(60)
    try:
        assert outcome == [False], "the backup push is still waiting for the stalled remote"
        state = backup.backup_state(store)
        assert state is not None and "gave up after 3 s" in state.error, state
        assert [pid for pid in _ssh_pids(pids) if _alive(pid)] == []  # ended with git
    finally:
        for pid in _ssh_pids(pids):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        worker.join(60)


def _ssh_pids(listed: Path) -> list[int]:
    return [int(pid) for pid in listed.read_text().split()] if listed.exists() else []


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs a second from now (a killed process may wait to be reaped)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return False
        except FileNotFoundError:
            return False
        time.sleep(0.1)
    return True


# a damaged entry ----------------------------------------------------------------------------------


def test_a_damaged_entry_sends_no_content(project: Path, tmp_path: Path) -> None:
    """An entry whose record cannot be read holds blobs whose paths are unknown, so whether
    they are private is unknown: none of them may leave; the history still goes, the entry
    read as damaged on the other side."""
    secret = b"PASSWORD=never-leaves-7f3a\n"
    machines = two_machines(project, tmp_path, {"notes.txt": b"none\n", "other.txt": b"o\n"})
    a = machines.a
    a.turn("s1", "one", ["notes.txt"], lambda: (project / "notes.txt").write_bytes(secret))
    a.turn("s1", "two", ["other.txt"], lambda: (project / "other.txt").write_bytes(b"p\n"))
    store = open_current_store()
    ref = "refs/rewind/sessions/s1"
    second = store.read_ref(ref)
    assert second is not None
    second_tree, first = store.reader.read_commit(second)
    assert first is not None
    first_tree, root = store.reader.read_commit(first)
    damaged_tree = [
        (
            name,
            mode,
            store.writer.write_blob(b"{ this is not json") if name == b"turn.json" else oid,
        )
        for name, mode, oid in store.reader.read_tree(first_tree)
    ]
    damaged = store.writer.write_commit(
        store.writer.write_tree(damaged_tree), root, "turn 1: damaged", time.time()
    )
    store.write_ref(
        ref, store.writer.write_commit(second_tree, damaged, "turn 2: two", time.time())
    )
    assert _objects_holding(Path(store.git_dir), secret)  # still in the local store
    a.ok("push", "--all")
    assert _objects_holding(machines.remote, secret) == []
    machines.b.ok("fetch")
    log = machines.b.ok("log", "--remote", REMOTE, "--session", "s1").stdout
    assert "damaged" in log and "two" in log, log
