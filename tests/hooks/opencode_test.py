"""OpenCode beyond the shared replay (tests/hooks/hooks_replay_test.py): what only its plugin
sends (the prompt ``opencode run`` quotes, ``apply_patch``'s patch text, a shell call's
``workdir``, the calls of one message at once, a call that never ends, the run's end as the
command's argument, the cut point at the prompt), and the plugin itself, run by Node.js as
OpenCode's runtime runs it, against the real ``rewind hook opencode``."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from rewind.hooks.opencode import unquoted
from tests.conftest import files_by_path, hook, log_json, ok, run_rewind, snapshot
from tests.hooks.hooks_replay_test import hooks_in_parallel
from tests.support.agent_payloads import OpenCode
from tests.support.paths import HOOKS


@pytest.mark.unit
@pytest.mark.parametrize(
    ("sent", "typed"),
    [
        ('"Fix the bug"', "Fix the bug"),  # opencode run "Fix the bug"
        ('"say \\"hi\\" now"', 'say "hi" now'),  # its own quotes escaped
        ("Fix the bug", "Fix the bug"),  # typed in the TUI, or opencode run Fix the bug
        ('"a b" "c d"', '"a b" "c d"'),  # two quoted arguments: left as they came
        ('"quoted"', '"quoted"'),  # no space: run quotes nothing, the quotes are the person's
        ('"', '"'),
    ],
)
def test_the_prompt_is_named_without_the_quotes_opencode_run_adds(sent: str, typed: str) -> None:
    assert unquoted(sent) == typed


def test_a_quoted_prompt_names_its_turn_and_records_where_the_conversation_stood(
    project: Path, isolated_home: Path
) -> None:
    agent = OpenCode(project)
    prompt = agent.prompt('Write "hello" here', quoted=True)
    assert prompt["prompt"] == '"Write \\"hello\\" here"'
    hook("opencode", prompt)
    before, after = agent.write("hello.txt", "hello\n")
    hook("opencode", before)
    (project / "hello.txt").write_text("hello\n")
    hook("opencode", after)
    hook("opencode", agent.end())
    [turn] = log_json("--session", agent.session)
    assert turn["prompt"] == 'Write "hello" here' and turn["ended"] is not None
    shown = json.loads(ok("show", "1", "--session", agent.session, "--json").stdout)
    assert shown["conversation"] == {
        "agent": "opencode",
        "session": agent.session,
        "transcript": str(isolated_home / ".local" / "share" / "opencode" / "opencode.db"),
        "turn": prompt["message_id"],
    }


def test_outside_git_the_project_is_the_sessions_directory_not_opencodes_worktree(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Outside git, OpenCode gives its plugin the worktree "/" (its global project)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    agent = OpenCode(folder)
    hook("opencode", {**agent.prompt("Outside git"), "worktree": "/"}, cwd=folder)
    before, after = agent.write("a.txt", "a\n")
    assert before is not None
    hook("opencode", {**before, "worktree": "/"}, cwd=folder)
    (folder / "a.txt").write_text("a\n")
    hook("opencode", {**after, "worktree": "/"}, cwd=folder)
    [turn] = log_json("--session", agent.session, cwd=folder)
    assert [file["path"] for file in turn["files"]] == ["a.txt"]


# Codex's headers, and the same without the space after the colon: OpenCode's parser takes the
# rest of a header line after its colon, trimmed, so a file its patch changes that way is
# changed all the same, and must have been recorded before.
PATCHES = {
    "headers": (
        "*** Add File: new.txt\n+new\n"
        "*** Update File: old.txt\n@@\n-old\n+OLD\n"
        "*** Update File: moved.txt\n*** Move to: there.txt\n@@\n-moved\n+MOVED\n"
        "*** Delete File: gone.txt"
    ),
    "headers-without-a-space-after-the-colon": (
        "*** Add File:new.txt\n+new\n"
        "*** Update File:old.txt\n@@\n-old\n+OLD\n"
        "*** Update File:\tmoved.txt\n*** Move to:there.txt\n@@\n-moved\n+MOVED\n"
        "*** Delete File:gone.txt"
    ),
}


@pytest.mark.parametrize("body", list(PATCHES.values()), ids=list(PATCHES))
def test_apply_patch_records_every_file_its_patch_text_names(project: Path, body: str) -> None:
    (project / "old.txt").write_text("old\n")
    (project / "moved.txt").write_text("moved\n")
    (project / "gone.txt").write_text("gone\n")
    before_all = snapshot(project)
    agent = OpenCode(project)
    hook("opencode", agent.prompt("Patch everything"))
    before, after = agent.patch(body)
    hook("opencode", before)
    (project / "new.txt").write_text("new\n")
    (project / "old.txt").write_text("OLD\n")
    (project / "moved.txt").rename(project / "there.txt")
    (project / "there.txt").write_text("MOVED\n")
    (project / "gone.txt").unlink()
    hook("opencode", after)
    hook("opencode", agent.end())
    files = files_by_path(log_json("--session", agent.session)[0])
    assert set(files) == {"new.txt", "old.txt", "moved.txt", "there.txt", "gone.txt"}
    assert all(file["source"] == "edit" for file in files.values())
    ok("restore", "1", "--yes", "--session", agent.session)
    assert snapshot(project) == before_all


def test_a_shell_call_in_its_workdir_gets_the_quicksave_there(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "victim.txt").write_text("in sub\n")
    (project / "victim.txt").write_text("in the root: never touched\n")
    before_all = snapshot(project)
    agent = OpenCode(project)
    hook("opencode", agent.prompt("Clean up sub"))
    before, after = agent.shell("rm victim.txt", workdir="sub")
    hook("opencode", before)
    (project / "sub" / "victim.txt").unlink()
    hook("opencode", after)
    hook("opencode", agent.end())
    files = files_by_path(log_json("--session", agent.session)[0])
    assert {path: file["source"] for path, file in files.items()} == {"sub/victim.txt": "shell"}
    ok("restore", "1", "--yes", "--session", agent.session)
    assert snapshot(project) == before_all


def test_the_calls_of_one_message_run_at_once_and_one_never_ends(project: Path) -> None:
    """OpenCode starts every call of a model message at once, each after its own before-event;
    a call its permissions refuse (or that fails) has a before-event and no after-event. The
    run's end, passed as the command's argument, records what the turn holds."""
    (project / "existing.txt").write_text("old\n")
    (project / "secret.txt").write_text("secret\n")
    before_all = snapshot(project)
    agent = OpenCode(project)
    hook("opencode", agent.prompt("Three at once"))
    calls = [
        agent.write("new.txt", "one\n"),
        agent.edit("existing.txt", "old", "new"),
        agent.shell("echo hi > b.txt"),
        agent.edit("secret.txt", "secret", "nope"),  # refused: no after-event
    ]
    hooks_in_parallel("opencode", [before for before, _ in calls])
    (project / "new.txt").write_text("one\n")
    (project / "existing.txt").write_text("new\n")
    (project / "b.txt").write_text("hi\n")
    hooks_in_parallel("opencode", [after for _, after in calls[:3]])
    ended = run_rewind("hook", "opencode", json.dumps(agent.end()))  # as the plugin's child
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, "", "")
    [turn] = log_json("--session", agent.session)
    assert turn["ended"] is not None
    files = files_by_path(turn)
    assert {path: file["status"] for path, file in files.items()} == {
        "new.txt": "added",
        "existing.txt": "modified",
        "b.txt": "added",
        "secret.txt": "unchanged",
    }
    ok("restore", "1", "--yes", "--session", agent.session)
    assert snapshot(project) == before_all


def test_a_runs_end_that_comes_after_the_next_prompt_ends_nothing(project: Path) -> None:
    """The plugin does not wait for the run's end: a quick next prompt may be recorded first.
    That end names its own prompt's message, and leaves the next prompt's turn open."""
    agent = OpenCode(project)
    hook("opencode", agent.prompt("First"))
    late = agent.end()
    hook("opencode", agent.prompt("Second"))
    hook("opencode", late)
    before, after = agent.write("second.txt", "2\n")
    hook("opencode", before)
    (project / "second.txt").write_text("2\n")
    hook("opencode", after)
    first, second = log_json("--session", agent.session)
    assert first["ended"] is not None and second["ended"] is None
    assert [f["path"] for f in second["files"]] == ["second.txt"]
    hook("opencode", agent.end())
    assert log_json("--session", agent.session)[1]["ended"] is not None


def test_an_edit_hook_loads_nothing_heavy(project: Path) -> None:
    from tests.import_hygiene_test import AVOIDABLE, HEAVY, loaded_after

    (project / "a.txt").write_text("content\n")
    before, _ = OpenCode(project).edit("a.txt", "content", "changed")
    code, modules = loaded_after("hook", "opencode", stdin=json.dumps(before))
    assert code == 0
    assert "rewind.hooks.opencode" in modules and "rewind.history.recording.turns" in modules
    assert not [name for name in (*HEAVY, *AVOIDABLE) if name in modules]


# the plugin, as OpenCode's runtime runs it --------------------------------------------------------

# Loads the plugin twice with one input (installed in two config folders), then calls its hooks
# in the order OpenCode does for a prompt that writes a file (the write made between the tool's
# two hooks), a subagent's session and call, and the run's end (each hook called once more with
# nothing: it must not throw); prints each export's type and what the second load gave.
DRIVER = """
import { writeFileSync } from "node:fs";
const plugin = await import(process.argv[2]);
const again = await import(process.argv[2] + "?again");
const input = { directory: process.argv[3], worktree: process.argv[3], project: {} };
const hooks = await plugin.RewindPlugin(input);
const second = await again.RewindPlugin(input);
const session = "ses_driver", child = "ses_child";
await hooks["chat.message"](
  { sessionID: session, agent: "build" },
  { message: { id: "msg_first", role: "user" }, parts: [{ type: "text", text: '"Write it"' },
    { type: "text", text: "an attachment", synthetic: true }] },
);
const call = { tool: "write", sessionID: session, callID: "toolu_1" };
const args = { filePath: "made.txt", content: "made\\n" };
await hooks["tool.execute.before"](call, { args });
writeFileSync(process.argv[3] + "/made.txt", "made\\n");
await hooks["tool.execute.after"]({ ...call, args }, { title: "", output: "", metadata: {} });
await hooks.event({ event: { type: "session.created",
  properties: { info: { id: child, parentID: session } } } });
await hooks["chat.message"]({ sessionID: child }, { message: { id: "msg_child" },
  parts: [{ type: "text", text: "the subagent's task" }] });
const childCall = { tool: "write", sessionID: child, callID: "toolu_2" };
const childArgs = { filePath: "child.txt", content: "child\\n" };
await hooks["tool.execute.before"](childCall, { args: childArgs });
writeFileSync(process.argv[3] + "/child.txt", "child\\n");
await hooks["tool.execute.after"]({ ...childCall, args: childArgs }, {});
await hooks.event({ event: { type: "session.idle", properties: { sessionID: child } } });
await hooks["tool.execute.before"]({ tool: "read", sessionID: session, callID: "r" }, {});
for (const name of Object.keys(hooks)) await hooks[name](undefined, undefined);  // never throws
await hooks.event({ event: { type: "session.idle", properties: { sessionID: session } } });
console.log(JSON.stringify({
  exports: Object.values(plugin).map((value) => typeof value),
  second: Object.keys(second),
}));
"""


def test_the_plugin_records_a_prompt_a_write_a_subagent_and_the_end_once_each(
    project: Path, tmp_path: Path
) -> None:
    from tests.clients.npm_install import node_directory

    plugin = tmp_path / "plugins" / "rewind.mjs"  # an ES module to any Node.js
    plugin.parent.mkdir()
    plugin.write_bytes((HOOKS / "opencode" / "rewind.js").read_bytes())
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    done = subprocess.run(
        [str(node_directory() / "node"), str(driver), plugin.as_uri(), str(project)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"exports": ["function"], "second": []}
    deadline = time.monotonic() + 30
    while True:  # the run's end is a child the plugin does not wait for
        [turn] = log_json("--session", "ses_driver")
        if turn["ended"] is not None or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert turn["prompt"] == "Write it" and turn["ended"] is not None
    assert {file["path"]: file["status"] for file in turn["files"]} == {
        "made.txt": "added",
        "child.txt": "added",
    }
    shown = json.loads(ok("show", "1", "--session", "ses_driver", "--json").stdout)
    assert shown["conversation"]["turn"] == "msg_first"
    assert ok("sessions", "--ids").stdout.split() == ["ses_driver"]  # none for the subagent
    ok("restore", "1", "--yes", "--session", "ses_driver")
    assert not (project / "made.txt").exists() and not (project / "child.txt").exists()
    assert os.listdir(project) == [".git"]
