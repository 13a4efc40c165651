"""Two machines sharing sessions through a bare git remote, as real processes: machine A records
in the ``project`` fixture's work tree and pushes; machine B, a clone of the project at another
path with a rewind home of its own, fetches. Also: a session written straight into the remote
with git's plumbing, to play a hostile remote."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rewind.history.filestate import fingerprint
from tests.conftest import RewindResult, ok, run_rewind
from tests.support.git import git

REMOTE = "backup"


class Machine:
    """One machine: a work tree, and the environment (rewind home, machine id) it runs in."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.env = env

    def ok(self, *args: str) -> RewindResult:
        return ok(*args, cwd=self.root, env=self.env)

    def run(self, *args: str) -> RewindResult:
        return run_rewind(*args, cwd=self.root, env=self.env)

    def log(self, *args: str) -> list[dict[str, Any]]:
        """``rewind log --json`` as data."""
        found: list[dict[str, Any]] = json.loads(self.ok("log", "--json", *args).stdout)
        return found

    def turn(self, session: str, prompt: str, paths: list[str], edit: Callable[[], object]) -> None:
        """One turn of ``session`` that changes ``paths`` with ``edit``."""
        self.ok("begin", "--session", session, "--prompt", prompt)
        self.ok("track", "--session", session, *paths)
        edit()
        self.ok("end", "--session", session)


class TwoMachines:
    def __init__(self, a: Machine, b: Machine, remote: Path) -> None:
        self.a = a
        self.b = b
        self.remote = remote

    def push_and_fetch(self) -> None:
        self.a.ok("push", "--all")
        self.b.ok("fetch", REMOTE)


def two_machines(project: Path, tmp_path: Path, files: dict[str, bytes]) -> TwoMachines:
    """Machine A in ``project`` (``files`` committed), its clone on machine B, both with the
    remote ``backup`` added."""
    for name, data in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "start", cwd=project)
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    clone = tmp_path / "clone"
    git("clone", "-q", str(project), str(clone), cwd=tmp_path)
    home_b = tmp_path / "home-b"
    home_b.mkdir()
    a = Machine(project, {"REWIND_MACHINE": "laptop"})
    b = Machine(
        clone,
        {"REWIND_MACHINE": "desk", "HOME": str(home_b), "REWIND_HOME": str(home_b / "rh")},
    )
    a.ok("remote", "add", REMOTE, str(remote))
    b.ok("remote", "add", REMOTE, str(remote))
    return TwoMachines(a, b, remote)


def state(
    remote: Path, kind: str, data: bytes | None = None, mode: int = 0o644
) -> dict[str, object]:
    """A recorded state for a hand-made entry, its content (if any) written into ``remote``."""
    if data is None:
        return {"kind": kind}
    oid = git("hash-object", "-w", "--stdin", input=data, cwd=remote).strip()
    found: dict[str, object] = {
        "kind": kind,
        "oid": oid,
        "size": len(data),
        "xxh": fingerprint(data),
    }
    if kind == "file":
        found["mode"] = mode
    return found


def craft_session(
    remote: Path,
    machine: str,
    session: str,
    files: list[tuple[str, dict[str, object], dict[str, object]]],
) -> None:
    """Writes a one-turn session straight into ``remote`` (as a hostile remote could), under the
    project's namespace there: ``files`` are (path, before, after) as turn.json holds them."""
    refs = git("for-each-ref", "--format=%(refname)", "refs/rewind/", cwd=remote).splitlines()
    project = refs[0].split("/")[2]
    entry = {
        "format": 1,
        "session": session,
        "number": 1,
        "id": "abcdef012345",
        "kind": "turn",
        "prompt": "hostile",
        "agent": "evil",
        "started": 1.0,
        "ended": 2.0,
        "labels": [],
        "target": None,
        "files": [
            {"path": path, "before": before, "after": after, "at": 1.0}
            for path, before, after in files
        ],
    }
    contents = []
    for index, (_, before, after) in enumerate(files):
        for side, recorded in (("before", before), ("after", after)):
            if "oid" in recorded:
                contents.append(f"100644 blob {recorded['oid']}\t{index}.{side}")
    folder = git(
        "mktree", input="".join(line + "\n" for line in contents).encode(), cwd=remote
    ).strip()
    record = git(
        "hash-object", "-w", "--stdin", input=json.dumps(entry).encode(), cwd=remote
    ).strip()
    top = f"040000 tree {folder}\tfiles\n100644 blob {record}\tturn.json\n"
    tree = git("mktree", input=top.encode(), cwd=remote).strip()
    commit = git(
        "commit-tree", tree, "-m", f"turn 1: hostile\n\nsession: {session}\n", cwd=remote
    ).strip()
    git("update-ref", f"refs/rewind/{project}/{machine}/sessions/{session}", commit, cwd=remote)


def everything_under(directory: Path) -> set[str]:
    """Every path below ``directory`` (symlinks not followed)."""
    found = set()
    for folder, directories, names in os.walk(directory):
        for name in directories + names:
            found.add(os.path.relpath(os.path.join(folder, name), directory))
    return found
