"""What stays on the machine (rewind.history.remote.privacy): git's answers asked for names git
could misread, a path git will not judge held back alone, and kept so that a changed answer
starts a new generation of exports. Real repositories, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewind.history.remote.privacy import PRIVACY_RECORD, SharingPolicy, ask_git
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
    found = ask_git(bytes(project), [*wanted, b"tracked.log", b"app/s/debug.log", b"x"])
    assert (found.ignored, found.unjudged) == (wanted, {})


def test_a_path_git_will_not_judge_is_held_back_alone(project: Path) -> None:
    """check-ignore refuses the whole question for one path beyond a symbolic link (exit
    128) or outside the repository, and answered nothing of the others: every path asked was
    held back. Each is now held back alone, with why; the others are judged."""
    (project / ".gitignore").write_text("*.log\n")
    (project / "real").mkdir()
    (project / "link").symlink_to("real")
    asked = [b"link/inside.txt", b"link/deep/x.log", b"README.md", b"build.log", b"../out.txt"]
    found = ask_git(bytes(project), asked)
    assert found.ignored == {b"build.log"}
    assert sorted(found.unjudged) == [b"../out.txt", b"link/deep/x.log", b"link/inside.txt"]
    assert found.unjudged[b"link/inside.txt"] == "git cannot judge it: link is a symbolic link"
    assert "outside repository" in found.unjudged[b"../out.txt"], found.unjudged
    assert found.held_back == {b"build.log", *found.unjudged}

    ok("begin", "--session", "s", "--prompt", "p")  # and the policy says why each is held back
    policy = SharingPolicy(open_current_store())
    private = policy.private({b"link/inside.txt", b"README.md", b"build.log"})
    assert private == {
        b"link/inside.txt": "git cannot judge it: link is a symbolic link",
        b"build.log": "ignored by git",
    }
    assert policy.unjudged == {b"link/inside.txt": private[b"link/inside.txt"]}


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
