"""A remote crafted by hand to hurt whoever fetches from it (docs/remote.md, "Safety against a
hostile remote"): refs that name blobs and trees, refs of odd shapes, records that are not
JSON or hold the wrong types, paths that leave the project, terminal escapes in prompts and
paths, an object past ``max_fetch_mb``, objects whose contents do not match their ids.

Whatever the remote holds, fetching and reading must end in exit 0 or one line of error, never
a traceback, never a raw escape sequence on the terminal; and the local store's own refs and
objects, and the work tree, must be exactly as before.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import pytest

from tests.conftest import RewindResult, error_line, snapshot
from tests.support.git import git, git_bytes
from tests.support.remote_servers import Machine, bare_repository, new_project, sh

PROJECT = "calc"


class Forge:
    """Writes objects and refs straight into a bare repository, the way an attacker could."""

    def __init__(self, bare: Path) -> None:
        self.bare = bare

    def blob(self, data: bytes) -> str:
        return git("hash-object", "-w", "--stdin", input=data, git_dir=self.bare).strip()

    def tree(self, entries: dict[str, bytes]) -> str:
        """A tree of blobs (``files/NAME`` go into a ``files`` subtree)."""
        top = []
        files = []
        for name, data in entries.items():
            oid = self.blob(data)
            if name.startswith("files/"):
                files.append(f"100644 blob {oid}\t{name[len('files/') :]}\n")
            else:
                top.append(f"100644 blob {oid}\t{name}\n")
        if files:
            sub = git("mktree", input="".join(files).encode(), git_dir=self.bare).strip()
            top.append(f"040000 tree {sub}\tfiles\n")
        return git("mktree", input="".join(top).encode(), git_dir=self.bare).strip()

    def commit(self, tree: str, message: str = "turn 1: x", parent: str | None = None) -> str:
        extra = ["-p", parent] if parent else []
        return git("commit-tree", tree, *extra, "-m", message, git_dir=self.bare).strip()

    def ref(self, name: str, oid: str) -> None:
        git("update-ref", name, oid, git_dir=self.bare)

    def session(self, machine: str, leaf: str, record: object, **files: bytes) -> str:
        """A one-entry session whose turn.json is ``record`` (bytes as they are)."""
        data = record if isinstance(record, bytes) else json.dumps(record).encode()
        stored = {f"files/{name}": content for name, content in files.items()}
        commit = self.commit(self.tree({"turn.json": data, **stored}))
        self.ref(f"refs/rewind/{PROJECT}/{machine}/sessions/{leaf}", commit)
        return commit


def record(session: str, *files: dict[str, object], prompt: str = "x") -> dict[str, object]:
    return {
        "format": 1,
        "session": session,
        "number": 1,
        "id": "0123456789ab",
        "kind": "turn",
        "prompt": prompt,
        "agent": "",
        "started": 1796167173.0,
        "ended": 1796167174.0,
        "labels": [],
        "target": None,
        "files": list(files),
    }


def change(path: str, after: str = "0.after", content: bytes = b"evil\n") -> dict[str, object]:
    return {
        "path": path,
        "before": {"kind": "absent"},
        "after": {
            "kind": "file",
            "oid": git_blob_id(content),
            "mode": 0o644,
            "size": len(content),
        },
        "at": 1796167173.5,
    }


def git_blob_id(content: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    return bare_repository(tmp_path / "hostile.git")


@pytest.fixture
def forge(bare: Path) -> Forge:
    return Forge(bare)


@pytest.fixture
def victim(tmp_path: Path, bare: Path) -> Machine:
    return victim_machine(tmp_path, bare)


def victim_machine(tmp_path: Path, bare: Path) -> Machine:
    """A machine with a session of its own, the hostile remote added as ``backup``."""
    root = new_project(tmp_path / "victim" / "calc")
    (root / "rewind.toml").write_text(f'project_id = "{PROJECT}"\n')
    sh(root, "git", "add", "rewind.toml")
    sh(root, "git", "commit", "-q", "-m", "id")
    machine = Machine(root, tmp_path / "victim-home", "victim")
    machine.turn("own", "my own work", {"mine.txt": b"mine\n"})
    machine.ok("remote", "add", "backup", str(bare))
    return machine


LocalState = tuple[bytes, list[tuple[str, int]], dict[bytes, tuple[str, bytes, int]]]


def local_state(machine: Machine) -> LocalState:
    """The store's own refs and objects (the mirror aside), and the work tree."""
    store = machine.store()
    refs = git_bytes("for-each-ref", "--format=%(refname) %(objectname)", git_dir=store)
    objects = []
    for top, _, names in os.walk(store / "objects"):
        for name in names:
            path = Path(top, name)
            objects.append((str(path.relative_to(store)), path.stat().st_size))
    return refs, sorted(objects), snapshot(machine.root)


def tolerable(result: RewindResult) -> None:
    """Exit 0, or one line saying what is wrong: no traceback, no raw escape sequence."""
    assert "Traceback" not in result.stderr, result
    assert "\x1b" not in result.stdout + result.stderr, result
    assert "\x07" not in result.stdout + result.stderr, result
    if result.returncode != 0:
        error_line(result)


def read_everything(machine: Machine) -> None:
    """Every reading command on every fetched session, each tolerable."""
    tolerable(machine.run("--no-pager", "sessions", "--remote"))
    listed = machine.run("sessions", "--remote", "--json")
    tolerable(listed)
    names = [f"{s['machine']}/{s['session']}" for s in json.loads(listed.stdout or "[]")]
    for name in names:
        for command in (["log"], ["show", "1"], ["diff", "1"]):
            for as_json in ([], ["--json"]):
                tolerable(
                    machine.run(
                        "--no-pager", *command, "--remote", "backup", "--session", name, *as_json
                    )
                )


def fetch_and_read(machine: Machine) -> RewindResult:
    before = local_state(machine)
    fetched = machine.run("fetch")
    tolerable(fetched)
    read_everything(machine)
    assert local_state(machine) == before
    return fetched


def honest_session(forge: Forge, machine: str = "honest") -> None:
    forge.session(machine, "fine", record("fine", change("ok.txt")), **{"0.after": b"evil\n"})


def test_refs_that_name_a_blob_or_a_tree_are_passed_over(forge: Forge, victim: Machine) -> None:
    honest_session(forge)
    blob = forge.blob(b"not a commit\n")
    tree = forge.tree({"turn.json": json.dumps(record("t")).encode()})
    forge.ref(f"refs/rewind/{PROJECT}/blobby/sessions/b", blob)
    forge.ref(f"refs/rewind/{PROJECT}/honest/sessions/treey", tree)
    forge.ref(f"refs/rewind/{PROJECT}/honest/labels/fine/pointless", blob)
    fetch_and_read(victim)
    shown = victim.run("--no-pager", "log", "--remote", "backup", "--session", "honest/fine")
    assert shown.returncode == 0 and "ok.txt" in shown.stdout, shown


def test_refs_of_odd_shapes_are_passed_over(forge: Forge, victim: Machine) -> None:
    honest_session(forge)
    good = git("rev-parse", f"refs/rewind/{PROJECT}/honest/sessions/fine", git_dir=forge.bare)
    good = good.strip()
    for name in (
        "honest/sessions/a/b/c/d/e/f/g/h",
        "honest/labels/fine",
        "honest/other/fine",
        "lonely",
        "bad+machine/sessions/fine",
        "-dash/sessions/fine",
        "x" * 70 + "/sessions/fine",
        "honest/sessions/" + "y" * 200,
    ):
        forge.ref(f"refs/rewind/{PROJECT}/{name}", good)
    fetch_and_read(victim)
    listed = victim.run("sessions", "--remote", "--json")
    names = {f"{s['machine']}/{s['session']}" for s in json.loads(listed.stdout)}
    assert "honest/fine" in names


@pytest.mark.parametrize(
    "turn_json",
    [
        b"not json {",
        b"\xff\xfe\x00 binary",
        b"[1, 2, 3]",
        b'"a string"',
        b"{}",
        json.dumps({**record("w"), "number": "one", "files": "nope"}).encode(),
        json.dumps({**record("w"), "started": "yesterday", "prompt": 7}).encode(),
        json.dumps(record("w", {"path": 3}, {"path": "a", "before": 5, "after": []})).encode(),
        json.dumps(record("w", {"path": "a", "after": {"kind": "file", "oid": "zz"}})).encode(),
        b"[" * 100000,
    ],
)
def test_a_record_that_is_not_json_or_has_wrong_types_reads_as_damaged(
    forge: Forge, victim: Machine, turn_json: bytes
) -> None:
    honest_session(forge)
    forge.session("honest", "w", turn_json)
    fetch_and_read(victim)


def test_paths_that_leave_the_project_and_escape_sequences_print_harmlessly(
    forge: Forge, victim: Machine
) -> None:
    escape = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"
    files = [
        change("../x"),
        change("/etc/passwd"),
        change(".git/config"),
        change(f"red{escape}.txt"),
        change("a/../../b"),
    ]
    contents = {f"{i}.after": b"evil\n" for i in range(len(files))}
    hostile = {**record("paths", *files, prompt=f"hi {escape} there"), "agent": escape}
    forge.session("honest", "paths", hostile, **contents)
    fetch_and_read(victim)
    shown = victim.run("--no-pager", "log", "--remote", "backup", "--session", "honest/paths")
    assert shown.returncode == 0, shown
    assert "../x" in shown.stdout and "hi " in shown.stdout
    assert not (victim.root.parent / "x").exists()


def test_a_fetch_past_max_fetch_mb_stops_and_keeps_what_was_fetched_before(
    forge: Forge, victim: Machine
) -> None:
    honest_session(forge)
    victim.ok("fetch")
    mirror = victim.store() / "rewind" / "remotes" / "backup"
    refs_before = git_bytes("for-each-ref", git_dir=mirror)
    log_before = victim.ok("--no-pager", "log", "--remote", "backup", "--session", "honest/fine")
    (victim.root / "rewind.toml").write_text(
        f'project_id = "{PROJECT}"\n[remote]\nmax_fetch_mb = 1\n'
    )
    big = forge.commit(
        forge.tree(
            {"turn.json": json.dumps(record("big")).encode(), "files/0.after": os.urandom(3 << 20)}
        )
    )
    forge.ref(f"refs/rewind/{PROJECT}/honest/sessions/big", big)
    before = local_state(victim)
    line = error_line(victim.run("fetch"))
    assert "more than 1 MB" in line and "max_fetch_mb" in line, line
    assert not [n for n in os.listdir(mirror / "objects" / "pack") if n.startswith("tmp_")]
    assert git_bytes("for-each-ref", git_dir=mirror) == refs_before
    after = victim.ok("--no-pager", "log", "--remote", "backup", "--session", "honest/fine")
    assert after == log_before
    assert local_state(victim) == before


def test_an_object_whose_content_does_not_match_its_id_fails_the_fetch_cleanly(
    forge: Forge, victim: Machine, bare: Path
) -> None:
    honest_session(forge)
    victim.ok("fetch")
    mirror = victim.store() / "rewind" / "remotes" / "backup"
    refs_before = git_bytes("for-each-ref", git_dir=mirror)
    commit = forge.session(
        "honest", "forged", record("forged", change("a.txt")), **{"0.after": b"A\n"}
    )
    blob = git("rev-parse", f"{commit}:files/0.after", git_dir=bare).strip()
    loose = bare / "objects" / blob[:2] / blob[2:]
    os.chmod(loose, 0o644)
    loose.write_bytes(zlib.compress(b"blob 2\0B\n"))  # another content under the same id
    before = local_state(victim)
    fetched = victim.run("fetch")
    tolerable(fetched)
    assert fetched.returncode == 1, fetched
    assert git_bytes("for-each-ref", git_dir=mirror) == refs_before
    assert not [n for n in os.listdir(mirror / "objects" / "pack") if n.startswith("tmp_")]
    assert local_state(victim) == before
    read_everything(victim)


def test_a_malformed_commit_is_refused_by_git_fsck(
    forge: Forge, victim: Machine, bare: Path
) -> None:
    honest_session(forge)
    tree = forge.tree({"turn.json": json.dumps(record("bad")).encode()})
    raw = f"tree {tree}\nauthor no email here\ncommitter x <x> notatime +0000\n\nturn 1: bad\n"
    bad = git(
        "hash-object", "-t", "commit", "--literally", "-w", "--stdin", input=raw, git_dir=bare
    ).strip()
    forge.ref(f"refs/rewind/{PROJECT}/honest/sessions/bad", bad)
    before = local_state(victim)
    fetched = victim.run("fetch")
    tolerable(fetched)
    assert fetched.returncode == 1 and "fetching from backup" in fetched.stderr, fetched
    assert local_state(victim) == before
    read_everything(victim)
