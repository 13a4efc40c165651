"""``rewind resume TURN``: the cut point each prompt hook takes, and the command that continues
the agent's conversation from it, refused in one sentence whenever it cannot be (the files-only
restore still works). The real clients run it in tests/clients; here the transcripts are
written the way the clients write them, and a client on PATH is a script that notes how it
was started."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from rewind.history.recording.turns import begin
from rewind.history.restoring.opening import open_current_store
from tests.conftest import error_line, hook, ok, run_rewind, store_dir
from tests.support.agent_payloads import Droid, Qwen

SESSION = "c1"


class Transcript:
    """An append-only JSON lines transcript, as Claude Code and Gemini CLI write theirs."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, *records: dict[str, Any], partial: str = "") -> None:
        with self.path.open("a") as handle:
            handle.write("".join(json.dumps(record) + "\n" for record in records) + partial)

    def digest(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def claude_prompt(project: Path, transcript: Path, text: str, agent: str = "claude-code") -> None:
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": SESSION,
        "cwd": str(project),
        "transcript_path": str(transcript),
        "prompt": text,
        "prompt_id": f"id-{text}",
    }
    hook(agent, payload)


def claude_turn(transcript: Transcript, text: str) -> None:
    """What Claude Code writes of a turn after its prompt event: the prompt, a reply, the end."""
    transcript.append(
        {"type": "user", "uuid": f"u-{text}", "version": "2.1.332", "message": {"content": text}},
        {"type": "assistant", "uuid": f"a-{text}", "version": "2.1.332"},
        {"type": "last-prompt", "lastPrompt": text},
    )


def plan(turn: int, *extra: str) -> dict[str, Any]:
    done = ok("resume", str(turn), "--session", SESSION, "--print", "--json", *extra)
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@pytest.fixture
def claude(project: Path, tmp_path: Path) -> Transcript:
    """Three prompts of Claude Code: before the first the transcript does not exist; the
    client queued the third before its prompt event."""
    transcript = Transcript(tmp_path / "agent" / f"{SESSION}.jsonl")
    transcript.path.parent.mkdir()
    claude_prompt(project, transcript.path, "one")
    claude_turn(transcript, "one")
    claude_prompt(project, transcript.path, "two")
    claude_turn(transcript, "two")
    transcript.append({"type": "queue-operation", "operation": "enqueue", "content": "three"})
    claude_prompt(project, transcript.path, "three")
    claude_turn(transcript, "three")
    return transcript


def copied(found: dict[str, Any]) -> list[dict[str, Any]]:
    at = found["argv"].index("--resume") + 1
    return [json.loads(line) for line in Path(found["argv"][at]).read_text().splitlines()]


def test_each_turn_resumes_from_a_copy_of_the_transcript_up_to_its_prompt(
    project: Path, claude: Transcript
) -> None:
    before = claude.digest()
    first = plan(1)
    assert first["argv"] == ["claude"]  # the conversation began with turn 1: a new one
    assert "began the conversation" in first["notes"][0]
    second = plan(2)
    assert second["argv"][0] == "claude" and second["argv"][-1] == "--fork-session"
    assert [r.get("uuid") for r in copied(second)] == ["u-one", "a-one", None]
    third = plan(3, "--prompt", "and now?")
    # The copy ends before the queued third prompt, which the branch replaces by its own.
    assert [r["type"] for r in copied(third)][-2:] == ["assistant", "last-prompt"]
    assert len(copied(third)) == 6
    assert third["argv"][-2:] == ["-p", "and now?"]
    assert third["cwd"] == str(project) and third["agent"] == "claude-code"
    copy = Path(third["argv"][third["argv"].index("--resume") + 1])
    assert not copy.is_relative_to(claude.path.parent)  # never beside the agent's files
    assert claude.digest() == before  # the agent's transcript is only read


def test_the_printed_command_passes_the_clients_own_arguments(
    project: Path, claude: Transcript
) -> None:
    done = ok("resume", "2", "--session", SESSION, "--print", "--", "--model", "x y")
    command = done.stdout.strip()
    assert command.startswith(f"cd {project} && claude --resume ")
    assert command.endswith("--fork-session --model 'x y'")


def test_a_line_half_written_at_the_prompt_is_after_the_cut(project: Path, tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "t.jsonl")
    claude_turn(transcript, "zero")
    transcript.append(partial='{"type": "attachment", "uuid": "half')
    claude_prompt(project, transcript.path, "one")
    assert [r["uuid"] for r in copied(plan(1))[:2]] == ["u-zero", "a-zero"]
    assert len(copied(plan(1))) == 3


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("rewritten", "no longer holds the conversation as it was"),
        ("cut short", "no longer holds the conversation as it was"),
        ("removed", "is gone (the agent removes old conversations)"),
        (
            "newer client",
            "is Claude Code 9.0.1, and rewind resumes conversations of Claude Code 2.1.x only",
        ),
    ],
)
def test_a_transcript_that_changed_is_refused_and_the_files_still_restore(
    project: Path, claude: Transcript, change: str, words: str
) -> None:
    data = claude.path.read_bytes()
    if change == "rewritten":
        claude.path.write_bytes(data.replace(b"u-one", b"u-ONE"))
    elif change == "cut short":
        claude.path.write_bytes(data[:40])
    elif change == "removed":
        claude.path.unlink()
    else:
        claude.path.write_bytes(data.replace(b"2.1.332", b"9.0.1"))
        claude_prompt(project, claude.path, "four")  # a turn taken with the newer client
        claude_turn(claude, "four")
    turn = "4" if change == "newer client" else "2"
    line = error_line(run_rewind("resume", turn, "--session", SESSION, "--print"))
    assert words in line and f"'rewind restore {turn}'" in line, line
    ok("restore", turn, "--session", SESSION, "--yes")


def test_a_later_prompt_whose_transcript_did_not_exist_is_refused_not_a_new_conversation(
    project: Path, claude: Transcript
) -> None:
    """A prompt whose transcript was gone when it came (a payload naming a file the agent
    never wrote, or one removed mid-session) is cut at the file's start, like a
    conversation's first prompt; an earlier turn of the same conversation says it was not."""
    claude.path.unlink()
    claude_prompt(project, claude.path, "four")
    done = run_rewind("resume", "4", "--session", SESSION, "--print")
    assert done.returncode == 1 and done.stdout == "", done
    line = error_line(done)
    assert f"turn 4 cannot be resumed: when its prompt came, its transcript ({claude.path})" in line
    assert "turn 3 of the same conversation came before it" in line
    assert line.endswith("restore the files alone with 'rewind restore 4'."), line
    assert "began the conversation" in plan(1)["notes"][0]  # the first turn still began it


def test_agents_and_entries_without_a_conversation_are_refused_in_one_sentence(
    project: Path, tmp_path: Path
) -> None:
    hook(
        "cline",
        {
            "hookName": "UserPromptSubmit",
            "taskId": "t1",
            "workspaceRoots": [str(project)],
            "userPromptSubmit": {"prompt": "hi"},
        },
    )
    line = error_line(run_rewind("resume", "1", "--session", "t1"))
    assert line.startswith("rewind: Cline keeps its tasks in the editor's own storage")
    hook("qwen", Qwen(project).prompt("hi"))
    line = error_line(run_rewind("resume", "1", "--session", Qwen(project).session))
    assert line.startswith("rewind: Qwen Code resumes a session only from its own chats folder")
    hook("droid", Droid(project).typed("hi"))
    line = error_line(run_rewind("resume", "1", "--session", Droid(project).session))
    assert line.startswith("rewind: Droid resumes a session only from its own sessions folder")
    ok("begin", "--session", "plain", "--prompt", "by hand")
    line = error_line(run_rewind("resume", "1", "--session", "plain"))
    assert "the turn was not recorded by an agent's hook" in line
    claude_prompt(project, tmp_path / "t.jsonl", "one")
    ok("track", "--session", SESSION, "a.txt")
    (project / "a.txt").write_text("a\n")
    ok("restore", "1", "--session", SESSION, "--yes")
    line = error_line(run_rewind("resume", "2", "--session", SESSION))
    assert "entry 2 is a restore, not a turn of the agent's" in line


def test_json_is_for_the_printed_command_only(project: Path, claude: Transcript) -> None:
    line = error_line(run_rewind("resume", "2", "--session", SESSION, "--json"))
    assert "give --print too" in line


def test_a_client_that_is_not_installed_is_named(project: Path, claude: Transcript) -> None:
    empty = project.parent / "empty-bin"
    empty.mkdir()
    done = run_rewind("resume", "2", "--session", SESSION, env={"PATH": str(empty)})
    assert "claude (Claude Code) is not on PATH" in error_line(done)


def fake_client(folder: Path, name: str, version: str) -> Path:
    """A program named ``name`` on PATH that says ``version`` and notes each start's arguments
    and directory in ``<folder>/runs``."""
    folder.mkdir(exist_ok=True)
    program = folder / name
    runs = folder / "runs"
    program.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = --version ]; then echo "{version}"; exit 0; fi\n'
        f'{{ pwd; printf "%s\\n" "$@"; echo --; }} >> "{runs}"\n'
    )
    program.chmod(0o755)
    return runs


def test_resume_starts_the_client_in_the_project(project: Path, claude: Transcript) -> None:
    runs = fake_client(project.parent / "bin", "claude", "2.1.332 (Claude Code)")
    path = f"{runs.parent}{os.pathsep}{os.environ['PATH']}"
    os.chdir(project / ".git")  # started anywhere in the project, it runs in its root
    done = run_rewind("resume", "2", "--session", SESSION, "--", "--model", "m", env={"PATH": path})
    assert done.returncode == 0, done
    lines = runs.read_text().splitlines()
    assert lines[0] == str(project)
    assert lines[1:3] == ["--resume", lines[2]] and lines[3:] == [
        "--fork-session",
        "--model",
        "m",
        "--",
    ]
    assert "the conversation up to turn 2 is read from" in done.stderr


def test_a_client_version_rewind_does_not_know_is_refused(
    project: Path, claude: Transcript
) -> None:
    runs = fake_client(project.parent / "bin", "claude", "3.0.0 (Claude Code)")
    path = f"{runs.parent}{os.pathsep}{os.environ['PATH']}"
    line = error_line(run_rewind("resume", "2", "--session", SESSION, env={"PATH": path}))
    assert "the installed client is Claude Code 3.0.0" in line and "2.1.x" in line
    assert not runs.exists()


def test_restore_with_the_conversation_puts_the_files_back_then_resumes(
    project: Path, tmp_path: Path
) -> None:
    transcript = Transcript(tmp_path / "t.jsonl")
    claude_prompt(project, transcript.path, "one")
    claude_turn(transcript, "one")
    claude_prompt(project, transcript.path, "two")
    (project / "notes.txt").write_text("first\n")
    ok("track", "--session", SESSION, "notes.txt")
    (project / "notes.txt").write_text("second\n")
    claude_turn(transcript, "two")
    runs = fake_client(project.parent / "bin", "claude", "2.1.332 (Claude Code)")
    path = f"{runs.parent}{os.pathsep}{os.environ['PATH']}"
    done = run_rewind(
        "restore", "2", "--session", SESSION, "--yes", "--conversation", env={"PATH": path}
    )
    assert done.returncode == 0, done
    assert (project / "notes.txt").read_text() == "first\n"
    assert runs.read_text().splitlines()[1] == "--resume"


def test_restore_with_the_conversation_changes_nothing_when_it_cannot_resume(
    project: Path, tmp_path: Path
) -> None:
    ok("begin", "--session", SESSION, "--prompt", "by hand")
    (project / "notes.txt").write_text("first\n")
    ok("track", "--session", SESSION, "notes.txt")
    (project / "notes.txt").write_text("second\n")
    done = run_rewind("restore", "1", "--session", SESSION, "--yes", "--conversation")
    assert "cannot resume its conversation" in error_line(done)
    assert (project / "notes.txt").read_text() == "second\n"
    line = error_line(run_rewind("restore", "1", "--path", "notes.txt", "--conversation"))
    assert "--conversation goes back to before a whole turn" in line


def test_a_transcript_that_is_a_fifo_blocks_neither_the_hook_nor_resume(
    project: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    claude_prompt(project, fifo, "one")  # would block forever on opening the fifo to read
    (project / "a.txt").write_text("a\n")
    ok("track", "--session", SESSION, "a.txt")
    assert "not a regular file" in (store_dir(project) / "rewind" / "rewind.log").read_text()
    line = error_line(run_rewind("resume", "1", "--session", SESSION, "--print"))
    assert "has no record of where Claude Code's conversation stood" in line
    regular = tmp_path / "r.jsonl"
    claude_turn(Transcript(regular), "zero")
    claude_prompt(project, regular, "two")
    regular.unlink()
    os.mkfifo(regular)  # the agent's file replaced by a fifo before the resume
    line = error_line(run_rewind("resume", "2", "--session", SESSION, "--print"))
    assert "cannot be read (not a regular file)" in line


@pytest.mark.parametrize(
    ("transcript", "offset"),
    [("t\x00.jsonl", 10), ("t\ud800.jsonl", 10), ("REAL", 2**40), ("REAL", 2**62)],
)
@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_a_damaged_cut_point_is_refused_in_one_sentence(
    project: Path, tmp_path: Path, agent: str, transcript: str, offset: int
) -> None:
    """A record's transcript that no file can be named (a NUL, a lone surrogate), or an offset
    far beyond the file's end, is a transcript that cannot be read, not a crash."""
    real = Transcript(tmp_path / "t.jsonl")
    claude_turn(real, "zero")
    ok("begin", "--session", SESSION, "--prompt", "by hand")
    cut = {
        "agent": agent,
        "session": SESSION,
        "transcript": str(real.path) if transcript == "REAL" else transcript,
        "offset": offset,
        "fingerprint": "0" * 40,
    }
    begin(open_current_store(), SESSION, "hostile", agent, conversation=cut)
    line = error_line(run_rewind("resume", "2", "--session", SESSION, "--print"))
    assert "'rewind restore 2'" in line, line


def test_a_client_found_through_a_relative_path_entry_is_the_one_started(
    project: Path, claude: Transcript
) -> None:
    """PATH's relative entries name folders of the directory rewind was started in; the client
    is started in the project's root, so the one checked must be named as it was found."""
    below = project / "below"
    below.mkdir()
    runs = fake_client(below / "bin", "claude", "2.1.332 (Claude Code)")
    path = f"bin{os.pathsep}{os.environ['PATH']}"
    done = run_rewind("resume", "2", "--session", SESSION, cwd=below, env={"PATH": path})
    assert done.returncode == 0, done
    assert runs.read_text().splitlines()[:2] == [str(project), "--resume"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("removed", "is gone (the agent removes old conversations)"),
        ("newer client", "is Claude Code 9.0.1, and rewind resumes conversations of"),
    ],
)
def test_restore_with_the_conversation_checks_the_transcript_before_any_file_changes(
    project: Path, tmp_path: Path, change: str, words: str
) -> None:
    """Refused once the files were back, the way out it names ('rewind restore 2') would
    already be done; refused first, it is the right one."""
    transcript = Transcript(tmp_path / "t.jsonl")
    claude_prompt(project, transcript.path, "one")
    claude_turn(transcript, "one")
    claude_prompt(project, transcript.path, "two")
    (project / "notes.txt").write_text("first\n")
    ok("track", "--session", SESSION, "notes.txt")
    (project / "notes.txt").write_text("second\n")
    claude_turn(transcript, "two")
    if change == "removed":
        transcript.path.unlink()
    else:
        transcript.path.write_bytes(transcript.path.read_bytes().replace(b"2.1.332", b"9.0.1"))
        claude_prompt(project, transcript.path, "three")
        ok("track", "--session", SESSION, "notes.txt")
        (project / "notes.txt").write_text("third\n")
    turn = "2" if change == "removed" else "3"
    runs = fake_client(project.parent / "bin", "claude", "2.1.332 (Claude Code)")
    path = f"{runs.parent}{os.pathsep}{os.environ['PATH']}"
    for dry_run in (["--dry-run"], []):
        done = run_rewind(
            "restore", turn, "--session", SESSION, "--yes", "--conversation", *dry_run,
            env={"PATH": path},
        )  # fmt: skip
        assert words in error_line(done) and not done.stdout
    assert (project / "notes.txt").read_text() == ("second\n" if turn == "2" else "third\n")
    assert not runs.exists()


def codex_prompt(project: Path, transcript: Path, turn: str, env: dict[str, str]) -> None:
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "th1",
        "turn_id": turn,
        "cwd": str(project),
        "transcript_path": str(transcript),
        "prompt": turn,
    }
    hook("codex", payload, env=env)


def test_the_prompt_hook_opens_nothing_but_regular_files(project: Path, tmp_path: Path) -> None:
    """Opening a fifo (or a device) acts on it, even without reading: a writer waiting on the
    fifo would be let through. The client's package.json, read for its version, is no
    exception, and there a fifo would have blocked the hook for good."""
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"echo x > {fifo}"])
    try:
        time.sleep(0.2)  # the writer waits for a reader
        codex_prompt(project, fifo, "t1", {})
        time.sleep(0.2)
        assert writer.poll() is None  # still waiting
    finally:
        writer.kill()
        writer.wait()
    root = tmp_path / "codex-package"
    root.mkdir()
    os.mkfifo(root / "package.json")
    transcript = Transcript(tmp_path / "rollout.jsonl")
    transcript.append({"type": "session_meta"})
    codex_prompt(project, transcript.path, "t2", {"CODEX_MANAGED_PACKAGE_ROOT": str(root)})
    (project / "a.txt").write_text("a\n")
    ok("track", "--session", "th1", "a.txt")
    assert "not a regular file" in (store_dir(project) / "rewind" / "rewind.log").read_text()
    assert json.loads(ok("show", "2", "--session", "th1", "--json").stdout)["conversation"]


def test_a_prompt_the_client_would_take_for_an_option_is_refused(
    project: Path, claude: Transcript
) -> None:
    line = error_line(run_rewind("resume", "2", "--session", SESSION, "--prompt=-rf", "--print"))
    assert "begins with '-'" in line


def test_a_transcript_path_relative_to_the_agents_directory_is_kept_absolute(
    project: Path,
) -> None:
    (project / "t.jsonl").write_text('{"type": "user", "uuid": "u0", "version": "2.1.332"}\n')
    hook(
        "claude-code",
        {
            "hook_event_name": "UserPromptSubmit",
            "session_id": SESSION,
            "cwd": str(project),
            "transcript_path": "t.jsonl",
            "prompt": "one",
        },
        cwd=project.parent,
    )
    shown = json.loads(ok("show", "1", "--session", SESSION, "--json").stdout)
    assert shown["conversation"]["transcript"] == str(project / "t.jsonl")
