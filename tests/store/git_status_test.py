"""git status, asked read-only: every kind of change, and the user's index left untouched."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from rewind.store.git_status import changed_paths, parse_porcelain
from tests.support.git import git


def test_reports_every_kind_of_change_but_ignored_files(project: Path) -> None:
    for name in ("modified", "renamed", "deleted", "staged"):
        (project / name).write_text(name)
    git("add", ".", cwd=project)
    git("commit", "-qm", "initial", cwd=project)
    (project / "modified").write_text("changed")
    git("mv", "renamed", "renamed-to", cwd=project)
    (project / "deleted").unlink()
    (project / "staged").write_text("staged change")
    git("add", "staged", cwd=project)
    (project / "sub").mkdir()
    (project / "sub" / "untracked").write_text("new")
    (project / ".gitignore").write_text("*.log\n")
    (project / "noise.log").write_text("ignored")

    assert sorted(changed_paths(bytes(project))) == sorted(
        [
            b".gitignore",
            b"deleted",
            b"modified",
            b"renamed",
            b"renamed-to",
            b"staged",
            b"sub/untracked",
        ]
    )


def test_does_not_write_the_users_index(project: Path) -> None:
    (project / "a").write_text("a")
    git("add", "a", cwd=project)
    git("commit", "-qm", "initial", cwd=project)
    (project / "a").write_text("touched so that a plain git status would refresh the index")
    index = project / ".git" / "index"
    before = (hashlib.sha256(index.read_bytes()).hexdigest(), index.stat().st_mtime_ns)
    assert changed_paths(bytes(project)) == [b"a"]
    assert (hashlib.sha256(index.read_bytes()).hexdigest(), index.stat().st_mtime_ns) == before


@pytest.mark.unit
def test_parses_renames_and_names_with_spaces() -> None:
    output = b"R  new name\0old name\0 M plain\0?? dir/with space\0"
    assert parse_porcelain(output) == [b"new name", b"old name", b"plain", b"dir/with space"]
