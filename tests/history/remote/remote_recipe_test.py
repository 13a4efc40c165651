"""The cloud-agent recipe of docs/remote.md, executed end to end.

A "cloud" machine (a HOME, a REWIND_HOME and a shallow clone of its own, as a CI job has) gets
rewind's Claude Code hooks from the real installer; the agent's turns are the hook commands the
installed settings file holds, run as Claude Code runs them (through the shell, in the project,
with the payloads it sends), with the files really changed between the before and after events.
The CI step after the agent pushes; then the cloud machine is deleted, home and clone. A
"reviewer" machine (another HOME, a clone at another path) fetches the session and reads it
with ``sessions``, ``show`` and the TUI. With ``[remote] backup``, no final step is needed: the
background pusher the Stop hook asked for sends the closed turn by itself.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from rewind.tui.app import RewindApp
from rewind.tui.file_list import FileList
from tests.conftest import error_line, ok, run_rewind, snapshot
from tests.support.agent_payloads import ClaudeCode, Payload
from tests.support.git import git
from tests.support.watchers import free_port, stop_residents
from tests.tui.app_test import SIZE, diff_shown, prompts

PROJECT_ID = "calc-recipe"
CALC = "def add(a, b):\n    return a + b\n"
CALC_WITH_MUL = CALC + "\n\ndef mul(a, b):\n    return a * b\n"
TEST_MUL = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
SECRET = "API_KEY=sk-do-not-push\n"
SESSION = "7f3c2a10-5b1e-4c44-9d0e-recipe000001"
BACKUP_WAIT = 20.0  # seconds the background pusher may take (it batches for 2 s first)


class Machine:
    """One machine: its own HOME (and git configuration in it) and REWIND_HOME."""

    def __init__(self, folder: Path, name: str | None = None) -> None:
        self.folder = folder
        self.home = folder / "home"
        self.home.mkdir(parents=True)
        self.env = {
            "HOME": str(self.home),
            "REWIND_HOME": str(self.home / ".local" / "share" / "rewind"),
            "GIT_CONFIG_GLOBAL": str(self.home / ".gitconfig"),  # git's default place
            "REWIND_MACHINE": name or "",
            # Its Claude Code hooks post to a resident of its own (rewind.resident).
            "REWIND_RESIDENT_PORT": str(free_port()),
        }

    def git(self, *arguments: str, cwd: Path | None = None) -> str:
        """git as this machine runs it: with its HOME and its git configuration."""
        return git(*arguments, cwd=cwd, env=self.env)

    def rewind(self, *arguments: str, cwd: Path) -> str:
        return ok(*arguments, cwd=cwd, env=self.env).stdout


class ClaudeCodeHooks:
    """Claude Code's side of the hooks: the commands of the installed settings file, chosen by
    event and matcher as Claude Code chooses them, run through the shell in the project."""

    def __init__(self, settings: Path, project: Path, machine: Machine) -> None:
        self.groups: dict[str, list[dict[str, Any]]] = json.loads(settings.read_text())["hooks"]
        self.project = project
        self.machine = machine
        self.runs = 0

    def hooks(self, payload: Payload) -> list[dict[str, Any]]:
        tool = str(payload.get("tool_name", ""))
        found = []
        for group in self.groups.get(str(payload["hook_event_name"]), []):
            matcher = group.get("matcher")
            if matcher and not re.search(matcher, tool):
                continue
            found += [hook for hook in group["hooks"] if hook["type"] in ("command", "http")]
        return found

    def tool_call(self, call: tuple[Payload | None, Payload], change: Callable[[], object]) -> None:
        """A tool call: its PreToolUse, the change it makes to the files, its PostToolUse."""
        before, after = call
        assert before is not None
        self.send(before)
        change()
        self.send(after)

    def send(self, payload: Payload) -> None:
        hooks = self.hooks(payload)
        assert hooks, f"no hook installed for {payload['hook_event_name']}"
        env = {**os.environ, **self.machine.env, "CLAUDE_PROJECT_DIR": str(self.project)}
        for hook in hooks:
            if hook["type"] == "http":
                post_as_claude_code(hook, payload, env)
                self.runs += 1
                continue
            done = subprocess.run(
                hook["command"],
                shell=True,
                cwd=self.project,
                input=json.dumps(payload),
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done
            self.runs += 1


def post_as_claude_code(hook: dict[str, Any], payload: Payload, env: dict[str, str]) -> None:
    """An HTTP hook as Claude Code runs it: the event POSTed to its URL with its headers (the
    variables it allows interpolated); a failure is reported and the session goes on."""
    headers = {"Content-Type": "application/json"}
    for name, value in hook.get("headers", {}).items():
        for variable in hook.get("allowedEnvVars", []):
            value = value.replace(f"${{{variable}}}", env.get(variable, ""))
        headers[name] = value
    request = urllib.request.Request(
        hook["url"], data=json.dumps(payload).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=hook.get("timeout", 30)) as answer:
            answer.read()
    except OSError:
        pass


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def agent_session(hooks: ClaudeCodeHooks, root: Path) -> None:
    """What ``claude -p`` does in the clone: two prompts, each editing real files, then the end
    of the session."""
    agent = ClaudeCode(root, SESSION)
    hooks.send(agent.prompt("Add a mul function with a test"))
    hooks.tool_call(
        agent.edit("calc.py", CALC, CALC_WITH_MUL), lambda: write(root / "calc.py", CALC_WITH_MUL)
    )
    hooks.tool_call(
        agent.write("tests/test_mul.py", TEST_MUL),
        lambda: write(root / "tests" / "test_mul.py", TEST_MUL),
    )
    hooks.send(agent.end())

    hooks.send(agent.prompt("Drop the notes and keep the API key in .env"))
    hooks.tool_call(
        agent.shell("rm notes.txt"),
        lambda: subprocess.run("rm notes.txt", shell=True, cwd=root, check=True),
    )
    hooks.tool_call(agent.write(".env", SECRET), lambda: write(root / ".env", SECRET))
    hooks.send(agent.end())

    hooks.send(agent.session_end())


@pytest.fixture(autouse=True)
def residents_stopped(tmp_path: Path) -> Iterator[None]:
    """Each machine's resident recorder, started by its hooks, is stopped at the test's end."""
    yield
    for folder in tmp_path.rglob("resident"):
        stop_residents(folder.parent)


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """The project's own repository (its origin): two commits, ``project_id`` committed."""
    root = tmp_path / "upstream" / "calc"
    root.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=root)
    (root / "calc.py").write_text(CALC)
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "calc", cwd=root)
    (root / "notes.txt").write_text("ideas: mul, div\n")
    (root / "rewind.toml").write_text(f'project_id = "{PROJECT_ID}"\n')
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "notes and rewind.toml", cwd=root)
    return root


@pytest.fixture
def sessions_remote(tmp_path: Path) -> Path:
    """The git remote the sessions go to (its own repository, not the project's origin)."""
    bare = tmp_path / "sessions.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    return bare


def remote_refs(bare: Path) -> dict[str, str]:
    listed = subprocess.run(
        ["git", "--git-dir", str(bare), "for-each-ref", "--format=%(refname) %(objectname)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(line.split(" ", 1) for line in listed.splitlines())


def every_object(bare: Path) -> bytes:
    """The contents of every object in the repository ``bare``, one after the other."""
    return subprocess.run(
        ["git", "--git-dir", str(bare), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout


def session_ref(machine: str) -> str:
    return f"refs/rewind/{PROJECT_ID}/{machine}/sessions/{SESSION}"


def cloud_checkout(machine: Path, upstream: Path) -> Path:
    """``actions/checkout`` as it comes by default: a clone of depth 1, which is shallow."""
    clone = machine / "work" / "calc"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{upstream}", str(clone)],
        check=True,
        capture_output=True,
    )
    shallow = subprocess.run(
        ["git", "rev-parse", "--is-shallow-repository"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
    )
    assert shallow.stdout.strip() == "true"
    return clone


def reviewer_checkout(tmp_path: Path, upstream: Path) -> tuple[Machine, Path]:
    """Another machine with a full clone of the project at another path."""
    reviewer = Machine(tmp_path / "reviewer")
    clone = reviewer.folder / "src" / "calc-review"
    subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True)
    return reviewer, clone


def wait_for_pusher(rewind_home: str) -> None:
    """Until no background pusher holds its lock (it may still be at work after the push)."""
    for lock in Path(rewind_home).glob("stores/*/rewind/backup.lock"):
        with open(lock) as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # blocks while the pusher runs


class TestTheRecipe:
    def test_a_ci_run_pushed_at_the_end_is_reviewed_on_another_machine(
        self,
        tmp_path: Path,
        upstream: Path,
        sessions_remote: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # The cloud machine: a throwaway HOME, its own name on the remote, a shallow clone.
        cloud = Machine(tmp_path / "cloud", name="ci-4711")
        clone = cloud_checkout(cloud.folder, upstream)
        installed = cloud.rewind("install", "claude-code", "--user", cwd=clone)
        settings = cloud.home / ".claude" / "settings.json"
        assert str(settings) in installed
        # The token's place: the HOME's git configuration, which the transport reads (here an
        # insteadOf rule, as a credential helper would be); the URL itself names no secret.
        url = "https://git.example.invalid/team/calc-sessions.git"
        cloud.git("config", "--global", f"url.{sessions_remote}.insteadOf", url)
        cloud.rewind("remote", "add", "review", url, cwd=clone)

        hooks = ClaudeCodeHooks(settings, clone, cloud)
        agent_session(hooks, clone)
        assert hooks.runs == 13  # every event ran one rewind hook

        # The CI step after the agent ('if: always()').
        pushed = cloud.rewind("push", "review", "--all", cwd=clone)
        assert pushed.startswith(f"pushed 1 session(s) to review ({url}): {SESSION}")
        assert session_ref("ci-4711") in remote_refs(sessions_remote)
        assert SECRET.encode() not in every_object(sessions_remote)
        assert CALC_WITH_MUL.encode() in every_object(sessions_remote)
        shutil.rmtree(cloud.folder)  # the job is over: its HOME, store and clone are gone

        reviewer, review_clone = reviewer_checkout(tmp_path, upstream)
        work_tree = snapshot(review_clone)
        reviewer.rewind("remote", "add", "review", str(sessions_remote), cwd=review_clone)
        fetched = reviewer.rewind("fetch", "review", cwd=review_clone)
        assert fetched.startswith("fetched from review: 1 session(s) of 1 machine(s)")

        listed = reviewer.rewind("sessions", "--remote", "review", cwd=review_clone)
        (line,) = listed.splitlines()
        assert f"review  ci-4711/{SESSION}  " in line
        assert line.endswith("claude-code")

        first = reviewer.rewind("show", "--remote", "review", "1", cwd=review_clone)
        assert first.splitlines()[0].endswith("Add a mul function with a test")
        assert "+def mul(a, b):" in first
        assert "+++ b/tests/test_mul.py" in first
        second = reviewer.rewind("show", "--remote", "review", "2", cwd=review_clone)
        assert second.splitlines()[0].endswith("Drop the notes and keep the API key in .env")
        assert "-ideas: mul, div" in second  # notes.txt, deleted by the shell command
        assert ".env: not-shared" in second  # the built-in exclusions held its content back
        shown = json.loads(
            reviewer.rewind("show", "--remote", "review", "2", "--json", cwd=review_clone)
        )
        assert sorted(item["path"] for item in shown["files"]) == [".env", "notes.txt"]

        # The TUI, on the reviewer's machine.
        monkeypatch.setenv("HOME", reviewer.env["HOME"])
        monkeypatch.setenv("REWIND_HOME", reviewer.env["REWIND_HOME"])
        app = RewindApp(str(review_clone), remote="review")

        async def review() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                first, second = prompts(app)  # the turns, the newest selected
                assert first == "Add a mul function with a test"
                assert second.startswith("[quicksave] Drop the notes")  # a shell command ran
                assert files_listed(app) == [".env", "notes.txt [quicksave]"]
                assert "-ideas: mul, div" in diff_shown(app)
                await _select_turn(pilot, up=1)
                assert files_listed(app) == ["calc.py", "tests/test_mul.py"]
                assert "+def mul(a, b):" in diff_shown(app)

        asyncio.run(review())
        assert snapshot(review_clone) == work_tree  # reading never touched the work tree

    def test_a_turn_the_killed_agent_left_open_is_closed_by_the_ci_step(
        self, tmp_path: Path, upstream: Path, sessions_remote: Path
    ) -> None:
        cloud = Machine(tmp_path / "cloud", name="ci-9")
        clone = cloud_checkout(cloud.folder, upstream)
        cloud.rewind("install", "claude-code", "--user", cwd=clone)
        cloud.rewind("remote", "add", "review", str(sessions_remote), cwd=clone)
        hooks = ClaudeCodeHooks(cloud.home / ".claude" / "settings.json", clone, cloud)
        agent = ClaudeCode(clone, SESSION)
        hooks.send(agent.prompt("Add a mul function"))
        hooks.tool_call(
            agent.edit("calc.py", CALC, CALC_WITH_MUL),
            lambda: write(clone / "calc.py", CALC_WITH_MUL),
        )
        # The job's timeout killed the agent here: no Stop, no SessionEnd.
        held = cloud.rewind("push", "review", "--all", cwd=clone)
        assert "turn 1 is still open" in held
        cloud.rewind("end", cwd=clone)  # the CI step closes it, as SessionEnd would have
        cloud.rewind("push", "review", "--all", cwd=clone)
        shutil.rmtree(cloud.folder)

        reviewer, review_clone = reviewer_checkout(tmp_path, upstream)
        reviewer.rewind("remote", "add", "review", str(sessions_remote), cwd=review_clone)
        reviewer.rewind("fetch", "review", cwd=review_clone)
        shown = reviewer.rewind("show", "--remote", "review", "1", cwd=review_clone)
        assert shown.splitlines()[0].endswith("Add a mul function")
        assert "+def mul(a, b):" in shown

    def test_backup_pushes_each_closed_turn_without_a_final_step(
        self, tmp_path: Path, upstream: Path, sessions_remote: Path
    ) -> None:
        cloud = Machine(tmp_path / "cloud", name="sandbox-1")
        clone = cloud_checkout(cloud.folder, upstream)
        cloud.rewind("install", "claude-code", cwd=clone)  # the project's file: 'rewind' on PATH
        with open(clone / "rewind.toml", "a") as toml:
            toml.write('\n[remote]\nbackup = "review"\n')
        cloud.rewind("remote", "add", "review", str(sessions_remote), cwd=clone)

        hooks = ClaudeCodeHooks(clone / ".claude" / "settings.json", clone, cloud)
        agent = ClaudeCode(clone, SESSION)
        hooks.send(agent.prompt("Add a mul function"))
        hooks.tool_call(
            agent.edit("calc.py", CALC, CALC_WITH_MUL),
            lambda: write(clone / "calc.py", CALC_WITH_MUL),
        )
        assert session_ref("sandbox-1") not in remote_refs(sessions_remote)  # the turn is open
        hooks.send(agent.end())  # Stop closes the turn and asks for a push; nothing waits for it

        deadline = time.monotonic() + BACKUP_WAIT
        while session_ref("sandbox-1") not in remote_refs(sessions_remote):
            assert time.monotonic() < deadline, "the background pusher pushed nothing"
            time.sleep(0.2)
        wait_for_pusher(cloud.env["REWIND_HOME"])
        (state,) = Path(cloud.env["REWIND_HOME"]).glob("stores/*/rewind/backup.json")
        outcome = json.loads(state.read_text())
        assert (outcome["remote"], outcome["failures"], outcome["error"]) == ("review", 0, None)
        shutil.rmtree(cloud.folder)

        reviewer, review_clone = reviewer_checkout(tmp_path, upstream)
        reviewer.rewind("remote", "add", "review", str(sessions_remote), cwd=review_clone)
        reviewer.rewind("fetch", "review", cwd=review_clone)
        shown = reviewer.rewind("show", "--remote", "review", "1", cwd=review_clone)
        assert shown.splitlines()[0].endswith("Add a mul function")
        assert "+def mul(a, b):" in shown


class TestShallowCheckouts:
    def test_without_project_id_the_push_asks_for_it_and_a_full_clone_needs_none(
        self, tmp_path: Path, upstream: Path, sessions_remote: Path
    ) -> None:
        subprocess.run(["git", "rm", "-q", "rewind.toml"], cwd=upstream, check=True)
        subprocess.run(["git", "commit", "-q", "-m", "no id"], cwd=upstream, check=True)
        cloud = Machine(tmp_path / "cloud", name="ci-1")
        clone = cloud_checkout(cloud.folder, upstream)
        cloud.rewind("install", "claude-code", "--user", cwd=clone)
        cloud.rewind("remote", "add", "review", str(sessions_remote), cwd=clone)
        hooks = ClaudeCodeHooks(cloud.home / ".claude" / "settings.json", clone, cloud)
        agent = ClaudeCode(clone, SESSION)
        hooks.send(agent.prompt("Add a mul function"))
        hooks.tool_call(
            agent.edit("calc.py", CALC, CALC_WITH_MUL),
            lambda: write(clone / "calc.py", CALC_WITH_MUL),
        )
        hooks.send(agent.session_end())

        refused = run_rewind("push", "review", "--all", cwd=clone, env=cloud.env)
        message = error_line(refused)
        assert "is a shallow clone" in message and "project_id" in message
        # fetch-depth: 0 (or 'git fetch --unshallow'): the root commit names the project.
        cloud.git("fetch", "-q", "--unshallow", cwd=clone)
        cloud.rewind("push", "review", "--all", cwd=clone)
        shutil.rmtree(cloud.folder)

        reviewer, review_clone = reviewer_checkout(tmp_path, upstream)
        reviewer.rewind("remote", "add", "review", str(sessions_remote), cwd=review_clone)
        fetched = reviewer.rewind("fetch", "review", cwd=review_clone)
        assert fetched.startswith("fetched from review: 1 session(s) of 1 machine(s)")


def files_listed(app: RewindApp) -> list[str]:
    files = app.screen.query_one(FileList)
    return sorted(str(files.get_row_at(row)[1]) for row in range(files.row_count))


async def _select_turn(pilot: Pilot[None], up: int) -> None:
    for _ in range(up):
        await pilot.press("up")
    await pilot.pause()
