"""Records the restore engine cannot write back never wedge the store (issue 20, items 1-3).

A path 1,100 folders deep, one longer than the system takes, a symlink target that holds a NUL
byte, is empty or is 5,000 bytes long: each is either written back (the deep path) or refused
before anything is written, in one sentence naming the file. A restore whose write fails for
what it writes is rolled back at once; an interrupted restore that cannot be finished here never
stops a command, a hook, or recording; the drill names what cannot be written back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rewind.history.filestate import fingerprint
from tests.conftest import error_line, hook, log_json, ok, run_rewind, snapshot, store_dir
from tests.faults.fault_support import make_deep, remove_tree
from tests.support.agent_payloads import ClaudeCode
from tests.support.git import git
from tests.support.two_machines import REMOTE, craft_session, everything_under, state, two_machines

DEEP = 1100  # folders: past Python's recursion limit, well within the system's path length


@pytest.fixture(autouse=True)
def deep_trees_removed(tmp_path: Path) -> Iterator[None]:
    yield
    remove_tree(tmp_path)


def restore_journal(project: Path) -> Path:
    return store_dir(project) / "rewind" / "restore-journal.json"


def everything_still_works(project: Path, session: str = "s") -> None:
    """status, log, undo's planning and a hook event: exit 0 (or one sentence), no crash."""
    for arguments in (["status"], ["log", "--session", session], ["check"]):
        result = run_rewind(*arguments)
        assert result.returncode == 0, result
        assert "Traceback" not in result.stderr and "unexpected error" not in result.stderr
    agent = ClaudeCode(project, session="after-the-fact")
    hook(agent.name, agent.prompt("still recording?"))
    (project / "later.txt").write_text("before the agent\n")
    before, after = agent.write("later.txt", "by the agent\n")
    hook(agent.name, before)
    (project / "later.txt").write_text("by the agent\n")
    hook(agent.name, after)
    hook(agent.name, agent.end())
    assert not (Path(os.environ["REWIND_HOME"]) / "crash.log").exists()
    turns = log_json("--session", "after-the-fact")
    assert [f["path"] for f in turns[-1]["files"]] == ["later.txt"]


class TestDeepPaths:
    @staticmethod
    def deep_file_deleted(project: Path) -> bytes:
        """A turn of session ``s`` that deleted a file 1,100 folders deep (and its folders)."""
        name = make_deep(project, DEEP, b"deep down\n")
        ok("begin", "--session", "s", "--prompt", "clean up")
        ok("track", "--session", "s", os.fsdecode(name))
        remove_tree(project / "a")
        ok("end", "--session", "s")
        return name

    def test_a_file_deleted_1100_folders_deep_comes_back_and_goes_again(
        self, project: Path
    ) -> None:
        name = self.deep_file_deleted(project)
        ok("restore", "1", "--yes", "--session", "s")
        assert (project / os.fsdecode(name)).read_bytes() == b"deep down\n"
        assert not restore_journal(project).exists()
        everything_still_works(project)
        ok("check", "--drill")

        ok("undo", "--yes", "--session", "s")
        assert not (project / "a").exists()  # the folders the restore made went with it

    def test_an_interrupted_restore_of_a_deep_file_is_finished_by_a_hook(
        self, project: Path
    ) -> None:
        name = self.deep_file_deleted(project)
        ok("restore", "1", "--yes", "--session", "s")
        restored = log_json("--session", "s")[-1]
        # As if the restore was killed once its entry was recorded, before it wrote the file.
        remove_tree(project / "a")
        journal = {"session": "s", "entry": restored["id"], "pid": 2**22 + 1}
        restore_journal(project).write_text(json.dumps(journal))

        agent = ClaudeCode(project, session="s2")
        hook(agent.name, agent.prompt("next"))  # the hook finishes the restore first
        assert not restore_journal(project).exists()
        assert (project / os.fsdecode(name)).read_bytes() == b"deep down\n"
        everything_still_works(project)

    def test_a_path_longer_than_the_system_takes_is_refused_when_recorded(
        self, project: Path
    ) -> None:
        name = make_deep(project, 2100, b"too deep\n")
        ok("begin", "--session", "s")
        line = error_line(run_rewind("track", "--session", "s", os.fsdecode(name)))
        assert "cannot be recorded" in line and "bytes long" in line, line

        agent = ClaudeCode(project, session="s")
        tool_input: dict[str, object] = {
            "file_path": os.fsdecode(project / os.fsdecode(name)),
            "content": "x\n",
        }
        before, _ = agent._tool("Write", tool_input, {})
        hook(agent.name, before)
        logged = (store_dir(project) / "rewind" / "rewind.log").read_text()
        assert "not recorded" in logged and "cannot be recorded" in logged
        everything_still_works(project)


# -- hostile fetched sessions: apply and extract ------------------------------------------------

LINES = b"one\ntwo\n"


def unwritable_states(remote: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """Per case, a path and the after-state no write could make here."""
    deep = "/".join(["d"] * 2040) + "/f.txt"  # 4,086 bytes: past PATH_MAX below any root
    return {
        "deep": (deep, state(remote, "file", b"deep\n")),
        "nul": ("nul-link", state(remote, "link", b"tar\0get")),
        "long": ("long-link", state(remote, "link", b"t" * 5000)),
        "empty": ("empty-link", state(remote, "link", b"")),
        "long-name-path": ("/".join(["n" * 200] * 25), state(remote, "file", b"far\n")),
    }


@pytest.mark.parametrize("case", ["deep", "nul", "long", "empty", "long-name-path"])
def test_a_fetched_record_no_write_could_make_is_refused_by_apply_and_extract(
    project: Path, tmp_path: Path, case: str
) -> None:
    machines = two_machines(project, tmp_path, {"a.txt": LINES})
    machines.a.turn("s1", "one", ["a.txt"], lambda: (project / "a.txt").write_bytes(b"x\n"))
    machines.a.ok("push", "--all")
    remote = machines.remote
    path, after = unwritable_states(remote)[case]
    craft_session(
        remote,
        "evil",
        "h",
        [
            ("a.txt", state(remote, "file", LINES), state(remote, "file", b"fine\n")),
            (path, state(remote, "absent"), after),
        ],
    )
    machines.b.ok("fetch", REMOTE)
    b = machines.b
    before = snapshot(b.root)

    refused = b.run("apply", "--remote", REMOTE, "h", "1")
    line = error_line(refused)
    assert "this system cannot write it" in line, line
    assert snapshot(b.root) == before
    applied = b.run("apply", "--remote", REMOTE, "h", "1", "--skip-conflicts")
    assert applied.returncode == 2, applied
    assert (b.root / "a.txt").read_bytes() == b"fine\n"
    for arguments in (["status"], ["log", "--remote", REMOTE, "--session", "h"]):
        result = b.run(*arguments)
        assert result.returncode == 0 and "waiting" not in result.stdout, result
    b.ok("undo", "--yes")
    assert snapshot(b.root) == before

    out = tmp_path / "out"
    extracted = b.run("extract", "--remote", REMOTE, "--session", "h", "1", str(out))
    assert extracted.returncode == 2, extracted
    assert "this system cannot write it" in extracted.stdout
    assert everything_under(out) == {"a.txt"}


# -- a restore that fails for what it writes is rolled back at once ----------------------------


def two_files_changed(project: Path) -> None:
    """Turn 1 of session ``s``: a.txt and b.txt from "X before" to "X after"."""
    (project / "a.txt").write_text("a before\n")
    (project / "b.txt").write_text("b before\n")
    ok("begin", "--session", "s")
    ok("track", "--session", "s", "a.txt", "b.txt")
    (project / "a.txt").write_text("a after\n")
    (project / "b.txt").write_text("b after\n")
    ok("end", "--session", "s")


def test_a_write_that_fails_for_what_it_writes_is_rolled_back_at_once(project: Path) -> None:
    """Through the API, as any Python program may call the engine: the second file's state
    asks for mode bits no file can have, so its write fails whatever the disk does. The first
    file, written already, gets its content back, the entry is taken off the session, and no
    journal is left for the next command to trip over."""
    two_files_changed(project)
    script = """
import sys
from rewind.errors import UserError
from rewind.history.filestate import FILE, FileState
from rewind.history.restoring.opening import open_current_store
from rewind.history.restoring.restore import apply_plan
from rewind.history.restoring.restore_plan import PlannedFile, RestorePlan
from rewind.history.session import load_head

store = open_current_store()
head = load_head(store, "s")
files = []
for name, mode in ((b"a.txt", 0o644), (b"b.txt", 2**40)):
    current = store.root.absolute(name)
    from rewind.history.filestate import capture
    now = capture(current, 1 << 20)
    target = FileState(FILE, mode=mode)
    planned = PlannedFile(name, target, now, now)
    planned.content = b"restored " + name + b"\\n"
    files.append(planned)
try:
    apply_plan(store, RestorePlan("restore", "s", head.current, files))
except UserError as error:
    print(error)
    sys.exit(1)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done
    assert "b.txt cannot be written on this system" in done.stdout, done
    assert "nothing was changed" in done.stdout
    assert (project / "a.txt").read_text() == "a after\n"  # taken back
    assert (project / "b.txt").read_text() == "b after\n"
    assert not restore_journal(project).exists()
    assert [entry["kind"] for entry in log_json("--session", "s")] == ["turn"]
    everything_still_works(project)
    ok("restore", "1", "--yes", "--session", "s")
    assert (project / "a.txt").read_text() == "a before\n"


# -- an interrupted restore that cannot be finished here ------------------------------------------


def rewrite_newest_record(
    project: Path, session: str, edit: Callable[[dict[str, Any]], None]
) -> str:
    """Rewrites the turn.json of the session's newest entry with git's plumbing (a tampered
    store, or one an older rewind wrote); returns the entry's id."""
    store = store_dir(project)
    ref = f"refs/rewind/sessions/{session}"
    tip = git("rev-parse", ref, git_dir=store).strip()
    lines = git("cat-file", "-p", f"{tip}^{{tree}}", git_dir=store).splitlines()
    record_line = next(line for line in lines if line.endswith("\tturn.json"))
    record = json.loads(git("cat-file", "blob", record_line.split()[2], git_dir=store))
    edit(record)
    blob = git("hash-object", "-w", "--stdin", input=json.dumps(record), git_dir=store).strip()
    kept = [line for line in lines if not line.endswith("\tturn.json")]
    listing = "\n".join([*kept, f"100644 blob {blob}\tturn.json"]) + "\n"
    tree = git("mktree", input=listing, git_dir=store).strip()
    parents = git("log", "-1", "--format=%P", tip, git_dir=store).split()
    message = git("log", "-1", "--format=%B", tip, git_dir=store).strip()
    parent_options = [f"-p{parent}" for parent in parents]
    commit = git("commit-tree", tree, *parent_options, "-m", message, git_dir=store).strip()
    git("update-ref", ref, commit, git_dir=store)
    return str(record["id"])


def test_an_interrupted_restore_naming_an_unwritable_path_never_wedges(project: Path) -> None:
    two_files_changed(project)
    ok("restore", "1", "--yes", "--session", "s")
    (project / "a.txt").write_text("a after\n")
    (project / "b.txt").write_text("b after\n")
    too_long = "/".join(["x"] * 2100) + "/b.txt"

    def rename_b(record: dict[str, Any]) -> None:
        for change in record["files"]:
            if change["path"] == "b.txt":
                change["path"] = too_long

    entry = rewrite_newest_record(project, "s", rename_b)
    restore_journal(project).write_text(json.dumps({"session": "s", "entry": entry}))

    finished = run_rewind("status")
    assert finished.returncode == 0, finished
    assert "this system cannot write them" in finished.stderr, finished
    assert not restore_journal(project).exists()
    assert (project / "a.txt").read_text() == "a before\n"
    assert "rewind:" not in run_rewind("status").stderr  # said once, not at every command
    everything_still_works(project)


def test_hooks_spool_while_a_restore_waits_and_undo_takes_it_back(project: Path) -> None:
    """A restore whose write failed on the disk's state waits for the next command; meanwhile
    no turn starts on top of it (finishing it needs its entry to be the newest), records are
    spooled, never lost, and 'rewind undo' takes the restore back when the cause stays."""
    (project / "a.txt").write_text("a before\n")
    (project / "sub").mkdir()
    (project / "sub" / "b.txt").write_text("b before\n")
    (project / "c.txt").write_text("c before\n")
    ok("begin", "--session", "s")
    ok("track", "--session", "s", "a.txt", "sub/b.txt")
    (project / "a.txt").write_text("a after\n")
    (project / "sub" / "b.txt").unlink()
    (project / "sub").rmdir()
    ok("end", "--session", "s")
    (project / "sub").write_text("a file where the folder was\n")
    assert run_rewind("restore", "1", "--yes", "--session", "s").returncode == 1
    assert restore_journal(project).exists()

    assert run_rewind("track", "--session", "s", "c.txt").returncode == 0
    (project / "c.txt").write_text("c changed while the restore waited\n")
    refused = run_rewind("begin", "--session", "s", "--prompt", "p")
    assert refused.returncode == 1, refused
    line = refused.stderr.splitlines()[-1]  # after the warning that it could not be finished
    assert "waits to be finished" in line and "rewind undo" in line, line
    assert [e["kind"] for e in log_json("--session", "s")] == ["turn", "restore"]
    assert restore_journal(project).exists()

    ok("undo", "--yes", "--session", "s")
    assert not restore_journal(project).exists()
    assert (project / "a.txt").read_text() == "a after\n"
    ok("begin", "--session", "s", "--prompt", "next")
    ok("end", "--session", "s")
    turns = log_json("--session", "s")
    spooled = [t for t in turns if any(f["path"] == "c.txt" for f in t["files"])]
    assert spooled, turns  # the spooled pre-image was taken in
    ok("restore", str(spooled[0]["turn"]), "--yes", "--session", "s", "--path", "c.txt")
    assert (project / "c.txt").read_text() == "c before\n"


# -- the drill ----------------------------------------------------------------------------------


def test_the_drill_names_what_cannot_be_written_back_here(project: Path) -> None:
    (project / "a.txt").write_text("a\n")
    (project / "link").symlink_to("a.txt")
    ok("begin", "--session", "s")
    ok("track", "--session", "s", "a.txt", "link")
    (project / "a.txt").write_text("a changed\n")
    ok("end", "--session", "s")
    too_long = "/".join(["x"] * 2100) + "/a.txt"
    empty = (
        subprocess.run(
            ["git", "--git-dir", str(store_dir(project)), "hash-object", "-w", "--stdin"],
            input=b"",
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )

    def break_it(record: dict[str, Any]) -> None:
        for change in record["files"]:
            if change["path"] == "a.txt":
                change["path"] = too_long
            else:  # the link's target: empty, as no symlink can have
                change["before"] = {
                    "kind": "link",
                    "oid": empty,
                    "size": 0,
                    "xxh": fingerprint(b""),
                }

    rewrite_newest_record(project, "s", break_it)
    drilled = run_rewind("check", "--drill", "--json")
    assert drilled.returncode == 1, drilled
    problems = json.loads(drilled.stdout)["problems"]
    kinds = {(p["path"][:10], p["side"], p["problem"]) for p in problems}
    deep = "x/x/x/x/x/"
    expected = {(deep, "before", "unwritable"), (deep, "after", "unwritable")}
    assert kinds == expected | {("link", "before", "unwritable")}, problems
    planned = run_rewind("restore", "1", "--dry-run", "--session", "s")
    assert "this system cannot write it back" in planned.stdout + planned.stderr, planned
