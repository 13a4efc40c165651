"""The store: a git object database under ``$REWIND_HOME``, readable by the real git, that never
touches the project's own ``.git``."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from tests.conftest import error_line, log_json, ok, run_rewind, snapshot, store_dir
from tests.support.git import git, git_bytes, git_outcome

SESSION = "s"


def full_cycle(project: Path) -> None:
    """A turn that edits, creates and deletes, then a restore and its undo."""
    (project / "a.txt").write_bytes(b"a0\n")
    (project / "gone.txt").write_bytes(b"gone\n")
    ok("begin", "--session", SESSION, "--prompt", "first")
    ok("track", "--session", SESSION, "a.txt", "gone.txt", "new/b.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    (project / "gone.txt").unlink()
    (project / "new").mkdir()
    (project / "new" / "b.txt").write_bytes(b"b\n")
    ok("end", "--session", SESSION)
    ok("restore", "1", "--session", SESSION, "--yes")
    ok("undo", "--session", SESSION, "--yes")


def test_store_lives_under_rewind_home_outside_the_work_tree(
    project: Path, isolated_home: Path
) -> None:
    full_cycle(project)
    store = store_dir(project)
    assert (store / "HEAD").is_file() and (store / "objects").is_dir()
    assert store.is_relative_to(isolated_home / "rewind-home")
    assert not store.is_relative_to(project)
    status = git("status", "--porcelain", "--untracked-files=all", cwd=project)
    assert status.splitlines() == ["?? a.txt", "?? new/b.txt"]


def test_real_git_reads_the_history_and_finds_it_sound(project: Path) -> None:
    full_cycle(project)
    history = git("log", "--all", "--format=%s", git_dir=store_dir(project))
    assert history.splitlines() == [
        "undo 3: undo restore 2",
        "restore 2: restore to before turn 1",
        "turn 1: first",
    ]
    fsck = git_outcome("fsck", "--full", "--strict", git_dir=store_dir(project))
    assert fsck.returncode == 0, fsck.stderr
    assert not any(word in fsck.stdout + fsck.stderr for word in ("error", "missing", "broken"))


def test_stored_versions_are_plain_git_blobs(project: Path) -> None:
    (project / "bin").write_bytes(bytes(range(256)))
    os.symlink("bin", project / "link")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "bin", "link")
    files = log_json("--session", SESSION)[0]["files"]
    store = store_dir(project)
    assert git_bytes("cat-file", "blob", files[0]["before"]["oid"], git_dir=store) == bytes(
        range(256)
    )
    assert git("cat-file", "blob", files[1]["before"]["oid"], git_dir=store) == "bin"


def hash_tree(directory: Path) -> dict[str, tuple[int, str]]:
    """Every path under ``directory``: its mode and the SHA-256 of its content or link target."""
    found = {}
    for folder, directories, names in os.walk(directory):
        for name in directories + names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if os.path.islink(path):
                digest = hashlib.sha256(os.readlink(path).encode()).hexdigest()
            elif os.path.isdir(path):
                digest = ""
            else:
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            found[os.path.relpath(path, directory)] = (info.st_mode, digest)
    return found


def test_project_git_directory_is_byte_identical_after_a_full_cycle(project: Path) -> None:
    (project / "a.txt").write_bytes(b"committed\n")
    git("add", "a.txt", cwd=project)
    git("commit", "-q", "-m", "initial", cwd=project)
    before = hash_tree(project / ".git")
    full_cycle(project)
    for command in (["log"], ["show", "1"], ["diff", "1"], ["status"], ["check"], ["sessions"]):
        ok(*command)
    assert hash_tree(project / ".git") == before


def corrupt(project: Path, oid: str) -> Path:
    loose = store_dir(project) / "objects" / oid[:2] / oid[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"this is not a zlib stream")
    return loose


def test_corrupted_object_refuses_restore_and_check_names_the_file(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    (project / "b.txt").write_bytes(b"b0\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt", "b.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    (project / "b.txt").write_bytes(b"b1\n")
    ok("end", "--session", SESSION)
    oid = log_json("--session", SESSION)[0]["files"][0]["before"]["oid"]
    corrupt(project, oid)
    before = snapshot(project)
    line = error_line(run_rewind("restore", "1", "--session", SESSION, "--yes"))
    assert f"object {oid} in the store is corrupted" in line and "'rewind check'" in line
    assert snapshot(project) == before  # b.txt, whose object is sound, was not restored either
    check = run_rewind("check")
    assert check.returncode == 1, check
    assert check.stderr.splitlines() == [
        f"session s turn 1: the before-state of a.txt ({oid}) is missing or corrupted"
    ]
    assert check.stdout == "checked 4 stored file versions: 1 problem(s)\n"


def test_corrupted_object_makes_show_point_at_rewind_check(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    ok("begin", "--session", SESSION)
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    ok("end", "--session", SESSION)
    corrupt(project, log_json("--session", SESSION)[0]["files"][0]["after"]["oid"])
    assert "rewind check" in error_line(run_rewind("show", "1", "--session", SESSION))


def test_each_project_has_its_own_store(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git("init", "-q", str(other))
    ok("begin", "--session", "here", cwd=project)
    ok("begin", "--session", "there", cwd=other)
    assert store_dir(project) != store_dir(other)
    assert [s["session"] for s in json.loads(ok("sessions", "--json").stdout)] == ["here"]


def test_store_packed_by_git_gc_still_restores(project: Path) -> None:
    full_cycle(project)
    git("gc", "--quiet", "--prune=now", git_dir=store_dir(project))
    assert not list((store_dir(project) / "objects").glob("??/*"))  # everything is packed
    ok("redo", "--session", SESSION, "--yes")  # reads packed blobs
    assert (project / "a.txt").read_bytes() == b"a0\n"
    assert (project / "gone.txt").read_bytes() == b"gone\n"
    assert [e["kind"] for e in log_json("--session", SESSION)] == [
        "turn",
        "restore",
        "undo",
        "redo",
    ]
    assert ok("check").stdout.endswith(": 0 problem(s)\n")
