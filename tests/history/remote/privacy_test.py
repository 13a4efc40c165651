"""What stays on the machine (rewind.history.remote.privacy): git's answers asked for names git
could misread, held back when git cannot answer, and kept so that a changed answer starts a new
generation of exports. Real repositories, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewind.history.remote.privacy import PRIVACY_RECORD, SharingPolicy, ignored_by_git
from rewind.history.restoring.opening import open_current_store
from tests.conftest import ok
from tests.support.git import git

ODD_NAMES = [b":memo", b":(top)x", b":/y", b"-v", b"*", b"a\nb", b"sp ace", b"\xc3\xbc\xcc\x88"]


def test_names_git_could_read_as_pathspec_magic_or_globs_are_asked_plainly(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``:memo`` was read as pathspec magic; ``app/[slug]/debug.log``, ignored, as a glob that
    matched the tracked ``app/s/debug.log``, and so was "not ignored"."""
    (project / ".gitignore").write_bytes(
        b"/:memo\n/:(top)x\n/:\\/y\n/-v\n/\\*\na?b\nsp ace\n\xc3\xbc\xcc\x88\n*.log\n"
    )
    (project / "app" / "s").mkdir(parents=True)
    for tracked in ("tracked.log", "app/s/debug.log"):
        (project / tracked).write_text("tracked, so never ignored\n")
        git("add", "-f", tracked, cwd=project)
    wanted = {*ODD_NAMES, b"app/[slug]/debug.log", b"app/*/x.log", b"new.log"}
    # git's global pathspec settings would make check-ignore refuse every path: not asked so
    monkeypatch.setenv("GIT_ICASE_PATHSPECS", "1")
    found = ignored_by_git(bytes(project), [*wanted, b"tracked.log", b"app/s/debug.log", b"x"])
    assert found == wanted


def test_when_git_cannot_answer_every_path_asked_is_held_back(project: Path) -> None:
    (project / "real").mkdir()
    (project / "link").symlink_to("real")
    # A path beyond a symlink: check-ignore exits 128, and says nothing of the others.
    asked = [b"link/inside.txt", b"README.md"]
    assert ignored_by_git(bytes(project), asked) == set(asked)
    assert ignored_by_git(bytes(project), [b"README.md"]) == set()


def test_a_changed_answer_a_lost_or_contradictory_record_start_a_new_generation(
    project: Path,
) -> None:
    ok("begin", "--session", "s", "--prompt", "p")
    store = open_current_store()
    paths = {b"notes.txt", b"app.py", b".env"}
    policy = SharingPolicy(store)
    first = policy.key
    assert policy.private({*paths, b"gone.txt"}) == {b".env": "matches .env"}
    policy.save()  # notes.txt, app.py and gone.txt: asked of git, and kept
    assert SharingPolicy(store).key == first  # the same answers: the same exports

    (project / ".gitignore").write_text("notes.txt\n")
    changed = SharingPolicy(store)
    assert changed.key != first
    assert changed.private(paths) == {b".env": "matches .env", b"notes.txt": "ignored by git"}
    changed.save()
    second = SharingPolicy(store).key
    assert second == changed.key
    record = Path(store.state_path(PRIVACY_RECORD))
    # the new generation keeps what its exports used only: gone.txt is asked no more
    assert sorted(record.read_text().splitlines()[1:]) == [
        f"0 {b'app.py'.hex()}",
        f"1 {b'notes.txt'.hex()}",
    ]

    record.write_text(record.read_text() + f"0 {b'notes.txt'.hex()}\n")  # says both
    assert SharingPolicy(store).key not in (first, second)
    record.unlink()
    assert SharingPolicy(store).key not in (first, second)


def test_with_share_ignored_git_is_not_asked(project: Path) -> None:
    (project / "rewind.toml").write_text("[remote]\nshare_ignored = true\n")
    (project / ".gitignore").write_text("notes.txt\n")
    ok("begin", "--session", "s", "--prompt", "p")
    policy = SharingPolicy(open_current_store())
    assert policy.private({b"notes.txt", b"id_ed25519"}) == {b"id_ed25519": "matches id_ed25519*"}
