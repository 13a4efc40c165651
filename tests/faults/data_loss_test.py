"""Each way rewind was found to lose a record, reproduced for real; every test here failed before
its fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from rewind.store.home import store_dir_for
from rewind.store.objects import ObjectReader, ObjectWriter
from tests.conftest import error_line, hook, log_json, ok, run_rewind, store_dir
from tests.support.agent_payloads import ClaudeCode, Payload

SESSION = "s1"
THREE_HOURS = 3 * 60 * 60


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def hook_log(project: Path) -> str:
    log = store_dir(project) / "rewind" / "rewind.log"
    return log.read_text() if log.exists() else ""


class TestObjectsReused:
    def test_recording_the_same_content_again_freshens_its_object(self, project: Path) -> None:
        writer = ObjectWriter(str(project / "store"))
        oid = writer.write_blob(b"same content\n")
        path = Path(writer.path_of(oid))
        age(path, THREE_HOURS)
        writer.write_blob(b"same content\n")
        assert time.time() - path.stat().st_mtime < 60

    def test_gc_keeps_an_old_object_written_again_before_anything_names_it(
        self, project: Path
    ) -> None:
        Path("a.txt").write_text("one\n")
        ok("track", "--session", SESSION, "a.txt")
        ok("end", "--session", SESSION)
        writer = ObjectWriter(str(store_dir(project)))
        # A blob nothing names, left from long ago (a forgotten session, say)...
        oid = writer.write_blob(b"recorded again by a hook that has not appended yet\n")
        age(Path(writer.path_of(oid)), THREE_HOURS)
        # ...which a hook records again, then gc runs before the hook names it in its turn.
        writer.write_blob(b"recorded again by a hook that has not appended yet\n")
        ok("gc")
        data = ObjectReader(str(store_dir(project))).read_blob(oid)
        assert data == b"recorded again by a hook that has not appended yet\n"

    def test_a_damaged_object_is_written_again_not_reused(self, project: Path) -> None:
        Path("a.txt").write_text("precious\n")
        ok("track", "--session", SESSION, "a.txt")
        ok("end", "--session", SESSION)
        [entry] = log_json("--session", SESSION)
        oid = entry["files"][0]["before"]["oid"]
        loose = store_dir(project) / "objects" / oid[:2] / oid[2:]
        loose.chmod(0o644)
        loose.write_bytes(loose.read_bytes()[:5])  # truncated
        assert run_rewind("check").returncode == 1
        ok("begin", "--session", SESSION)
        ok("track", "--session", SESSION, "a.txt")  # the same content again
        ok("end", "--session", SESSION)
        assert "0 problem(s)" in ok("check").stdout
        Path("a.txt").write_text("changed\n")
        ok("restore", "1", "--session", SESSION, "--yes", "--force")
        assert Path("a.txt").read_text() == "precious\n"


class TestDamagedRef:
    def test_an_empty_ref_stops_recording_instead_of_restarting_the_session(
        self, project: Path
    ) -> None:
        agent = ClaudeCode(project, session=SESSION)
        Path("a.txt").write_text("one\n")
        for prompt in ("first", "second"):
            hook("claude-code", agent.prompt(prompt))
            before, after = agent.edit("a.txt", "one", "one")
            assert before is not None
            hook("claude-code", before)
            hook("claude-code", after)
        ref = store_dir(project) / "refs" / "rewind" / "sessions" / SESSION
        tip = ref.read_text().strip()
        ref.write_text("")
        hook("claude-code", agent.prompt("third"))
        before, _ = agent.edit("a.txt", "one", "two")
        assert before is not None
        hook("claude-code", before)
        assert ref.read_text() == ""  # never overwritten with a new history
        assert "damaged" in hook_log(project)
        assert "damaged" in error_line(run_rewind("log", "--session", SESSION))
        check = run_rewind("check")
        assert check.returncode == 1
        assert f"update-ref refs/rewind/sessions/{SESSION} {tip}" in check.stderr
        ref.write_text(tip + "\n")  # the repair 'rewind check' names
        assert [entry["prompt"] for entry in log_json("--session", SESSION)] == [
            "first",
            "second",
        ]


class TestInterruptedRestore:
    @staticmethod
    def restore_journal_of(project: Path, pid: int) -> Path:
        """A restore carried out, then its journal put back as if process ``pid`` had been
        killed between its rename steps."""
        Path("a.txt").write_text("one\n")
        ok("track", "--session", SESSION, "a.txt")
        Path("a.txt").write_text("two\n")
        ok("end", "--session", SESSION)
        ok("restore", "1", "--session", SESSION, "--yes")
        restore_id = log_json("--session", SESSION)[-1]["id"]
        journal = store_dir(project) / "rewind" / "restore-journal.json"
        journal.write_text(json.dumps({"session": SESSION, "entry": restore_id, "pid": pid}))
        return journal

    def test_the_next_command_removes_the_temporary_files_of_a_killed_restore(
        self, project: Path
    ) -> None:
        dead = subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            text=True,
            capture_output=True,
            check=True,
        )
        pid = int(dead.stdout)
        # What a restore killed between its rename steps leaves: its journal and a temporary
        # sibling of the file it was replacing.
        journal = self.restore_journal_of(project, pid)
        litter = project / f".a.txt.rewind-{pid}-1.tmp"
        litter.write_text("half\n")
        unrelated = project / ".a.txt.rewind-1-1.tmp"  # another process's: not ours to remove
        unrelated.write_text("someone else's\n")
        ok("log", "--session", SESSION)
        assert not litter.exists()
        assert unrelated.exists()
        assert not journal.exists()
        assert Path("a.txt").read_text() == "one\n"

    def test_a_live_restorers_temporary_files_are_left_alone(self, project: Path) -> None:
        alive = os.getpid()  # this test's process: a restorer that is still running
        self.restore_journal_of(project, alive)
        in_flight = project / f".a.txt.rewind-{alive}-7.tmp"
        in_flight.write_text("being written\n")
        ok("log", "--session", SESSION)
        assert in_flight.exists()


class TestProjectRootOutsideGit:
    def test_an_edit_above_the_agents_directory_is_recorded(self, tmp_path: Path) -> None:
        root = tmp_path / "plain"
        (root / "sub").mkdir(parents=True)
        (root / "a.py").write_text("original\n")
        agent = ClaudeCode(root, session=SESSION)
        hook("claude-code", agent.prompt("edit a.py"))  # the session starts at the root
        agent.root = root / "sub"  # the agent's shell moved into sub/
        before, after = agent.edit("../a.py", "original", "edited")
        assert before is not None
        hook("claude-code", before)
        (root / "a.py").write_text("edited\n")
        hook("claude-code", after)
        ok("restore", "1", "--session", SESSION, "--yes", cwd=root)
        assert (root / "a.py").read_text() == "original\n"

    def test_the_agents_project_directory_is_the_root(self, tmp_path: Path) -> None:
        root = tmp_path / "plain"
        (root / "sub").mkdir(parents=True)
        (root / "a.py").write_text("original\n")
        agent = ClaudeCode(root / "sub", session=SESSION)
        env = {"CLAUDE_PROJECT_DIR": str(root)}
        # the very first event comes from sub/
        hook("claude-code", agent.prompt("edit a.py"), env=env)
        before, after = agent.edit("../a.py", "original", "edited")
        assert before is not None
        hook("claude-code", before, env=env)
        (root / "a.py").write_text("edited\n")
        hook("claude-code", after, env=env)
        assert os.path.isdir(store_dir_for(os.fsencode(os.path.realpath(root))))
        ok("restore", "1", "--session", SESSION, "--yes", cwd=root)
        assert (root / "a.py").read_text() == "original\n"


class TestClaudeCodeReportedOriginal:
    """PostToolUse with no PreToolUse record: what ``tool_response`` says for certain is used."""

    def _post_only(self, project: Path, after: Payload) -> None:
        agent = ClaudeCode(project, session=SESSION)
        hook("claude-code", agent.prompt("go"))
        hook("claude-code", after)
        ok("end", "--session", SESSION)

    def test_a_write_over_a_large_file_is_never_taken_for_a_creation(self, project: Path) -> None:
        Path("big.bin").write_text("x" * 100)
        agent = ClaudeCode(project, session=SESSION)
        _, after = agent.write("big.bin", "small now\n")
        response = after["tool_response"]
        assert isinstance(response, dict)
        response["originalFile"] = None  # what Write sends for an old text over 10 MiB
        Path("big.bin").write_text("small now\n")
        self._post_only(project, after)
        [entry] = log_json("--session", SESSION)
        assert entry["files"][0]["before"]["kind"] == "unknown"
        run_rewind("restore", "1", "--session", SESSION, "--yes")
        assert Path("big.bin").exists()  # not deleted as "did not exist before"

    def test_a_file_an_edit_created_is_not_given_an_empty_pre_image(self, project: Path) -> None:
        agent = ClaudeCode(project, session=SESSION)
        _, after = agent.edit("new.txt", "", "hello\n")  # originalFile: ""
        Path("new.txt").write_text("hello\n")
        self._post_only(project, after)
        [entry] = log_json("--session", SESSION)
        assert entry["files"][0]["before"]["kind"] == "unknown"
        run_rewind("restore", "1", "--session", SESSION, "--yes")
        assert Path("new.txt").read_text() == "hello\n"  # never emptied

    def test_a_write_that_created_a_file_is_undone_by_removing_it(self, project: Path) -> None:
        agent = ClaudeCode(project, session=SESSION)
        _, after = agent.write("made.txt", "new\n")  # its response says "create"
        Path("made.txt").write_text("new\n")
        self._post_only(project, after)
        ok("restore", "1", "--session", SESSION, "--yes")
        assert not Path("made.txt").exists()

    def test_a_pre_tool_use_record_wins_over_the_reported_text(self, project: Path) -> None:
        Path("a.txt").write_text("true original\n")
        agent = ClaudeCode(project, session=SESSION)
        hook("claude-code", agent.prompt("go"))
        before, after = agent.edit("a.txt", "true original", "edited")
        assert before is not None
        hook("claude-code", before)
        response = after["tool_response"]
        assert isinstance(response, dict)
        response["originalFile"] = "something else\n"
        Path("a.txt").write_text("edited\n")
        hook("claude-code", after)
        ok("end", "--session", SESSION)
        ok("restore", "1", "--session", SESSION, "--yes")
        assert Path("a.txt").read_text() == "true original\n"


class TestPendingShellRecords:
    def test_records_of_shell_commands_that_never_finished_are_removed(self, project: Path) -> None:
        Path("a.txt").write_text("one\n")
        agent = ClaudeCode(project, session=SESSION)
        hook("claude-code", agent.prompt("go"))
        before, _ = agent.shell("rm a.txt")  # its PostToolUse never comes
        assert before is not None
        hook("claude-code", before)
        pending = store_dir(project) / "rewind" / "pending"
        [left] = list(pending.iterdir())
        age(left, 7 * 60 * 60)
        hook("claude-code", agent.prompt("next"))
        assert list(pending.iterdir()) == []


def test_a_turn_opened_after_a_restore_was_planned_is_closed_before_it(project: Path) -> None:
    import rewind
    from rewind.history.restoring.restore import apply_plan

    Path("a.txt").write_text("one\n")
    api = rewind.Project(project, session=SESSION)
    with api.turn("first") as turn:
        turn.write_text("a.txt", "two\n")
    plan = api.plan_restore(1)
    Path("b.txt").write_text("b\n")
    api.track("b.txt")  # a hook opens a new turn meanwhile
    Path("b.txt").write_text("b changed\n")
    apply_plan(api.store, plan)
    entries = log_json("--session", SESSION)
    assert [entry["kind"] for entry in entries] == ["turn", "turn", "restore"]
    assert entries[1]["ended"] is not None
    assert entries[1]["files"][0]["after"]["size"] == len("b changed\n")
    assert Path("a.txt").read_text() == "one\n"
