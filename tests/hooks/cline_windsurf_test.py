"""Cline and Windsurf beyond the shared replay (tests/hooks/hooks_replay_test.py): the shapes only
they have (Cline's TaskStart prompt, patch and multi-command tools, the extension's string
parameters; Windsurf's post-only edits), hostile payloads, and their installs: Cline's hook
files, Windsurf's hooks.json, byte for byte, and doctor's check of both."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rewind.history.entry import DRIFT_PROMPT
from rewind.installers import Context
from rewind.installers.registry import get_target
from tests.conftest import hook, log_json, ok, run_rewind, snapshot
from tests.installers.exact_install_test import everything_under, rewind_commands
from tests.support.agent_payloads import Cline, ClineExtension, Payload, Windsurf
from tests.support.paths import HOOKS
from tests.watch.capture_programs_test import watcher_info
from tests.watch.conftest import wait_for

# The hook files Cline 3.0.65 runs that rewind needs (rewind.installers.cline is not imported
# here: importing a target module registers it, and the agents' order of registration counts).
CLINE_EVENTS = (
    "TaskStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "TaskComplete",
    "TaskCancel",
    "TaskError",
    "SessionShutdown",
)


def restore_to(turn: int, session: str) -> None:
    assert run_rewind("restore", str(turn), "--yes", "--session", session).returncode == 0


# Cline -----------------------------------------------------------------------------------------


def test_the_extensions_task_start_and_first_prompt_make_one_turn(project: Path) -> None:
    agent = ClineExtension(project)
    hook("cline", agent.prompt("Write hello"))  # TaskStart, initialTask "Write hello"
    hook(
        "cline",
        {**agent._common("UserPromptSubmit"), "userPromptSubmit": {"prompt": "Write hello"}},
    )
    before, after = agent.write("hello.txt", "hello\n")
    hook("cline", before)
    (project / "hello.txt").write_text("hello\n")
    hook("cline", after)
    hook("cline", agent.end())
    [turn] = log_json("--session", agent.session)
    assert turn["prompt"] == "Write hello"
    assert [f["path"] for f in turn["files"]] == ["hello.txt"]


def test_the_clis_task_start_alone_starts_no_turn(project: Path) -> None:
    agent = Cline(project)
    hook("cline", agent.session_start())
    hook("cline", agent.prompt("First"))
    hook("cline", agent.end())
    assert [t["prompt"] for t in log_json("--session", agent.session)] == ["First"]


def test_a_cline_patch_with_a_move_and_a_bash_rm_restore(project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    (project / "gone.txt").write_text("to delete\n")
    agent = Cline(project)
    before_all = snapshot(project)
    hook("cline", agent.prompt("Rename a.txt, add b.txt, delete gone.txt"))
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: moved.txt\n@@\n-alpha\n+ALPHA\n"
        "*** Add File: b.txt\n+bee\n*** End Patch\n"
    )
    before, after = agent._tool("apply_patch", {"input": patch})
    hook("cline", before)
    (project / "a.txt").unlink()
    (project / "moved.txt").write_text("ALPHA\n")
    (project / "b.txt").write_text("bee\n")
    hook("cline", after)
    before, after = agent._tool("bash", {"command": "rm gone.txt", "timeout_ms": 5000})
    hook("cline", before)
    (project / "gone.txt").unlink()
    hook("cline", after)
    hook("cline", agent.end())
    [turn] = log_json("--session", agent.session)
    sources = {f["path"]: f["source"] for f in turn["files"]}
    assert sources == {"a.txt": "edit", "moved.txt": "edit", "b.txt": "edit", "gone.txt": "shell"}
    restore_to(1, agent.session)
    assert snapshot(project) == before_all


@pytest.mark.parametrize(
    "tool_input",
    [
        {"commands": ["rm one.txt", {"command": "rm", "args": ["two words.txt"]}]},
        {"commands": json.dumps(["rm one.txt", "rm 'two words.txt'"])},  # the extension's strings
    ],
    ids=["list", "json-text"],
)
def test_every_command_of_run_commands_gets_its_quicksave(
    project: Path, tool_input: Payload
) -> None:
    (project / "one.txt").write_text("1\n")
    (project / "two words.txt").write_text("2\n")
    agent = Cline(project)
    before_all = snapshot(project)
    hook("cline", agent.prompt("Delete both"))
    before, after = agent._tool("run_commands", tool_input)
    if isinstance(tool_input["commands"], str):  # as the extension would send it: no call id
        before = {k: v for k, v in before.items() if k != "tool_call"}
        after = {k: v for k, v in after.items() if k != "tool_result"}
    hook("cline", before)
    subprocess.run("rm one.txt 'two words.txt'", shell=True, cwd=project, check=True)
    hook("cline", after)
    hook("cline", agent.end())
    [turn] = log_json("--session", agent.session)
    assert {f["path"]: f["source"] for f in turn["files"]} == {
        "one.txt": "shell",
        "two words.txt": "shell",
    }
    restore_to(1, agent.session)
    assert snapshot(project) == before_all


class ClineSessionFile:
    """Cline's own record of a CLI session, ``~/.cline/data/sessions/ID/ID.messages.json``, as
    3.0.65 writes it: each prompt a user message ``<user_input mode="act">TEXT</user_input>``
    stamped in milliseconds, tool results user messages too."""

    def __init__(self, session: str) -> None:
        folder = Path(os.environ["HOME"]) / ".cline" / "data" / "sessions" / session
        folder.mkdir(parents=True)
        self.path = folder / f"{session}.messages.json"
        self.messages: list[Payload] = []

    def send(self, prompt: str) -> None:
        """The person sends ``prompt``: Cline stamps it, runs the model, saves the messages."""
        wrapped = f'<user_input mode="act">{prompt}</user_input>'
        now = int(time.time() * 1000)
        self.messages.append({"role": "user", "content": [{"type": "text", "text": wrapped}]})
        self.messages[-1]["ts"] = now
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
        result = {"type": "tool_result", "tool_use_id": "call_1", "content": "ok"}
        self.messages.append({"role": "user", "content": [result], "ts": now + 1})
        self.path.write_text(json.dumps({"version": 1, "messages": self.messages}))


def sent_now(payload: Payload) -> Payload:
    """``payload`` as Cline sends it now (its ``timestamp``, ISO 8601 in UTC)."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    return {**payload, "timestamp": now.replace("+00:00", "Z")}


def test_the_clis_turns_are_named_from_clines_session_file(project: Path) -> None:
    """The CLI 3.0.65 runs no UserPromptSubmit for a prompt the person sends, and its TaskStart
    carries none: a run's first tool call begins its turn, after what changed by hand since;
    the run's end names it from Cline's session file, or, for a run with no tool call, records
    a turn of its own."""
    (project / "hello.txt").write_text("hi\n")
    agent = Cline(project)
    session_file = ClineSessionFile(agent.session)
    for prompt, change in (("Write hello", "hello\n"), ("Just answer", None), ("Shout", "HELLO\n")):
        session_file.send(prompt)
        hook("cline", sent_now(agent.session_start()))
        if change is not None:
            before, after = agent.write("hello.txt", change)
            hook("cline", before)
            (project / "hello.txt").write_text(change)
            hook("cline", after)
        hook("cline", sent_now(agent.end()))
        if prompt == "Just answer":
            (project / "hello.txt").write_text("hello by hand\n")
    log = log_json("--session", agent.session)
    assert [entry["prompt"] for entry in log] == [
        "Write hello",
        "Just answer",
        DRIFT_PROMPT,
        "Shout",
    ]
    assert [[f["source"] for f in entry["files"]] for entry in log] == [
        ["edit"],
        [],
        ["external"],
        ["edit"],
    ]
    ok("restore", "1", "--yes", "--force", "--session", agent.session)  # the hand edit too
    assert (project / "hello.txt").read_text() == "hi\n"


@pytest.mark.usefixtures("capture_on")
def test_a_hand_edit_the_watcher_recorded_before_the_runs_first_call_stays_its_own(
    project: Path,
) -> None:
    """The watcher records a hand edit between two runs in an entry of its own, open until
    the next turn; the next run's first tool call (which begins the CLI's turns) closes it
    and begins the run's turn, whose edit stays the agent's (it was folded into the watcher's
    entry, and the run's prompt lost, when the watcher was quicker than the model)."""
    (project / "hello.txt").write_text("hi\n")
    agent = Cline(project)
    session_file = ClineSessionFile(agent.session)
    session_file.send("Write hello")
    before, after = agent.write("hello.txt", "hello\n")
    hook("cline", before)
    (project / "hello.txt").write_text("hello\n")
    hook("cline", after)
    hook("cline", sent_now(agent.end()))
    wait_for(lambda: watcher_info(project).get("ready"), "the watcher to be ready")
    (project / "hello.txt").write_text("hello by hand\n")
    wait_for(
        lambda: (
            [entry["agent"] for entry in log_json("--session", agent.session)][-1:] == ["watch"]
        ),
        "the watcher to record the hand edit",
    )
    session_file.send("Shout")
    before, after = agent.edit("hello.txt", "hello", "HELLO")
    hook("cline", before)
    (project / "hello.txt").write_text("HELLO by hand\n")
    hook("cline", after)
    hook("cline", sent_now(agent.end()))
    log = log_json("--session", agent.session)
    assert [(entry["agent"], entry["prompt"]) for entry in log] == [
        ("cline", "Write hello"),
        ("watch", "changes outside the agent"),
        ("cline", "Shout"),
    ]
    assert [[f["source"] for f in entry["files"]] for entry in log] == [
        ["edit"],
        ["external"],
        ["edit"],
    ]


def test_a_session_file_too_large_to_read_leaves_the_turn_unnamed(project: Path) -> None:
    """Reading Cline's session file stays bounded: over the limit it is not read, and the turn
    is recorded without a name (never dropped)."""
    from rewind.store.input_limits import SESSION_FILE_BYTES

    agent = Cline(project)
    session_file = ClineSessionFile(agent.session)
    session_file.send("Write hello")
    with session_file.path.open("a") as padded:  # still JSON: whitespace after the object
        padded.write(" " * SESSION_FILE_BYTES)
    hook("cline", sent_now(agent.session_start()))
    before, after = agent.write("hello.txt", "hello\n")
    hook("cline", before)
    (project / "hello.txt").write_text("hello\n")
    hook("cline", after)
    hook("cline", sent_now(agent.end()))
    [turn] = log_json("--session", agent.session)
    assert turn["prompt"] == "" and [f["path"] for f in turn["files"]] == ["hello.txt"]


def test_a_session_resumed_in_a_new_process_goes_on_in_one_session(project: Path) -> None:
    """Loaded again in a new process, a CLI session's events carry a new ``taskId`` (the
    agent's conversation) and the same ``sessionContext.rootSessionId``: keyed on ``taskId``,
    each process began a rewind session of its own."""
    agent = Cline(project)
    session_file = ClineSessionFile(agent.session)
    for prompt, content in (("Write hello", "hello\n"), ("Shout", "HELLO\n")):
        session_file.send(prompt)
        hook("cline", sent_now(agent.session_start()))
        before, after = agent.write("hello.txt", content)
        hook("cline", before)
        (project / "hello.txt").write_text(content)
        hook("cline", after)
        hook("cline", sent_now(agent.end()))
        agent.resumed()
    sessions = json.loads(ok("sessions", "--json").stdout)
    assert [s["session"] for s in sessions] == [agent.session], sessions
    log = log_json("--session", agent.session)
    assert [entry["prompt"] for entry in log] == ["Write hello", "Shout"]
    restore_to(1, agent.session)
    assert not (project / "hello.txt").exists()


def test_a_payload_without_a_session_context_is_keyed_on_its_task_id(project: Path) -> None:
    """An older CLI's payload, or one of the extension's, names no ``sessionContext``."""
    agent = Cline(project)

    def bare(payload: Payload | None) -> Payload:
        assert payload is not None
        return {k: v for k, v in payload.items() if k != "sessionContext"}

    hook("cline", bare(agent.prompt("Write hello")))
    before, after = agent.write("hello.txt", "hello\n")
    hook("cline", bare(before))
    (project / "hello.txt").write_text("hello\n")
    hook("cline", bare(after))
    hook("cline", bare(agent.end()))
    [turn] = log_json("--session", agent.conversation)
    assert turn["prompt"] == "Write hello" and turn["ended"], turn


def test_a_subagents_edits_go_into_its_parents_turn(project: Path) -> None:
    """A subagent (``parent_agent_id``) runs in its parent's session (the same
    ``rootSessionId``, a ``taskId`` of its own): its edits are the parent's turn's; its task
    is no prompt of the person's, and its run's end does not close the parent's turn."""
    agent = Cline(project)
    ClineSessionFile(agent.session).send("Write both")
    hook("cline", sent_now(agent.session_start()))
    before, after = agent.write("parent.txt", "parent\n")
    hook("cline", before)
    (project / "parent.txt").write_text("parent\n")
    hook("cline", after)
    parent = (agent.conversation, agent.agent)
    agent.conversation, agent.agent = "conv_1764496800500_sub", "agent_1764496800500_sub"
    agent.parent = parent[1]
    hook("cline", agent.session_start())
    hook("cline", agent.prompt("the subagent's task"))
    before, after = agent.write("child.txt", "child\n")
    hook("cline", before)
    (project / "child.txt").write_text("child\n")
    hook("cline", after)
    hook("cline", agent.end())
    assert log_json("--session", agent.session)[-1]["ended"] is None
    (agent.conversation, agent.agent), agent.parent = parent, None
    hook("cline", sent_now(agent.end()))
    [turn] = log_json("--session", agent.session)
    assert turn["prompt"] == "Write both" and turn["ended"], turn
    assert sorted(f["path"] for f in turn["files"]) == ["child.txt", "parent.txt"]


# Windsurf --------------------------------------------------------------------------------------


def test_a_windsurf_edit_seen_only_afterwards_is_rebuilt(project: Path) -> None:
    """Hooks installed mid-conversation: no pre_write_code came before the post_write_code."""
    (project / "app.py").write_text("import os\n")
    agent = Windsurf(project)
    hook("windsurf", agent.prompt("Import sys"))
    _, after = agent.edit("app.py", "import os", "import os\nimport sys")
    (project / "app.py").write_text("import os\nimport sys\n")
    hook("windsurf", after)
    hook("windsurf", agent.end())
    restore_to(1, agent.session)
    assert (project / "app.py").read_text() == "import os\n"


def test_a_windsurf_command_in_a_subdirectory_is_saved_there(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "x.txt").write_text("x\n")
    agent = Windsurf(project)
    hook("windsurf", agent.prompt("Clean sub"))
    info: Payload = {"command_line": "rm x.txt", "cwd": str(project / "sub")}
    hook("windsurf", agent._common("pre_run_command", info))
    (project / "sub" / "x.txt").unlink()
    hook("windsurf", agent._common("post_run_command", info))
    hook("windsurf", agent.end())
    [turn] = log_json("--session", agent.session)
    assert [(f["path"], f["source"]) for f in turn["files"]] == [("sub/x.txt", "shell")]


# hostile payloads ------------------------------------------------------------------------------

HOSTILE = {
    "cline": [
        {"hookName": 7},
        {"hookName": "tool_call", "workspaceRoots": "not a list", "tool_call": []},
        {"hookName": "tool_call", "workspaceRoots": ["/nonexistent/ws"], "taskId": "t"},
        {"hookName": "tool_call", "taskId": ["x"], "tool_call": {"name": "editor", "input": 3}},
        {"hookName": "tool_call", "tool_call": {"name": "editor", "input": {"path": "/etc/x"}}},
        {
            "hookName": "tool_call",
            "tool_call": {"name": "run_commands", "input": {"commands": [1, None, {"command": 2}]}},
        },
        {
            "hookName": "PreToolUse",
            "preToolUse": {"toolName": "run_commands", "parameters": {"commands": "[unclosed"}},
        },
        {"hookName": "PostToolUse", "postToolUse": "nope"},
        {"hookName": "TaskStart", "taskStart": {"taskMetadata": {"initialTask": {"a": 1}}}},
        {"hookName": "UserPromptSubmit", "userPromptSubmit": {"prompt": "\udcff bad"}},
        {
            "hookName": "tool_call",
            "tool_call": {
                "id": "../../etc/passwd",
                "name": "bash",
                "input": {"command": "rm -rf ."},
            },
        },
    ],
    "windsurf": [
        {"agent_action_name": ["pre_write_code"]},
        {"agent_action_name": "pre_write_code", "tool_info": "a string"},
        {"agent_action_name": "pre_write_code", "tool_info": {"file_path": "/etc/passwd"}},
        {
            "agent_action_name": "post_write_code",
            "tool_info": {"file_path": "rel.txt", "edits": "x"},
        },
        {"agent_action_name": "post_write_code", "tool_info": {"file_path": 5, "edits": [1, {}]}},
        {"agent_action_name": "pre_run_command", "tool_info": {"command_line": None, "cwd": 3}},
        {
            "agent_action_name": "pre_run_command",
            "tool_info": {"command_line": "rm x", "cwd": "/nonexistent"},
        },
        {"agent_action_name": "post_cascade_response", "trajectory_id": {"a": 1}},
        {"agent_action_name": "pre_user_prompt", "tool_info": {"user_prompt": 42}},
    ],
}


@pytest.mark.parametrize(
    ("agent", "payload"),
    [(agent, payload) for agent, payloads in HOSTILE.items() for payload in payloads],
)
def test_hostile_payloads_exit_0_silently(agent: str, payload: Payload, project: Path) -> None:
    (project / "keep.txt").write_text("keep\n")
    hook(agent, payload)
    assert (project / "keep.txt").read_text() == "keep\n"


# installing Cline ------------------------------------------------------------------------------


def hooks_directory(scope: str, project: Path, home: Path) -> Path:
    return Path(get_target("cline").location(scope, Context(str(project), str(home), "rewind")))


@pytest.mark.parametrize("scope", ["user", "project"])
def test_cline_install_writes_one_script_per_event_and_uninstall_leaves_nothing(
    project: Path, isolated_home: Path, scope: str
) -> None:
    before = (everything_under(project), everything_under(isolated_home))
    result = ok("install", "cline", f"--{scope}")
    directory = hooks_directory(scope, project, isolated_home)
    assert result.stdout.splitlines()[0] == f"cline: created {directory}"
    assert "Enable Hooks" in result.stdout
    assert sorted(p.name for p in directory.iterdir()) == sorted(CLINE_EVENTS)
    for path in directory.iterdir():
        assert os.access(path, os.X_OK)
        lines = path.read_text().splitlines()
        assert lines[0] == "#!/bin/sh" and lines[-1].endswith(" hook cline")
        assert lines[-1] == ("exec rewind hook cline" if scope == "project" else lines[-1])
    assert ok("install", "cline", f"--{scope}").stdout.endswith("nothing changed.\n")
    ok("uninstall", "cline", f"--{scope}")
    home_after = [p for p in everything_under(isolated_home) if not p.startswith("rewind-home")]
    assert (everything_under(project), home_after) == before


def test_a_persons_own_cline_hook_is_never_touched(project: Path) -> None:
    directory = project / ".clinerules" / "hooks"
    directory.mkdir(parents=True)
    own = directory / "PreToolUse"
    own.write_bytes(b"#!/bin/sh\necho '{\"cancel\": false}'\n")
    own.chmod(0o700)
    (directory / "README.md").write_text("our hooks\n")
    result = ok("install", "cline")
    assert f"warning: left {own} alone" in result.stdout
    assert own.read_bytes() == b"#!/bin/sh\necho '{\"cancel\": false}'\n"
    assert (own.stat().st_mode & 0o777) == 0o700
    result = ok("uninstall", "cline")
    assert f"left {own}: it is not rewind's" in result.stdout
    assert sorted(p.name for p in directory.iterdir()) == ["PreToolUse", "README.md"]
    assert own.read_bytes() == b"#!/bin/sh\necho '{\"cancel\": false}'\n"


def test_an_edited_rewind_script_is_no_longer_rewinds(project: Path) -> None:
    ok("install", "cline")
    path = project / ".clinerules" / "hooks" / "TaskComplete"
    path.write_text(path.read_text() + "say done\n")
    ok("uninstall", "cline")
    assert path.exists()
    assert everything_under(project) == [
        ".clinerules",
        ".clinerules/hooks",
        ".clinerules/hooks/TaskComplete",
    ]


def test_the_installed_scripts_run_the_hook_as_cline_runs_them(
    project: Path, isolated_home: Path
) -> None:
    """Executed by path, with the event on standard input (the extension's way; the CLI runs
    'sh FILE' for a '#!/bin/sh' file, which is the same)."""
    ok("install", "cline", "--user")
    directory = hooks_directory("user", project, isolated_home)
    agent = Cline(project)
    (project / "f.txt").write_text("old\n")

    def run(event: str, payload: Payload) -> None:
        done = subprocess.run(
            [str(directory / event)],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=project,
            timeout=60,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")

    run("UserPromptSubmit", agent.prompt("Change f"))
    before, after = agent._tool("editor", {"path": "f.txt", "old_text": "old", "new_text": "new"})
    run("PreToolUse", before)
    (project / "f.txt").write_text("new\n")
    run("PostToolUse", after)
    run("TaskComplete", agent.end())
    restore_to(1, agent.session)
    assert (project / "f.txt").read_text() == "old\n"


# installing Windsurf ---------------------------------------------------------------------------

WINDSURF = """\
{
  // team hooks
  "hooks": {
    "pre_run_command": [
      {"command": "python3 /opt/guard.py", "show_output": true}
    ],
    "post_read_code": [{"command": "./audit.sh"}],
  },
}
"""


@pytest.mark.parametrize("scope", ["user", "project"])
def test_windsurf_install_then_uninstall_gives_back_the_same_bytes(
    project: Path, isolated_home: Path, scope: str
) -> None:
    path = Path(
        get_target("windsurf").location(scope, Context(str(project), str(isolated_home), "r"))
    )
    assert str(path).endswith(
        ".codeium/windsurf/hooks.json" if scope == "user" else ".windsurf/hooks.json"
    )
    path.parent.mkdir(parents=True)
    path.write_text(WINDSURF)
    ok("install", "windsurf", f"--{scope}")
    installed = path.read_text()
    assert "// team hooks" in installed and rewind_commands(installed, "windsurf") == 6
    assert ok("install", "windsurf", f"--{scope}").stdout.endswith("nothing changed.\n")
    ok("uninstall", "windsurf", f"--{scope}")
    assert path.read_text() == WINDSURF


def test_windsurf_install_into_nothing_then_uninstall_leaves_nothing(
    project: Path, isolated_home: Path
) -> None:
    before = (everything_under(project), everything_under(isolated_home))
    for scope in ("user", "project"):
        ok("install", "windsurf", f"--{scope}")
    data = json.loads((project / ".windsurf" / "hooks.json").read_text())
    assert data["hooks"]["pre_write_code"] == [
        {"command": "rewind hook windsurf", "show_output": False}
    ]
    for scope in ("user", "project"):
        ok("uninstall", "windsurf", f"--{scope}")
    home_after = [p for p in everything_under(isolated_home) if not p.startswith("rewind-home")]
    assert (everything_under(project), home_after) == before


def test_the_ready_made_windsurf_file_is_what_install_writes(project: Path) -> None:
    ok("install", "windsurf")
    installed = (project / ".windsurf" / "hooks.json").read_text()
    ready = HOOKS / "windsurf" / "hooks.json"
    assert json.loads(ready.read_text()) == json.loads(installed)


def test_the_ready_made_cline_scripts_are_what_install_writes(project: Path) -> None:
    ok("install", "cline")
    ready = HOOKS / "cline" / "hooks"
    installed = project / ".clinerules" / "hooks"
    assert sorted(p.name for p in ready.iterdir()) == sorted(CLINE_EVENTS)
    for path in ready.iterdir():
        assert path.read_bytes() == (installed / path.name).read_bytes()


# doctor ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", ["cline", "windsurf"])
def test_doctor_lists_the_hooks_and_runs_them(project: Path, agent: str) -> None:
    ok("install", agent)
    result = run_rewind("doctor")
    lines = [line.split(None, 2) for line in result.stdout.splitlines()]
    mine = [(level, rest) for level, target, rest in lines if target == agent]
    [(level, hook_line)] = [(lv, rest) for lv, rest in mine if rest.startswith("hook")]
    assert level == "ok", result.stdout
    assert "recorded turn 1 with probe.txt (modified)" in hook_line
    assert any(lv == "ok" and rest.startswith("project") for lv, rest in mine)
    assert not [lv for lv, _ in mine if lv == "fail"], result.stdout


def test_doctor_warns_of_cline_hooks_in_both_scopes(project: Path) -> None:
    ok("install", "cline", "--user")
    ok("install", "cline", "--project")
    result = run_rewind("doctor")
    assert "every event is recorded twice" in result.stdout


# the hook path ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "module"), [("cline", "rewind.hooks.cline"), ("windsurf", "rewind.hooks.windsurf")]
)
def test_an_edit_hook_loads_nothing_heavy(project: Path, agent: str, module: str) -> None:
    from tests.import_hygiene_test import AVOIDABLE, HEAVY, loaded_after

    (project / "a.txt").write_text("content\n")
    builder = Cline(project) if agent == "cline" else Windsurf(project)
    before, _ = builder.edit("a.txt", "content", "changed")
    code, modules = loaded_after("hook", agent, stdin=json.dumps(before))
    assert code == 0
    assert module in modules and "rewind.history.recording.turns" in modules
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]
