"""``rewind demo``: a scripted Claude Code session on a throwaway project, then the TUI on it.

Everything happens in one temporary directory: the project (``project/``, a git work tree) and
the rewind home that holds its store (``rewind-home/``), so nothing of the person's own stores
is read or written. Every event goes through a real ``rewind hook claude-code`` process with the
payload Claude Code sends (see docs/integrations/claude-code.md), and every file change is made
the way the agent would make it: the Edit and Write tools change the file between their pre- and
post-hooks, and shell commands really run in ``/bin/sh``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from typing import Any

from rewind.errors import UserError
from rewind.store.git_program import GitMissing, run_git

Payload = dict[str, Any]

AGENT = "claude-code"
PROJECT = "project"
HOME = "rewind-home"

INITIAL_FILES: dict[str, bytes] = {
    "calc.py": b"def add(a, b):\n    return a + b\n\n\ndef mean(values):\n"
    b"    return sum(values) / len(values)\n",
    "README.md": b"# calc\n\nA tiny calculator: `add` and `mean` in calc.py.\n",
    "notes.txt": b"TODO: handle None in add()\nTODO: mean() of nothing\n",
    # The first bytes of a PNG: a binary file, as a diff shows it.
    "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06"
    + bytes(range(256)),
}


class ClaudeCode:
    """The payloads Claude Code sends its hooks, for one session in one directory."""

    def __init__(self, directory: str, session: str) -> None:
        self.directory = directory
        self.session = session
        self.calls = 0

    def _common(self, event: str) -> Payload:
        return {
            "session_id": self.session,
            "transcript_path": os.path.join(
                os.path.expanduser("~"), ".claude", "projects", "demo", f"{self.session}.jsonl"
            ),
            "cwd": self.directory,
            "permission_mode": "default",
            "hook_event_name": event,
        }

    def prompt(self, text: str) -> Payload:
        return {**self._common("UserPromptSubmit"), "prompt": text}

    def tool(self, name: str, tool_input: Payload, response: Payload) -> tuple[Payload, Payload]:
        self.calls += 1
        identity = {
            "tool_name": name,
            "tool_input": tool_input,
            "tool_use_id": f"toolu_demo{self.calls:04d}",
        }
        before = {**self._common("PreToolUse"), **identity}
        after = {
            **self._common("PostToolUse"),
            **identity,
            "tool_response": response,
            "duration_ms": 12,
        }
        return before, after

    def stop(self) -> Payload:
        return {**self._common("Stop"), "stop_hook_active": False}


class Replay:
    """Runs the agent's side: hook processes around real changes to the project's files."""

    def __init__(self, project: str, environment: dict[str, str], session: str) -> None:
        self.project = project
        self.environment = environment
        self.agent = ClaudeCode(project, session)
        self.out = sys.stdout

    def hook(self, payload: Payload) -> None:
        completed = subprocess.run(
            [sys.executable, "-m", "rewind", "hook", AGENT],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=self.project,
            env=self.environment,
            timeout=120,
            check=False,
        )
        if completed.returncode != 0:
            raise UserError(
                f"the demo's hook process failed ({completed.returncode}): "
                f"{completed.stderr.strip() or completed.stdout.strip()}"
            )

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def prompt(self, text: str) -> None:
        self.say(f"prompt: {text}")
        self.hook(self.agent.prompt(text))

    def edit(self, path: str, old: str, new: str) -> None:
        self.say(f"  Edit  {path}")
        absolute = os.path.join(self.project, path)
        tool_input = {"file_path": absolute, "old_string": old, "new_string": new}
        before, after = self.agent.tool(
            "Edit", {**tool_input, "replace_all": False}, {"filePath": absolute, "success": True}
        )
        self.hook(before)
        with open(absolute, encoding="utf-8") as handle:
            text = handle.read()
        assert old in text, (path, old)
        with open(absolute, "w", encoding="utf-8") as handle:
            handle.write(text.replace(old, new, 1))
        self.hook(after)

    def by_hand(self, path: str, old: str, new: str) -> None:
        """A person's edit between two prompts: no hook sees it; the project's watcher does (a
        person's pause gives the one the first prompt started time to be ready: the demo waits
        for it, up to 10 s), else the next prompt's begin."""
        self.say(f"you, by hand: edit {path}")
        self._wait_for_the_watcher(10.0)
        absolute = os.path.join(self.project, path)
        with open(absolute, encoding="utf-8") as handle:
            text = handle.read()
        assert old in text, (path, old)
        with open(absolute, "w", encoding="utf-8") as handle:
            handle.write(text.replace(old, new, 1))

    def _wait_for_the_watcher(self, seconds: float) -> None:
        import glob
        import time

        home = self.environment.get("REWIND_HOME", "")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for info in glob.glob(os.path.join(home, "stores", "*", "rewind", "watch.json")):
                try:
                    with open(info, encoding="utf-8") as handle:
                        if json.load(handle).get("ready"):
                            return
                except (OSError, ValueError):
                    pass
            if not watching_here(self.environment):
                return  # no watcher is coming
            time.sleep(0.05)

    def write(self, path: str, content: str) -> None:
        self.say(f"  Write {path}")
        absolute = os.path.join(self.project, path)
        before, after = self.agent.tool(
            "Write",
            {"file_path": absolute, "content": content},
            {"filePath": absolute, "success": True},
        )
        self.hook(before)
        os.makedirs(os.path.dirname(absolute), exist_ok=True)
        with open(absolute, "w", encoding="utf-8") as handle:
            handle.write(content)
        self.hook(after)

    def bash(self, command: str) -> None:
        self.say(f"  Bash  {command}")
        before, after = self.agent.tool(
            "Bash",
            {"command": command, "description": "run"},
            {"stdout": "", "stderr": "", "interrupted": False},
        )
        self.hook(before)
        # As for the agent, a command that fails (BSD sed wants 'sed -i ""') is no reason to stop.
        subprocess.run(
            ["/bin/sh", "-c", command], cwd=self.project, env=self.environment, check=False
        )
        self.hook(after)

    def stop(self) -> None:
        self.hook(self.agent.stop())


def watching_here(environment: dict[str, str]) -> bool:
    """Whether the demo's hooks start a watcher (capture, on Linux, not turned off)."""
    from rewind.watch.capture import ENVIRONMENT
    from rewind.watch.channel import supported

    off = environment.get(ENVIRONMENT, "").strip().lower() in ("0", "false", "off", "no")
    return supported() and not off


def play_session(replay: Replay) -> None:
    """Four turns: edits, a new file, a deleted file, binary files, shell quicksaves; and an
    edit by hand between two prompts, which the project's watcher keeps as a change outside the
    agent (or, without capture, the next prompt as a change outside rewind)."""
    replay.prompt("Make add() treat None as 0 and add a test")
    replay.edit("calc.py", "    return a + b\n", "    return (a or 0) + (b or 0)\n")
    replay.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_none_is_zero():\n    assert add(None, 2) == 2\n",
    )
    replay.stop()
    replay.by_hand("tests/test_calc.py", "def test_none_is_zero", "def test_none_counts_as_zero")

    replay.prompt("The TODOs are done: drop notes.txt, and guard mean() against no values")
    replay.bash("rm notes.txt")
    replay.edit(
        "calc.py",
        "    return sum(values) / len(values)\n",
        "    if not values:\n        return 0.0\n    return sum(values) / len(values)\n",
    )
    replay.stop()

    replay.prompt("Use the new logo, and keep the old one as logo-old.png")
    replay.bash("cp logo.png logo-old.png")
    # A shell command that writes bytes: the quicksave records logo.png before the redirection.
    replay.bash(r"printf '\211PNG\r\n\032\n\000\000\000\rIHDR new logo \377\376' > logo.png")
    replay.edit("README.md", "# calc\n", "# calc\n\n![logo](logo.png)\n")
    replay.stop()

    replay.prompt("Rename calc.py to arith.py")
    replay.bash("mv calc.py arith.py && sed -i 's/calc/arith/' tests/test_calc.py README.md")
    replay.stop()


def make_project(base: str) -> str:
    project = os.path.join(base, PROJECT)
    os.makedirs(project)
    for name, content in INITIAL_FILES.items():
        with open(os.path.join(project, name), "wb") as handle:
            handle.write(content)
    try:
        run_git(None, "init", "-q", project, what="making the demo's project")
    except GitMissing:  # the project root is the top of a git work tree: a bare .git marks it
        os.mkdir(os.path.join(project, ".git"))
    return project


def demo_environment(base: str) -> dict[str, str]:
    environment = dict(os.environ)
    environment["REWIND_HOME"] = os.path.join(base, HOME)
    for name in ("REWIND_SESSION", "CLAUDE_PROJECT_DIR"):
        environment.pop(name, None)
    return environment


def run_demo(*, tui: bool, keep: bool) -> int:
    # A terminal closed under the demo (SIGTERM, SIGHUP) still removes its directory.
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _exit_on_signal)
    base = os.path.realpath(tempfile.mkdtemp(prefix="rewind-demo-"))
    keep_told = False
    project, environment = "", {}
    try:
        project = make_project(base)
        environment = demo_environment(base)
        session = str(uuid.uuid4())
        print(f"A scripted Claude Code session on a throwaway project ({project}):", flush=True)
        play_session(Replay(project, environment, session))
        _rewind(["label", "1", "none-fixed"], project, environment, quiet=True)
        app = _tui_app() if tui else None
        if app is not None:
            _open_tui(app, project, session, environment)
            if not keep:
                print("The demo's project and its history have been removed.")
        else:
            print(flush=True)
            _rewind(["log"], project, environment)
            if keep:  # the hints below need it first
                _print_kept(base)
                keep_told = True
            _print_next_steps(keep)
    finally:
        if keep and not keep_told:
            _print_kept(base)
        elif not keep:
            if project:  # the watcher the hooks started ends with the project
                _rewind(["watch", "--stop"], project, environment, quiet=True)
            shutil.rmtree(base, ignore_errors=True)
    return 0


def _print_kept(base: str) -> None:
    print(
        f"\nKept the demo in {base}; to run rewind on it:\n"
        f"  cd {os.path.join(base, PROJECT)}\n"
        f"  export REWIND_HOME={os.path.join(base, HOME)}\n"
        f"'rm -r {base}' removes it."
    )


def _exit_on_signal(number: int, frame: object) -> None:
    raise SystemExit(128 + number)


def _rewind(
    arguments: list[str], project: str, environment: dict[str, str], quiet: bool = False
) -> None:
    sys.stdout.flush()
    completed = subprocess.run(
        [sys.executable, "-m", "rewind", *arguments],
        cwd=project,
        env=environment,
        stdout=subprocess.DEVNULL if quiet else None,
        check=False,
    )
    if completed.returncode != 0:
        raise UserError(f"'rewind {' '.join(arguments)}' failed in the demo project")


def _tui_app() -> Any:
    """The TUI's application class, when standard input and output are a terminal and the TUI
    can be imported; else None."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    import importlib

    try:
        module = importlib.import_module("rewind.tui.app")
    except ImportError:
        return None
    return getattr(module, "RewindApp", None)


def _open_tui(app: Any, project: str, session: str, environment: dict[str, str]) -> None:
    saved = {name: os.environ.get(name) for name in ("REWIND_HOME", "REWIND_SESSION")}
    os.environ["REWIND_HOME"] = environment["REWIND_HOME"]
    os.environ.pop("REWIND_SESSION", None)
    here = os.getcwd()
    try:
        os.chdir(project)
        app(project, session).run()
    finally:
        os.chdir(here)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _print_next_steps(keep: bool) -> None:
    where = "" if keep else "  (run 'rewind demo --keep' to keep the project and try these on it)\n"
    print(
        "\nWhat a person would do next:\n"
        f"{where}"
        "  rewind show 4                  what turn 4 changed (the binary logo says so)\n"
        "  rewind show 2                  the edit made by hand between turns 1 and 3\n"
        "  rewind diff 1                  from before turn 1 to the files now\n"
        "  rewind restore 3 --yes         put every file back as it was before turn 3\n"
        "  rewind undo --yes              and forward again\n"
        "  rewind tui                     browse and rewind in the terminal\n"
        f"In a project of your own: 'rewind install AGENT', AGENT one of {_agents()}."
        f"{_path_hint()}"
    )


def _agents() -> str:
    """The agents 'rewind install' takes, as a list in words."""
    from rewind.installers.registry import targets

    names = [name for name, target in targets().items() if target.hook_agent]
    return ", ".join(names[:-1]) + f" or {names[-1]}"


def _path_hint() -> str:
    """The hints above run ``rewind`` from PATH: say so when it is not there (after ``make
    demo`` it is in the checkout's .venv/bin, which no shell or agent looks in)."""
    if shutil.which("rewind") is not None:
        return ""
    here = os.path.join(os.path.dirname(sys.executable), "rewind")
    instead = f"run it as {here}, or " if os.path.exists(here) else ""
    return (
        "\nThese assume the rewind command is on your PATH, and it is not: "
        f"{instead}install rewind for real use with 'pipx install .' in its checkout."
    )
