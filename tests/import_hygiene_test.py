"""The hook path (begin, track, end) runs once per agent tool call: it must not pay for heavy
imports. Each test runs the real command in a fresh interpreter and inspects sys.modules."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ok, run_rewind
from tests.support.agent_payloads import (
    ClaudeCode,
    Cline,
    Codex,
    Copilot,
    Cursor,
    Droid,
    Gemini,
    OpenCode,
    Pi,
    Qwen,
    Windsurf,
)

HEAVY = ("pygit2", "textual", "rich", "watchdog", "platformdirs", "detect_secrets", "requests")
# Not heavy by themselves, but each costs milliseconds the hook path does not need.
AVOIDABLE = (
    "argparse",
    "typing",
    "dataclasses",
    "tomllib",
    "hashlib",
    "importlib.metadata",
    # json compiles regular expressions at import (json + re + enum: about 7 ms);
    # rewind.store.fastjson drives the same C accelerator without them.
    "json",
    "re",
    "enum",
    # The index of entries (rewind.history.index) is for readers; hooks never read it.
    "sqlite3",
)

PROGRAM = """
import sys
from rewind.cli import main
code = main(sys.argv[1:])
print(code, *sorted(sys.modules))
"""


def json_text(**fields: object) -> str:
    import json  # in this test process only, never in the probed one

    return json.dumps(fields)


def loaded_after(
    *arguments: str, stdin: str = "", cwd: Path | None = None, project: Path | None = None
) -> tuple[int, set[str]]:
    """The exit code of ``rewind ARGUMENTS`` in a fresh interpreter, and the modules it
    loaded; ``project``: Claude Code's CLAUDE_PROJECT_DIR for it."""
    extra = {"CLAUDE_PROJECT_DIR": str(project)} if project is not None else {}
    completed = subprocess.run(
        [sys.executable, "-c", PROGRAM, *arguments],
        cwd=cwd,
        env={**os.environ, **extra},
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    code, *modules = completed.stdout.strip().splitlines()[-1].split()
    return int(code), set(modules)


@pytest.mark.parametrize(
    "arguments",
    [
        ("begin", "--session", "s", "--prompt", "hello", "--agent", "test"),
        ("track", "--session", "s", "a.txt", "new.txt"),
        ("end", "--session", "s"),
    ],
    ids=["begin", "track", "end"],
)
def test_hook_commands_load_nothing_heavy(project: Path, arguments: tuple[str, ...]) -> None:
    (project / "a.txt").write_text("content\n")
    subprocess.run(
        [sys.executable, "-m", "rewind", "begin", "--session", "s"], check=True, capture_output=True
    )
    code, modules = loaded_after(*arguments)
    assert code == 0
    assert "rewind.history.recording.turns" in modules  # the command really ran
    assert not [name for name in HEAVY if name in modules]
    assert not [name for name in AVOIDABLE if name in modules]


def test_importing_the_cli_loads_nothing_heavy() -> None:
    code = "import sys, rewind, rewind.cli; print(' '.join(sorted(sys.modules)))"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    modules = set(completed.stdout.split())
    assert "rewind.cli" in modules
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]


def test_other_commands_do_use_argparse(project: Path) -> None:
    """Guards the test above against passing for the wrong reason (a broken probe)."""
    subprocess.run([sys.executable, "-m", "rewind", "begin"], check=True, capture_output=True)
    _, modules = loaded_after("status")
    assert "argparse" in modules


def test_an_edit_hook_loads_nothing_heavy(project: Path) -> None:
    (project / "a.txt").write_text("content\n")
    payload = json_text(
        session_id="s",
        cwd=str(project),
        hook_event_name="PreToolUse",
        tool_name="Edit",
        tool_input={"file_path": f"{project}/a.txt", "old_string": "c", "new_string": "d"},
        tool_use_id="t1",
    )
    code, modules = loaded_after("hook", "claude-code", stdin=payload)
    assert code == 0
    assert "rewind.hooks.claude_code" in modules and "rewind.history.recording.turns" in modules
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]


@pytest.mark.parametrize(
    ("agent", "fields"),
    [
        ("claude-code", {"hook_event_name": "UserPromptSubmit", "prompt_id": "p"}),
        ("gemini", {"hook_event_name": "BeforeAgent"}),
        ("codex", {"hook_event_name": "UserPromptSubmit", "turn_id": "t"}),
        ("pi", {"event": "prompt", "leaf_id": "a1b2c3d4", "script": "/x/pi-coding-agent/c.js"}),
    ],
)
def test_a_prompt_that_takes_the_conversations_cut_point_loads_nothing_heavy(
    project: Path, tmp_path: Path, agent: str, fields: dict[str, str]
) -> None:
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text('{"type":"user","version":"2.1.332"}\n' * 200)
    payload = json_text(
        session_id="s",
        cwd=str(project),
        transcript_path=str(transcript),
        session_file=str(transcript),  # Pi's extension names it so
        prompt="hi",
        **fields,
    )
    code, modules = loaded_after("hook", agent, stdin=payload)
    assert code == 0
    assert (
        "rewind.hooks.conversation_cuts" in modules and "rewind.history.recording.turns" in modules
    )
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]
    done = run_rewind("resume", "1", "--session", "s", "--print")
    assert "has no record of where" not in done.stderr  # the cut point was taken


@pytest.mark.parametrize(
    ("agent", "fields", "stop"),
    [
        ("claude-code", {"hook_event_name": "UserPromptSubmit"}, {"hook_event_name": "Stop"}),
        ("gemini", {"hook_event_name": "BeforeAgent"}, {"hook_event_name": "AfterAgent"}),
        (
            "codex",
            {"hook_event_name": "UserPromptSubmit", "turn_id": "t"},
            {"hook_event_name": "Stop"},
        ),
    ],
)
def test_keeping_the_conversation_loads_nothing_heavy(
    project: Path, tmp_path: Path, agent: str, fields: dict[str, str], stop: dict[str, str]
) -> None:
    """With ``[conversation] keep``, the prompt hook keeps the transcript's slice and the end
    of the turn the reply, on the hook path's own object writer."""
    (project / "rewind.toml").write_text("[conversation]\nkeep = true\n")
    ok("begin", "--session", "other")  # makes the store
    ok("begin", "--session", "other")  # reads the TOML once, and keeps what it held there
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text('{"type":"user","version":"2.1.332"}\n' * 200)
    common = {"session_id": "s", "cwd": str(project), "transcript_path": str(transcript)}
    code, modules = loaded_after("hook", agent, stdin=json_text(prompt="hi", **common, **fields))
    assert code == 0 and "rewind.history.kept_conversation" in modules
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]
    reply = {"last_assistant_message": "Done.", "prompt_response": "Done."}
    code, modules = loaded_after("hook", agent, stdin=json_text(**common, **stop, **reply))
    assert code == 0
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]
    shown = run_rewind("show", "1", "--session", "s", "--json")
    assert '"reply": "Done."' in shown.stdout, shown


def test_a_copilot_hook_loads_nothing_heavy(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Copilot's toolArgs come as a JSON string inside the JSON payload: parsed without json."""
    (project / "a.txt").write_text("content\n")
    monkeypatch.setenv("REWIND_COPILOT_EVENT", "preToolUse")
    arguments = json_text(path=f"{project}/a.txt", old_str="c", new_str="d")
    payload = json_text(
        sessionId="s", timestamp=1, cwd=str(project), toolName="edit", toolArgs=arguments
    )
    code, modules = loaded_after("hook", "copilot", stdin=payload)
    assert code == 0
    assert "rewind.hooks.copilot" in modules and "rewind.history.recording.turns" in modules
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]


def test_the_git_pre_commit_hook_loads_nothing_heavy(project: Path) -> None:
    (project / "a.txt").write_text("content\n")
    code, modules = loaded_after("hook", "git")
    assert code == 0
    assert "rewind.hooks.git_precommit" in modules and "subprocess" in modules  # git ran
    # subprocess brings re and enum (about 5 ms, once per commit attempt): only heavy
    # packages are ruled out here.
    assert not [name for name in HEAVY if name in modules]
    log = subprocess.run(
        [sys.executable, "-m", "rewind", "log", "--session", "git"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "a.txt" in log.stdout  # and the commit attempt was recorded


def test_a_project_with_a_rewind_toml_reads_toml_once(project: Path) -> None:
    """Reading TOML costs a hook about 15 ms (tomllib brings re, typing, enum): what the file
    held is kept in the store, and read again only once the file changes."""
    (project / "a.txt").write_text("content\n")
    config = project / "rewind.toml"
    config.write_text('max_file_size = 4\n[remote]\nexclude = ["secret/*"]\n')
    ok("begin", "--session", "s", "--prompt", "start")  # makes the store
    _, modules = loaded_after("begin", "--session", "s", "--prompt", "hello")
    assert "tomllib" in modules  # the first read with a store to keep it in
    code, modules = loaded_after("track", "--session", "s", "a.txt")
    assert code == 1  # a.txt is larger than 4 bytes: said, and recorded without content
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]
    config.write_text("max_file_size = 1048576\n")  # changed: read again, and obeyed
    _, modules = loaded_after("begin", "--session", "s", "--prompt", "again")
    assert "tomllib" in modules
    (project / "b.txt").write_text("content\n")
    code, modules = loaded_after("track", "--session", "s", "b.txt")
    assert code == 0 and "tomllib" not in modules
    from tests.conftest import log_json

    entries = log_json("--session", "s")
    states = {f["path"]: f["before"]["kind"] for e in entries for f in e["files"]}
    assert states == {"a.txt": "too-large", "b.txt": "file"}, states
    config.write_text("max_file_size = -1\n")  # broken now: said, not hidden by what was kept
    broken = subprocess.run(
        [sys.executable, "-m", "rewind", "status"], capture_output=True, text=True
    )
    assert "max_file_size must be a number of bytes" in broken.stdout + broken.stderr


@pytest.mark.parametrize(
    "builder",
    [ClaudeCode, Codex, Gemini, Cursor, Copilot, Cline, Windsurf, Pi, Qwen, OpenCode, Droid],
    ids=lambda builder: builder.name,
)
def test_every_agents_prompt_and_first_edit_load_nothing_heavy(
    project: Path, builder: Callable[[Path], Any]
) -> None:
    """A prompt's events, then the first edit's before-event: for Droid, which sends no prompt,
    that event begins the turn and reads the session's transcript."""
    import json  # in this test process only, never in the probed one

    (project / "a.txt").write_text("content\n")
    agent = builder(project)
    sent = agent.prompt("Change a.txt")
    before, after = agent.edit("a.txt", "content", "changed")
    events = [*(sent if isinstance(sent, list) else [sent] if sent else [])]
    events.append(before if before is not None else after)
    for event in events:
        code, modules = loaded_after("hook", agent.name, stdin=json.dumps(event))
        assert code == 0
        assert "rewind.history.recording.turns" in modules  # the event was recorded
        assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules], event
    # The edit's event reads no conversation: only a prompt takes a cut point or keeps one.
    assert not [name for name in PROMPT_ONLY if name in modules]
    # Droid's first edit begins the turn; Cursor's afterFileEdit (no tool hooks) rebuilds the
    # pre-image from what the turns before recorded.
    if agent.name not in ("droid", "cursor"):
        assert not [name for name in (*TURN_BOUNDARY_ONLY, *RARE) if name in modules]
    if agent.name not in ("droid", "gemini"):  # they pair shell calls by its key
        assert SHELL_ONLY not in modules


# What only a prompt's event (or a turn's end) loads: every other event is spared them.
PROMPT_ONLY = ("rewind.hooks.conversation_cuts", "rewind.history.kept_conversation")
# What only a shell call's events (and a prompt's) load.
SHELL_ONLY = "rewind.hooks.pending_shell_calls"
# What only an event without a session id loads (or a command naming none).
RARE = ("rewind.history.sessions",)
# What only a turn's beginning or end loads (drift, a restore waiting, packing, backups).
TURN_BOUNDARY_ONLY = (
    "rewind.history.background",
    "rewind.history.recording.drift",
    "rewind.history.restore_journal",
    "rewind.store.auto_gc",
    "rewind.store.backup_trigger",
)
