"""What is private stays private (issue 20): each test pushes a session through real bare
repositories and searches every object the remote holds for contents that must never reach it.

- what git ignores is git's answer at the time of the push: a file pushed before a
  ``.gitignore`` covered it is held back from every later push, to a new remote and to the same
  one (whose refs are replaced by the history without it), and ``push --dry-run`` says what the
  push then sends;
- the built-in private list matches in any case (``.ENV`` and ``KEY.PEM`` are ``.env`` and a
  key on macOS and Windows), ``[remote] exclude`` has gitignore's syntax (``**/*.secret``
  matches a top-level ``top.secret``), and git is asked about each name as a plain name, never
  as pathspec magic (``:memo``) or a glob (``app/[slug]/debug.log``);
- a path git will not judge (beyond a folder replaced by a symbolic link) is held back alone,
  and the push says so: it used to hold back every file of every session, silently.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.support.git import git
from tests.support.two_machines import REMOTE, Machine, two_machines

DIARY = b"diary: the launch slips to May, tell nobody 7f3a\n"


def every_object(remote: Path) -> bytes:
    """The contents of every object the bare repository ``remote`` holds, reachable or not."""
    return _contents(remote, ["--batch-all-objects"], b"")


def reachable_objects(remote: Path) -> bytes:
    """The contents of every object its refs reach."""
    listed = git("rev-list", "--objects", "--all", cwd=remote)
    ids = "".join(line[:40] + "\n" for line in listed.splitlines()).encode()
    return _contents(remote, [], ids)


def _contents(remote: Path, options: list[str], ids: bytes) -> bytes:
    done = subprocess.run(
        ["git", f"--git-dir={remote}", "cat-file", "--batch", *options],
        input=ids,
        capture_output=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def dry_run(machine: Machine, remote: str) -> dict[str, Any]:
    """``rewind push REMOTE --all --dry-run --json`` as data."""
    found: dict[str, Any] = json.loads(
        machine.ok("push", remote, "--all", "--dry-run", "--json").stdout
    )
    return found


def shared(plan: dict[str, Any], path: str) -> list[bool]:
    """Whether the dry run says each entry that would be sent shares ``path``'s content."""
    return [
        change["shared"]
        for session in plan["sessions"]
        for entry in session["entries"]
        for change in entry["files"]
        if change["path"] == path
    ]


# item 4: what git ignores changed after a push -------------------------------------------------


def test_a_file_ignored_after_it_was_pushed_is_held_back_from_every_later_push(
    project: Path, tmp_path: Path
) -> None:
    """``notes.txt`` was pushed to the backup before ``.gitignore`` covered it. Pushed then to
    a new remote, its content used to go again (the record of which commit was sent as which
    did not depend on what git ignores), although ``push --dry-run`` said it would not; pushed
    to the backup again, the backup stayed as it was."""
    machines = two_machines(project, tmp_path, {"app.py": b"print(1)\n"})
    a = machines.a
    a.turn(
        "s1",
        "write the notes",
        ["notes.txt", "app.py"],
        lambda: ((project / "notes.txt").write_bytes(DIARY), (project / "app.py").write_text("2")),
    )
    a.turn("s1", "more", ["app.py"], lambda: (project / "app.py").write_text("print(3)\n"))
    a.ok("push", "--all")
    assert DIARY in every_object(machines.remote)  # not private then: it went
    (project / ".gitignore").write_text("notes.txt\n")

    new = tmp_path / "new.git"
    git("init", "-q", "--bare", str(new), cwd=tmp_path)
    a.ok("remote", "add", "new", str(new))
    assert shared(dry_run(a, "new"), "notes.txt") == [False]
    a.ok("push", "new", "--all")
    assert b"print(3)" in every_object(new)  # the search does see contents
    assert DIARY not in every_object(new)

    # The backup: the dry run lists the whole session again, as the push sends it, and the
    # backup's refs no longer reach the notes (its object store keeps them until its gc).
    plan = dry_run(a, REMOTE)
    assert [len(session["entries"]) for session in plan["sessions"]] == [2], plan
    assert shared(plan, "notes.txt") == [False]
    a.ok("push", REMOTE, "--all")
    assert DIARY not in reachable_objects(machines.remote)
    assert git("for-each-ref", cwd=machines.remote) == git("for-each-ref", cwd=new)
    machines.b.ok("fetch", REMOTE)
    log = machines.b.ok("log", "--remote", REMOTE, "--session", "s1").stdout
    assert "notes.txt" in log and "content not shared" in log, log

    # And back: no longer ignored, the dry run says it goes, and it does.
    (project / ".gitignore").unlink()
    assert "is up to date" not in a.ok("push", "new", "--all", "--dry-run").stdout
    assert shared(dry_run(a, "new"), "notes.txt") == [True]
    a.ok("push", "new", "--all")
    assert DIARY in reachable_objects(new)
    assert a.ok("push", "new", "--all").stdout.endswith("is up to date.\n")


def test_a_path_beyond_a_symbolic_link_is_held_back_alone_and_the_push_says_so(
    project: Path, tmp_path: Path
) -> None:
    """``docs`` became a symbolic link after ``docs/guide.md`` was recorded and pushed. git's
    check-ignore then refused the whole question (exit 128, "beyond a symbolic link"), every
    path asked counted as ignored, and every later push held back the contents of every file
    of every session, said nowhere but in its dry run, as "ignored by git"."""
    notes, guide, app = b"notes for all 3e1f\n", b"the guide 8d2a\n", b"print('app 5c7b')\n"
    machines = two_machines(project, tmp_path, {"docs/guide.md": b"old\n", "notes.txt": b"n\n"})
    a = machines.a

    def write() -> None:
        (project / "notes.txt").write_bytes(notes)
        (project / "docs" / "guide.md").write_bytes(guide)

    a.turn("s1", "write the guide", ["notes.txt", "docs/guide.md"], write)
    a.ok("push", "--all")
    assert guide in every_object(machines.remote)
    (project / "docs").rename(tmp_path / "shared-docs")
    (project / "docs").symlink_to(tmp_path / "shared-docs")
    a.turn("s2", "the app", ["app.py"], lambda: (project / "app.py").write_bytes(app))

    why = "git cannot judge it: docs is a symbolic link"
    plan = dry_run(a, REMOTE)
    files = {
        change["path"]: change["why_not"]
        for session in plan["sessions"]
        for entry in session["entries"]
        for change in entry["files"]
    }
    assert files == {"notes.txt": None, "docs/guide.md": why, "app.py": None}, plan
    pushed = json.loads(a.ok("push", REMOTE, "--all", "--json").stdout)
    assert pushed["pushed"] == ["s1", "s2"], pushed
    assert pushed["held_back"] == [{"path": "docs/guide.md", "why": why}], pushed
    sent = reachable_objects(machines.remote)
    assert notes in sent and app in sent and guide not in sent

    new = tmp_path / "new.git"
    git("init", "-q", "--bare", str(new), cwd=tmp_path)
    a.ok("remote", "add", "new", str(new))
    said = a.ok("push", "new", "--all").stdout
    assert f"docs/guide.md: not shared ({why})" in said, said
    everything = every_object(new)
    assert notes in everything and app in everything and guide not in everything


# item 5: the patterns ---------------------------------------------------------------------------

PRIVATE = {
    ".ENV": (b"API_KEY=upper-env-1d2c\n", "matches .env"),
    "deploy/KEY.PEM": (b"-----BEGIN KEY----- upper-pem-9e8f\n", "matches *.pem"),
    "config/.Env.Production": (b"DB=mixed-env-5a6b\n", "matches .env.*"),
    "Id_RSA": (b"OPENSSH upper-id-rsa-3c4d\n", "matches id_rsa*"),
    "top.secret": (b"top-level secret 7b8c\n", "matches **/*.secret"),
    "docs/deep/DEEP.SECRET": (b"deep secret in capitals 0f1e\n", "matches **/*.secret"),
    "Private/notes.txt": (b"a private folder 2a3b\n", "matches private/"),
    ":memo": (b"memo git ignores 4c5d\n", "ignored by git"),
    "app/[slug]/debug.log": (b"a log git ignores 6e7f\n", "ignored by git"),
}


def test_private_names_match_in_any_case_with_gitignore_syntax_and_git_reads_them_plainly(
    project: Path, tmp_path: Path
) -> None:
    """``.ENV`` and ``KEY.PEM`` were pushed (the built-in list was matched case by case);
    ``**/*.secret`` missed a top-level ``top.secret`` (gitignore matches it); ``:memo``, which
    ``/:memo`` ignores, was pushed because ``git check-ignore`` read its ``:`` as pathspec
    magic, and ``app/[slug]/debug.log`` because it read its name as a glob that matched the
    tracked ``app/s/debug.log``, so "not ignored"."""
    machines = two_machines(
        project, tmp_path, {".gitignore": b"/:memo\n*.log\n", "app/s/debug.log": b"tracked\n"}
    )
    git("add", "-f", "app/s/debug.log", cwd=project)
    git("commit", "-qm", "a tracked log", cwd=project)
    a = machines.a
    (project / "rewind.toml").write_text('[remote]\nexclude = ["**/*.secret", "private/"]\n')
    names = [*PRIVATE, "app.py", "notes/private"]

    def write() -> None:
        for name, (content, _) in PRIVATE.items():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            (project / name).write_bytes(content)
        (project / "app.py").write_text("print('shared')\n")
        (project / "notes").mkdir()
        (project / "notes" / "private").write_text("a file named private is shared\n")

    a.turn("s1", "write everything", names, write)
    plan = dry_run(a, REMOTE)
    a.ok("push", "--all")
    everything = every_object(machines.remote)
    assert [name for name, (content, _) in PRIVATE.items() if content in everything] == []
    assert b"print('shared')" in everything and b"a file named private is shared" in everything
    [entry] = plan["sessions"][0]["entries"]
    why = {change["path"]: change["why_not"] for change in entry["files"]}
    assert why == {
        **{name: reason for name, (_, reason) in PRIVATE.items()},
        "app.py": None,
        "notes/private": None,
    }


def test_a_pattern_that_would_share_or_never_match_is_refused_before_anything_is_sent(
    project: Path, tmp_path: Path
) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": b"a\n"})
    a = machines.a
    a.turn("s1", "one", ["a.txt"], lambda: (project / "a.txt").write_text("b\n"))
    for pattern, why in (
        ("!.env.example", "starts with '!'"),
        ("[abc", "without its ']'"),
        ("notes\\", "ends with a backslash"),
    ):
        (project / "rewind.toml").write_text(f"[remote]\nexclude = ['{pattern}']\n")
        for arguments in (["--dry-run"], []):
            refused = a.run("push", "--all", *arguments)
            assert refused.returncode == 1, refused
            assert why in refused.stderr and "remote.exclude" in refused.stderr, refused
    assert git("for-each-ref", cwd=machines.remote) == ""
