"""The shapes the real clients send (Codex 0.171.0, Gemini CLI 0.61.0, Claude Code 2.1.332; see
tests/support/agent_payloads.py), replayed through real ``rewind hook AGENT`` processes, then
rewound to every turn and compared byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import files_by_path, hook, log_json, ok, run_rewind, snapshot
from tests.hooks.hooks_replay_test import hooks_in_parallel, replace_in
from tests.support.agent_payloads import ClaudeCode, Codex, Droid, Gemini, Payload, Qwen


@pytest.fixture
def workspace(project: Path) -> Path:
    (project / "a.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "sub").mkdir()
    (project / "sub" / "victim.txt").write_text("removed from the subdirectory\n")
    (project / "victim.txt").write_text("same name, in the root: never touched\n")
    (project / "one.txt").write_text("one\n")
    (project / "two.txt").write_text("two\n")
    return project


Snapshot = dict[bytes, tuple[str, bytes, int]]


def rewinds_to_every_turn(session: str, root: Path, snapshots: list[Snapshot]) -> None:
    """Restores to before each turn (newest first), compares, undoes."""
    final = snapshot(root)
    for turn in range(len(snapshots) - 1, 0, -1):
        result = run_rewind("restore", str(turn), "--yes", "--session", session)
        assert result.returncode == 0, result
        assert snapshot(root) == snapshots[turn - 1], f"restore to before turn {turn}"
        assert run_rewind("undo", "--yes", "--session", session).returncode == 0
        assert snapshot(root) == final


def run(command: str, cwd: Path) -> None:
    subprocess.run(command, shell=True, cwd=cwd, check=True)


# Codex ------------------------------------------------------------------------------------------


def test_codex_bash_string_commands_apply_patch_and_session_end(workspace: Path) -> None:
    agent = Codex(workspace)
    snapshots = [snapshot(workspace)]
    hook("codex", agent.session_start())

    hook("codex", agent.prompt("Subtract, and clean up the subdirectory"))
    before, after = agent.edit("a.py", "    return a + b", "    return a - b")
    hook("codex", before)
    replace_in(workspace / "a.py", "return a + b", "return a - b")
    hook("codex", after)
    # Codex sends the shell's command line as one string (its workdir is not sent).
    before, after = agent.shell("cd sub && rm victim.txt")
    hook("codex", before)
    run("cd sub && rm victim.txt", workspace)
    hook("codex", after)
    hook("codex", agent.end())
    snapshots.append(snapshot(workspace))

    hook("codex", agent.prompt("Add a file, then quit before the turn ends"))
    before, after = agent.write("notes/new.txt", "a new file\n")
    hook("codex", before)
    (workspace / "notes").mkdir()
    (workspace / "notes" / "new.txt").write_text("a new file\n")
    hook("codex", after)
    open_turn = log_json("--session", agent.session)[-1]
    assert open_turn["ended"] is None
    hook("codex", agent.session_end())  # no Stop: the person quit
    snapshots.append(snapshot(workspace))

    entries = log_json("--session", agent.session)
    assert [e["turn"] for e in entries] == [1, 2]
    assert entries[-1]["ended"] is not None  # SessionEnd closed the turn
    assert {p: f["source"] for p, f in files_by_path(entries[0]).items()} == {
        "a.py": "edit",
        "sub/victim.txt": "shell",  # read in the directory the command went to
    }
    assert set(files_by_path(entries[1])) == {"notes/new.txt"}
    rewinds_to_every_turn(agent.session, workspace, snapshots)
    assert (workspace / "victim.txt").read_text() == "same name, in the root: never touched\n"


def test_codex_payloads_are_the_clients_shapes(tmp_path: Path) -> None:
    """The builders send what Codex 0.171.0's schemas require, and nothing they forbid."""
    agent = Codex(tmp_path)
    before, after = agent.shell("ls")
    assert before is not None
    assert before["tool_name"] == "Bash" and before["tool_input"] == {"command": "ls"}
    required = {"cwd", "hook_event_name", "model", "permission_mode", "session_id"}
    required |= {"tool_input", "tool_name", "tool_use_id", "transcript_path", "turn_id"}
    assert set(before) == required
    assert set(after) == required | {"tool_response"}
    assert set(agent.session_end()) == {
        "cwd",
        "hook_event_name",
        "reason",
        "session_id",
        "transcript_path",
    }


# Gemini CLI -------------------------------------------------------------------------------------


def test_gemini_shell_in_dir_path_and_concurrent_calls(workspace: Path) -> None:
    agent = Gemini(workspace)
    snapshots = [snapshot(workspace)]
    hook("gemini", agent.session_start())

    hook("gemini", agent.prompt("Clean the subdirectory"))
    before, after = agent.shell("rm victim.txt", dir_path="sub")
    hook("gemini", before)
    run("rm victim.txt", workspace / "sub")
    hook("gemini", after)
    hook("gemini", agent.end())
    snapshots.append(snapshot(workspace))
    recorded = files_by_path(log_json("--session", agent.session)[0])
    assert {p: f["source"] for p, f in recorded.items()} == {"sub/victim.txt": "shell"}

    hook("gemini", agent.prompt("Two commands at once"))
    first = agent.shell("echo ONE > one.txt")
    second = agent.shell("echo TWO > two.txt")
    hooks_in_parallel("gemini", [first[0], second[0]])
    run("echo ONE > one.txt", workspace)
    hook("gemini", first[1])
    # The first AfterTool recorded the first command's file, not the second's (still running).
    recorded = files_by_path(log_json("--session", agent.session)[1])
    assert recorded["one.txt"]["after"] is not None
    assert recorded["two.txt"]["after"] is None
    run("echo TWO > two.txt", workspace)
    hook("gemini", second[1])
    assert files_by_path(log_json("--session", agent.session)[1])["two.txt"]["after"] is not None
    hook("gemini", agent.end())
    snapshots.append(snapshot(workspace))
    rewinds_to_every_turn(agent.session, workspace, snapshots)


def test_gemini_identical_concurrent_calls_pair_oldest_first(workspace: Path) -> None:
    """Two calls with the same input: each AfterTool takes one before-event's paths."""
    agent = Gemini(workspace)
    hook("gemini", agent.prompt("Twice the same"))
    first = agent.shell("touch made.txt")
    second = agent.shell("touch made.txt")
    assert first[0] == second[0]
    hooks_in_parallel("gemini", [first[0], second[0]])
    run("touch made.txt", workspace)
    hooks_in_parallel("gemini", [first[1], second[1]])
    assert files_by_path(log_json("--session", agent.session)[0])["made.txt"]["after"] is not None
    hook("gemini", agent.end())
    assert run_rewind("restore", "1", "--yes", "--session", agent.session).returncode == 0
    assert not (workspace / "made.txt").exists()


def test_gemini_hook_prints_nothing_on_either_stream_even_with_a_problem(
    workspace: Path,
) -> None:
    """Gemini reads standard error as the answer when standard output is empty: a warning
    (here a command whose files cannot be known) goes to the log, never to stderr."""
    agent = Gemini(workspace)
    before, after = agent.shell("tar xf missing.tar", dir_path="sub")
    for payload in (agent.prompt("x"), before, after, agent.end()):
        completed = subprocess.run(
            [sys.executable, "-m", "rewind", "hook", "gemini"],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")
    status = run_rewind("status")
    assert status.returncode == 0


# Qwen Code --------------------------------------------------------------------------------------


def test_qwen_tool_results_continue_the_turn_and_a_failed_command_is_recorded(
    workspace: Path,
) -> None:
    """Qwen sends UserPromptSubmit again before each request that sends a tool's results back:
    the turn goes on. A command that exits non-zero comes back as PostToolUseFailure; a shell
    call runs in its ``directory``."""
    agent = Qwen(workspace)
    snapshots = [snapshot(workspace)]
    hook("qwen", agent.session_start())
    hook("qwen", agent.prompt("Subtract, then clean the subdirectory"))
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    hook("qwen", before)
    replace_in(workspace / "a.py", "return a + b", "return a - b")
    hook("qwen", after)
    hook("qwen", agent.tool_results_sent())
    before, after = agent.shell("rm victim.txt; exit 3", directory=str(workspace / "sub"))
    hook("qwen", before)
    run("rm victim.txt", workspace / "sub")
    hook("qwen", agent.failed(after, "Exit Code: 3"))
    hook("qwen", agent.tool_results_sent())
    hook("qwen", agent.end())
    snapshots.append(snapshot(workspace))

    entries = log_json("--session", agent.session)
    assert [(e["turn"], e["prompt"]) for e in entries] == [
        (1, "Subtract, then clean the subdirectory")
    ]
    recorded = files_by_path(entries[0])
    assert {p: f["source"] for p, f in recorded.items()} == {
        "a.py": "edit",
        "sub/victim.txt": "shell",
    }
    assert recorded["sub/victim.txt"]["after"] is not None  # the failure's after-state
    assert entries[0]["ended"] is not None
    rewinds_to_every_turn(agent.session, workspace, snapshots)


def test_qwen_prompt_without_its_provenance_starts_a_turn_only_between_turns(
    workspace: Path,
) -> None:
    """A prompt Qwen sends without ``submitted_prompt`` (typed in its Vim mode) begins a turn
    when none is open, and continues the open one otherwise."""
    agent = Qwen(workspace)
    typed = {key: value for key, value in agent.prompt("Typed in Vim mode").items()}
    del typed["submitted_prompt"]
    hook("qwen", typed)
    before, after = agent.write("one.txt", "ONE\n")
    hook("qwen", before)
    (workspace / "one.txt").write_text("ONE\n")
    hook("qwen", after)
    hook("qwen", {**typed, "prompt": "a hook's text sent with the results"})
    hook("qwen", agent.end())
    assert [e["prompt"] for e in log_json("--session", agent.session)] == ["Typed in Vim mode"]


# Droid ------------------------------------------------------------------------------------------

PATCH = """*** Begin Patch
*** Add File: notes/added.txt
+added by a patch
*** Update File: two.txt
@@
-two
+TWO
*** End Patch
"""


def test_droid_exec_runs_begin_at_their_first_tool_call_named_from_the_transcript(
    workspace: Path,
) -> None:
    """``droid exec`` sends no prompt event: the run's first tool call begins the turn, named
    by the transcript's last prompt. A command that fails gets no PostToolUse (its files are
    recorded as the turn ends); a run that called no tool is a turn all the same, and a second
    Stop of it (the hooks installed twice) adds none."""
    agent = Droid(workspace)
    snapshots = [snapshot(workspace)]
    hook("droid", agent.session_start())
    agent.prompt("Subtract, then clean the subdirectory")
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    hook("droid", before)
    replace_in(workspace / "a.py", "return a + b", "return a - b")
    hook("droid", after)
    before, _ = agent.shell("rm sub/victim.txt; exit 3")
    hook("droid", before)
    run("rm sub/victim.txt", workspace)  # exits 3: Droid sends no PostToolUse
    hook("droid", agent.end())
    hook("droid", agent.session_end())
    snapshots.append(snapshot(workspace))

    agent.prompt("Patch the notes")
    before, after = agent.patch(PATCH)
    hook("droid", before)
    (workspace / "notes").mkdir()
    (workspace / "notes" / "added.txt").write_text("added by a patch\n")
    (workspace / "two.txt").write_text("TWO\n")
    hook("droid", after)
    hook("droid", agent.end())
    snapshots.append(snapshot(workspace))

    agent.prompt("Just say hello")
    hook("droid", agent.end("Hello."))
    hook("droid", agent.end("Hello."))  # the same Stop, from the other scope's hooks

    entries = log_json("--session", agent.session)
    prompts = ["Subtract, then clean the subdirectory", "Patch the notes", "Just say hello"]
    assert [e["prompt"] for e in entries] == prompts
    assert all(entry["ended"] is not None for entry in entries)
    recorded = files_by_path(entries[0])
    assert {p: f["source"] for p, f in recorded.items()} == {
        "a.py": "edit",
        "sub/victim.txt": "shell",
    }
    assert recorded["sub/victim.txt"]["status"] == "deleted"
    assert set(files_by_path(entries[1])) == {"notes/added.txt", "two.txt"}
    assert entries[2]["files"] == []
    rewinds_to_every_turn(agent.session, workspace, snapshots)


def test_droid_prompt_event_begins_the_turn(workspace: Path) -> None:
    """Droid's terminal UI sends UserPromptSubmit: the prompt begins the turn, and its tools
    and its Stop go on in it."""
    agent = Droid(workspace)
    hook("droid", agent.typed("Shout one"))
    before, after = agent.write("one.txt", "ONE\n")
    hook("droid", before)
    (workspace / "one.txt").write_text("ONE\n")
    hook("droid", after)
    hook("droid", agent.end())
    entries = log_json("--session", agent.session)
    assert [(e["prompt"], set(files_by_path(e))) for e in entries] == [("Shout one", {"one.txt"})]
    assert entries[0]["ended"] is not None


def test_droid_without_its_transcript_still_records_the_run(workspace: Path) -> None:
    """A transcript the hook cannot read (gone, or another machine's path) leaves the turn
    without a prompt; nothing else is lost."""
    agent = Droid(workspace)
    before, after = agent.write("one.txt", "ONE\n")
    hook("droid", before)
    (workspace / "one.txt").write_text("ONE\n")
    hook("droid", after)
    stop = agent.end()
    agent.transcript.unlink()
    hook("droid", stop)
    entries = log_json("--session", agent.session)
    assert [(e["prompt"], set(files_by_path(e))) for e in entries] == [("", {"one.txt"})]
    assert entries[0]["ended"] is not None


def test_droid_with_a_fifo_for_its_transcript_records_the_run_without_waiting(
    workspace: Path,
) -> None:
    """A transcript path that names a fifo: reading it would wait for a writer that never
    comes (the hook killed at its timeout, the run's first edit unrecorded)."""
    agent = Droid(workspace)
    agent.transcript.parent.mkdir(parents=True)
    os.mkfifo(agent.transcript)
    before, after = agent.write("one.txt", "ONE\n")
    hook("droid", before)
    (workspace / "one.txt").write_text("ONE\n")
    hook("droid", after)
    hook("droid", {**agent._common("Stop"), "stop_hook_active": False})
    entries = log_json("--session", agent.session)
    assert [(e["prompt"], set(files_by_path(e))) for e in entries] == [("", {"one.txt"})]
    assert entries[0]["ended"] is not None


@pytest.mark.parametrize("transcript", ["/nowhere/nul\0.jsonl", "/nowhere/lone\ud800.jsonl"])
def test_droid_with_a_transcript_path_no_file_can_have_records_the_edit(
    workspace: Path, transcript: str
) -> None:
    """A path that names no file (a NUL byte, a lone surrogate) reads as no transcript: it
    made the run's first tool call fail as a whole, its file unrecorded before the edit."""
    agent = Droid(workspace)
    before, after = agent.edit("one.txt", "one", "ONE")
    assert before is not None
    hook("droid", {**before, "transcript_path": transcript})
    (workspace / "one.txt").write_text("ONE\n")
    hook("droid", {**after, "transcript_path": transcript})
    hook("droid", {**agent._common("Stop"), "transcript_path": transcript})
    [turn] = log_json("--session", agent.session)
    assert files_by_path(turn)["one.txt"]["status"] == "modified"
    ok("restore", "1", "--yes", "--session", agent.session)
    assert (workspace / "one.txt").read_text() == "one\n"


# Claude Code ------------------------------------------------------------------------------------


def test_claude_code_failed_edit_and_powershell(workspace: Path) -> None:
    agent = ClaudeCode(workspace)
    snapshots = [snapshot(workspace)]
    hook("claude-code", agent.prompt("Subtract"))
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    hook("claude-code", before)
    replace_in(workspace / "a.py", "return a + b", "return a - b")  # written, then it failed
    hook("claude-code", agent.failed(after, "File has been modified since read"))
    failed = files_by_path(log_json("--session", agent.session)[0])["a.py"]
    assert failed["after"] is not None, "the failure recorded the after-state at once"
    hook("claude-code", agent.end())
    snapshots.append(snapshot(workspace))

    hook("claude-code", agent.prompt("Clean up, in PowerShell"))
    command = (
        "Remove-Item -Path sub\\victim.txt -Force; Move-Item one.txt, two.txt -Destination sub"
    )
    before, after = agent.powershell(command)
    hook("claude-code", before)
    os.unlink(workspace / "sub" / "victim.txt")
    (workspace / "one.txt").rename(workspace / "sub" / "one.txt")
    (workspace / "two.txt").rename(workspace / "sub" / "two.txt")
    hook("claude-code", after)
    hook("claude-code", agent.end())
    snapshots.append(snapshot(workspace))
    recorded = files_by_path(log_json("--session", agent.session)[1])
    assert set(recorded) == {"sub/victim.txt", "one.txt", "two.txt", "sub/one.txt", "sub/two.txt"}
    assert {f["source"] for f in recorded.values()} == {"shell"}
    rewinds_to_every_turn(agent.session, workspace, snapshots)


def test_powershell_that_cannot_be_read_is_logged(workspace: Path) -> None:
    agent = ClaudeCode(workspace)
    before, after = agent.powershell("Get-ChildItem *.txt | ForEach-Object { Remove-Item $_ }")
    hook("claude-code", agent.prompt("x"))
    hook("claude-code", before)
    hook("claude-code", after)
    status = run_rewind("doctor")
    assert "PowerShell: not understood" in status.stdout


@pytest.mark.parametrize(
    ("agent", "payload"),
    [
        ("gemini", lambda root: Gemini(root).shell("rm victim.txt", dir_path="sub")[0]),
        ("claude-code", lambda root: ClaudeCode(root).powershell("Remove-Item sub/victim.txt")[0]),
        ("codex", lambda root: Codex(root).shell("cd sub && rm victim.txt")[0]),
        (
            "codex",
            lambda root: Codex(root).intercepted_patch(
                "cd sub && apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: victim.txt\n"
                "*** End Patch\nPATCH"
            ),
        ),
    ],
    ids=["gemini-shell", "claude-code-powershell", "codex-bash", "codex-bash-apply-patch"],
)
def test_the_new_shell_paths_load_nothing_heavy(
    workspace: Path, agent: str, payload: Callable[[Path], Payload]
) -> None:
    from tests.import_hygiene_test import AVOIDABLE, HEAVY, loaded_after

    code, modules = loaded_after("hook", agent, stdin=json.dumps(payload(workspace)))
    assert code == 0
    assert "rewind.quicksave.at_risk" in modules  # the quicksave ran
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]


def test_claude_code_session_end_closes_an_interrupted_turn(workspace: Path) -> None:
    """No Stop comes for a turn the person interrupted; SessionEnd (in the background) closes
    it, and the next prompt's turn is a new one."""
    agent = ClaudeCode(workspace)
    hook("claude-code", agent.prompt("Subtract"))
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    hook("claude-code", before)
    replace_in(workspace / "a.py", "return a + b", "return a - b")
    hook("claude-code", after)
    hook("claude-code", agent.session_end("prompt_input_exit"))
    [turn] = log_json("--session", agent.session)
    assert turn["ended"] is not None
    hook("claude-code", agent.prompt("Add again"))
    assert [entry["prompt"] for entry in log_json("--session", agent.session)] == [
        "Subtract",
        "Add again",
    ]
