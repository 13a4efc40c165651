"""``rewind apply``: another machine's turns (fetched) or another local session's, merged into
this work tree file by file, recorded so that ``rewind undo`` gives the work tree back exactly."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import error_line, snapshot
from tests.support.two_machines import (
    REMOTE,
    TwoMachines,
    craft_session,
    everything_under,
    state,
    two_machines,
)

LINES = b"one\ntwo\nthree\nfour\nfive\n"
START = {
    "a.txt": LINES,
    "gone.txt": b"deleted by the turn\n",
    "run.sh": b"echo hi\n",
    "same.txt": b"untouched\n",
}


@pytest.fixture
def pair(project: Path, tmp_path: Path) -> TwoMachines:
    """A's session s1, turn 1: edits a.txt's first line, deletes gone.txt, creates
    new/dir/n.txt, makes run.sh executable and points a symlink elsewhere; fetched by B."""
    machines = two_machines(project, tmp_path, START)
    (project / "link").symlink_to("a.txt")
    root = project

    def edit() -> None:
        (root / "a.txt").write_bytes(LINES.replace(b"one", b"ONE"))
        (root / "gone.txt").unlink()
        (root / "new" / "dir").mkdir(parents=True)
        (root / "new" / "dir" / "n.txt").write_bytes(b"new file\n")
        (root / "run.sh").chmod(0o755)
        (root / "link").unlink()
        (root / "link").symlink_to("same.txt")

    paths = ["a.txt", "gone.txt", "new/dir/n.txt", "run.sh", "link"]
    machines.a.turn("s1", "first", paths, edit)
    (machines.b.root / "link").symlink_to("a.txt")  # as A had it before the turn
    machines.push_and_fetch()
    return machines


def test_a_clean_apply_writes_theirs_and_undo_gives_back_every_byte(pair: TwoMachines) -> None:
    b = pair.b.root
    before = snapshot(b)
    done = pair.b.ok("apply", "--remote", REMOTE, "s1", "1")
    assert "Applied 5 file(s) of turn 1 of backup:laptop/s1" in done.stdout
    assert (b / "a.txt").read_bytes() == LINES.replace(b"one", b"ONE")
    assert not (b / "gone.txt").exists()
    assert (b / "new" / "dir" / "n.txt").read_bytes() == b"new file\n"
    assert os.stat(b / "run.sh").st_mode & 0o777 == 0o755
    assert os.readlink(b / "link") == "same.txt"
    # Recorded as a restore entry of a new local session, naming what it applied.
    [entry] = pair.b.log()
    assert (entry["kind"], entry["prompt"]) == ("restore", "apply turn 1 of backup:laptop/s1")
    pair.b.ok("undo", "--yes")
    assert snapshot(b) == before


def test_the_plan_says_delete_for_a_file_the_turn_deleted(pair: TwoMachines) -> None:
    text = pair.b.ok("apply", "--remote", REMOTE, "s1", "1", "--dry-run").stdout
    assert "  delete    gone.txt" in text and "  write     a.txt" in text, text
    plan = json.loads(
        pair.b.ok("apply", "--remote", REMOTE, "s1", "1", "--dry-run", "--json").stdout
    )
    outcomes = {item["path"]: item["outcome"] for item in plan["files"]}
    assert outcomes["gone.txt"] == "delete" and outcomes["a.txt"] == "write"
    assert plan["counts"]["delete"] == 1 and plan["counts"]["write"] == 4


def test_applying_twice_finds_it_applied_already(pair: TwoMachines) -> None:
    pair.b.ok("apply", "--remote", REMOTE, "s1", "1")
    after = snapshot(pair.b.root)
    plan = pair.b.ok("apply", "--remote", REMOTE, "s1", "1", "--dry-run")
    assert plan.stdout.count("already") == 5, plan
    again = pair.b.ok("apply", "--remote", REMOTE, "laptop/s1", "1")
    assert "Nothing to apply" in again.stdout
    assert snapshot(pair.b.root) == after
    assert len(pair.b.log()) == 1  # nothing recorded the second time


def test_a_local_edit_elsewhere_in_the_file_is_kept_by_the_merge(pair: TwoMachines) -> None:
    a_txt = pair.b.root / "a.txt"
    edited = LINES.replace(b"five", b"FIVE")
    a_txt.write_bytes(edited)
    plan = json.loads(
        pair.b.ok("apply", "--remote", REMOTE, "s1", "1", "--dry-run", "--json").stdout
    )
    assert plan["format"] == 1 and plan["counts"]["merge"] == 1
    assert {f["path"]: f["outcome"] for f in plan["files"]}["a.txt"] == "merge"
    pair.b.ok("apply", "--remote", REMOTE, "s1", "1")
    assert a_txt.read_bytes() == b"ONE\ntwo\nthree\nfour\nFIVE\n"
    pair.b.ok("undo", "--yes")
    assert a_txt.read_bytes() == edited


def test_overlapping_changes_conflict_and_nothing_is_written(pair: TwoMachines) -> None:
    (pair.b.root / "a.txt").write_bytes(LINES.replace(b"one", b"uno"))
    before = snapshot(pair.b.root)
    line = error_line(pair.b.run("apply", "--remote", REMOTE, "s1", "1"))
    assert "a.txt (conflict:" in line and "nothing was written" in line, line
    assert "use --path to apply the others, or --skip-conflicts" in line
    assert snapshot(pair.b.root) == before
    # --path leaves the conflicting file out.
    pair.b.ok("apply", "--remote", REMOTE, "s1", "1", "--path", "gone.txt")
    assert not (pair.b.root / "gone.txt").exists()


def test_skip_conflicts_applies_the_rest_and_exits_2(pair: TwoMachines) -> None:
    (pair.b.root / "a.txt").write_bytes(LINES.replace(b"one", b"uno"))
    before = snapshot(pair.b.root)
    done = pair.b.run("apply", "--remote", REMOTE, "s1", "1", "--skip-conflicts")
    assert done.returncode == 2, done
    assert "a.txt (conflict:" in done.stderr
    assert (pair.b.root / "a.txt").read_bytes() == LINES.replace(b"one", b"uno")
    assert (pair.b.root / "new" / "dir" / "n.txt").exists()
    pair.b.ok("undo", "--yes")
    assert snapshot(pair.b.root) == before


def test_a_file_changed_since_rewind_recorded_it_needs_force(pair: TwoMachines) -> None:
    b = pair.b.root
    pair.b.turn("mine", "local", ["a.txt"], lambda: (b / "a.txt").write_bytes(LINES + b"six\n"))
    (b / "a.txt").write_bytes(LINES + b"six\nseven\n")  # by hand: rewind has not seen it
    line = error_line(pair.b.run("apply", "--remote", REMOTE, "s1", "1", "--path", "a.txt"))
    assert "changed outside rewind" in line and "--force" in line
    assert (b / "a.txt").read_bytes() == LINES + b"six\nseven\n"
    pair.b.ok("apply", "--remote", REMOTE, "s1", "1", "--path", "a.txt", "--force")
    assert (b / "a.txt").read_bytes() == b"ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n"
    assert pair.b.log("--session", "mine")[-1]["kind"] == "restore"  # the most recent
    pair.b.ok("undo", "--yes")
    assert (b / "a.txt").read_bytes() == LINES + b"six\nseven\n"


def test_a_private_file_is_refused(project: Path, tmp_path: Path) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": LINES, ".env": b"KEY=1\n"})

    def edit() -> None:
        (project / "a.txt").write_bytes(b"changed\n")
        (project / ".env").write_bytes(b"KEY=2\n")

    machines.a.turn("s1", "secret", ["a.txt", ".env"], edit)
    machines.push_and_fetch()
    before = snapshot(machines.b.root)
    line = error_line(machines.b.run("apply", "--remote", REMOTE, "s1", "1"))
    assert ".env (refused:" in line and "not shared" in line, line
    assert snapshot(machines.b.root) == before
    done = machines.b.run("apply", "--remote", REMOTE, "s1", "1", "--skip-conflicts")
    assert done.returncode == 2, done
    assert (machines.b.root / "a.txt").read_bytes() == b"changed\n"
    assert (machines.b.root / ".env").read_bytes() == b"KEY=1\n"


def test_turns_of_another_local_session(project: Path, tmp_path: Path) -> None:
    """A range of turns of a local session: base from the first, theirs from the last."""
    machines = two_machines(project, tmp_path, {"a.txt": LINES})
    a = machines.a
    a.turn(
        "s1",
        "one",
        ["a.txt", "b.txt"],
        lambda: ((project / "a.txt").write_bytes(b"1\n"), (project / "b.txt").write_bytes(b"b\n")),
    )
    a.turn("s1", "two", ["a.txt"], lambda: (project / "a.txt").write_bytes(b"2\n"))
    a.ok("restore", "1", "--yes")  # the work tree as before turn 1
    assert (project / "a.txt").read_bytes() == LINES
    start = snapshot(project)
    plan = json.loads(a.ok("apply", "s1", "1..2", "--into", "s2", "--dry-run", "--json").stdout)
    assert plan["from"] == "session s1" and plan["counts"]["write"] == 2
    a.ok("apply", "s1", "1..2", "--into", "s2")
    assert (project / "a.txt").read_bytes() == b"2\n"
    assert (project / "b.txt").read_bytes() == b"b\n"
    assert a.log("--session", "s2")[0]["prompt"] == "apply turns 1..2 of session s1"
    assert "backwards" in error_line(a.run("apply", "s1", "2..1"))
    a.ok("undo", "--session", "s2", "--yes")
    assert snapshot(project) == start


# a hostile remote ------------------------------------------------------------------------------


def hostile_paths(outside: Path) -> list[str]:
    return ["../outside.txt", str(outside / "absolute.txt"), ".git/hooks/pre-commit"]


@pytest.mark.parametrize("index", range(3))
def test_a_hostile_path_refuses_the_whole_apply(project: Path, tmp_path: Path, index: int) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": LINES})
    machines.a.turn("s1", "one", ["a.txt"], lambda: (project / "a.txt").write_bytes(b"x\n"))
    machines.a.ok("push", "--all")
    outside = tmp_path / "outside"
    outside.mkdir()
    remote = machines.remote
    path = hostile_paths(outside)[index]
    craft_session(
        remote,
        "evil",
        "h",
        [
            ("a.txt", state(remote, "file", LINES), state(remote, "file", b"pwned\n")),
            (
                path,
                state(remote, "absent"),
                state(remote, "file", b"#!/bin/sh\necho pwned\n", 0o755),
            ),
        ],
    )
    machines.b.ok("fetch", REMOTE)
    b = machines.b.root
    before = snapshot(b)
    hooks_before = everything_under(b / ".git")
    for arguments in (
        ["apply", "--remote", REMOTE, "evil/h", "1"],
        ["apply", "--remote", REMOTE, "h", "1", "--skip-conflicts"],
    ):
        line = error_line(machines.b.run(*arguments))
        assert "nothing was written" in line and "never writes" in line, line
    line = error_line(
        machines.b.run("extract", "--remote", REMOTE, "--session", "h", "1", str(tmp_path / "x"))
    )
    assert "never writes" in line
    assert snapshot(b) == before
    assert everything_under(b / ".git") == hooks_before
    assert everything_under(outside) == set()
    assert not (tmp_path / "outside.txt").exists()
    assert not (tmp_path / "x").exists() or everything_under(tmp_path / "x") == set()


def test_a_hostile_symlink_is_never_written_through(project: Path, tmp_path: Path) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": LINES})
    machines.a.turn("s1", "one", ["a.txt"], lambda: (project / "a.txt").write_bytes(b"x\n"))
    machines.a.ok("push", "--all")
    outside = tmp_path / "outside"
    outside.mkdir()
    remote = machines.remote
    # The session makes 'link' a symlink to outside, then writes below it.
    craft_session(
        remote,
        "evil",
        "nested",
        [
            ("link", state(remote, "absent"), state(remote, "link", os.fsencode(outside))),
            ("link/file", state(remote, "absent"), state(remote, "file", b"pwned\n")),
        ],
    )
    # Or the work tree has such a symlink already (of its own making), and the session writes
    # below it.
    craft_session(
        remote,
        "evil",
        "below",
        [("link/file", state(remote, "absent"), state(remote, "file", b"pwned\n"))],
    )
    machines.b.ok("fetch", REMOTE)
    b = machines.b.root
    line = error_line(
        machines.b.run("apply", "--remote", REMOTE, "nested", "1", "--skip-conflicts")
    )
    assert "link/file below link" in line
    line = error_line(
        machines.b.run(
            "extract", "--remote", REMOTE, "--session", "nested", "1", str(tmp_path / "x")
        )
    )
    assert "link/file below link" in line
    (b / "link").symlink_to(outside)
    before = snapshot(b)
    line = error_line(machines.b.run("apply", "--remote", REMOTE, "below", "1"))
    assert "link/file (refused: its folder link is a symlink" in line, line
    done = machines.b.run("apply", "--remote", REMOTE, "below", "1", "--skip-conflicts")
    assert done.returncode == 2, done
    assert snapshot(b) == before
    assert everything_under(outside) == set()


def test_content_that_is_not_what_was_recorded_is_refused(project: Path, tmp_path: Path) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": LINES})
    machines.a.turn("s1", "one", ["a.txt"], lambda: (project / "a.txt").write_bytes(b"x\n"))
    machines.a.ok("push", "--all")
    remote = machines.remote
    forged = state(remote, "file", b"pwned\n")
    forged["xxh"] = "0" * 16
    craft_session(remote, "evil", "forged", [("a.txt", state(remote, "file", LINES), forged)])
    machines.b.ok("fetch", REMOTE)
    line = error_line(machines.b.run("apply", "--remote", REMOTE, "forged", "1"))
    assert "not what the session recorded" in line, line
    assert (machines.b.root / "a.txt").read_bytes() == LINES
