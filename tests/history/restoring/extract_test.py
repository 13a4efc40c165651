"""``rewind extract``: the files a turn touched, rebuilt in a new folder, for a local session
and a fetched one."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import error_line, snapshot
from tests.support.two_machines import REMOTE, two_machines


def test_a_fetched_turn_after_and_before(project: Path, tmp_path: Path) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": b"old\n", "gone.txt": b"bye\n"})
    (project / "link").symlink_to("a.txt")

    def edit() -> None:
        (project / "a.txt").write_bytes(b"new\n")
        (project / "a.txt").chmod(0o755)
        (project / "gone.txt").unlink()
        (project / "sub").mkdir()
        (project / "sub" / "made.txt").write_bytes(b"made\n")
        (project / "link").unlink()
        (project / "link").symlink_to("/nowhere/at/all")

    machines.a.turn("s1", "one", ["a.txt", "gone.txt", "sub/made.txt", "link"], edit)
    machines.push_and_fetch()
    work_tree = snapshot(machines.b.root)
    after = tmp_path / "after"
    done = machines.b.ok("extract", "--remote", REMOTE, "1", str(after))
    assert "absent   gone.txt" in done.stdout
    assert snapshot(after) == {
        b"a.txt": ("file", b"new\n", 0o755),
        b"link": ("link", b"/nowhere/at/all", 0),
        b"sub": ("directory", b"", snapshot(after)[b"sub"][2]),
        b"sub/made.txt": ("file", b"made\n", 0o644),
    }
    before = tmp_path / "before"
    done = machines.b.ok(
        "extract", "--remote", REMOTE, "--session", "laptop/s1", "1", str(before), "--before"
    )
    assert "absent   sub/made.txt" in done.stdout
    assert snapshot(before) == {
        b"a.txt": ("file", b"old\n", 0o644),
        b"gone.txt": ("file", b"bye\n", 0o644),
        b"link": ("link", b"a.txt", 0),
    }
    assert snapshot(machines.b.root) == work_tree  # the work tree is never touched


def test_a_local_turn_one_path_into_an_empty_folder(project: Path, tmp_path: Path) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": b"old\n", "b.txt": b"b\n"})

    def edit() -> None:
        (project / "a.txt").write_bytes(b"new\n")
        (project / "b.txt").write_bytes(b"B\n")

    machines.a.turn("s1", "one", ["a.txt", "b.txt"], edit)
    empty = tmp_path / "empty"
    empty.mkdir()
    machines.a.ok("extract", "1", str(empty), "--path", "b.txt")
    assert snapshot(empty) == {b"b.txt": ("file", b"B\n", 0o644)}
    assert "is not empty" in error_line(machines.a.run("extract", "1", str(empty)))
    link = tmp_path / "link-to-empty"
    os.symlink(tmp_path / "other", link)
    assert "not a folder" in error_line(machines.a.run("extract", "1", str(link)))
    assert not (tmp_path / "other").exists()


def test_a_private_file_is_listed_not_written(project: Path, tmp_path: Path) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": b"a\n", ".env": b"KEY=1\n"})

    def edit() -> None:
        (project / "a.txt").write_bytes(b"A\n")
        (project / ".env").write_bytes(b"KEY=2\n")

    machines.a.turn("s1", "one", ["a.txt", ".env"], edit)
    machines.push_and_fetch()
    out = tmp_path / "out"
    done = machines.b.run("extract", "--remote", REMOTE, "1", str(out))
    assert done.returncode == 2, done
    assert "skipped  .env  (its content was not recorded (not-shared))" in done.stdout
    assert snapshot(out) == {b"a.txt": ("file", b"A\n", 0o644)}
