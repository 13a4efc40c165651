"""What users install: the wheel, built from this checkout, installed into a fresh virtual
environment, and the ``rewind`` command run from there (not from the source tree) the way a
person runs it: ``--version``, the demo, the TUI under a real pseudo-terminal, ``install`` into a
temporary home, ``doctor``.

Slow (a build, a venv, an install): everything expensive happens once per run, in the
``installed_wheel`` fixture (tests/support/installed_wheel.py).
Dependencies come from the package index or pip's cache; the test skips, saying so, only when
pip can find neither.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from rewind._version import __version__
from tests.support.agent_payloads import ClaudeCode
from tests.support.installed_wheel import Installed
from tests.support.paths import HOOKS

# Files that are not modules and that an installed rewind cannot work without (or without which
# it cannot show what its docs say it has).
PACKAGE_DATA = (
    "rewind/tui/app.tcss",
    "rewind/py.typed",
    "rewind/agent_configs/README.md",
    "rewind/agent_configs/.claude-plugin/marketplace.json",
    "rewind/agent_configs/claude-code/.claude-plugin/plugin.json",
    "rewind/agent_configs/claude-code/commands/rewind-files.md",
    "rewind/agent_configs/claude-code/hooks/hooks.json",
    "rewind/agent_configs/codex/hooks.json",
    "rewind/agent_configs/copilot/rewind.json",
    "rewind/agent_configs/cursor/hooks.json",
    "rewind/agent_configs/cline/hooks/PreToolUse",
    "rewind/agent_configs/windsurf/hooks.json",
    "rewind/agent_configs/pi/rewind.js",
    "rewind/agent_configs/gemini/settings.json",
    "rewind/agent_configs/qwen/settings.json",
    "rewind/agent_configs/droid/hooks.json",
    "rewind/agent_configs/opencode/rewind.js",
    "rewind/docs/cli.md",
    "rewind/docs/restore.md",
    "rewind/docs/integrations/claude-code.md",
)
ANSI = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|[=>78])")


@pytest.fixture(scope="module")
def installed(installed_wheel: Installed, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    home = tmp_path_factory.mktemp("wheel-home")
    return installed_wheel.with_home(home)


def test_the_wheel_holds_the_package_data(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as archive:
        names = set(archive.namelist())
    missing = [name for name in PACKAGE_DATA if name not in names]
    assert not missing, f"not in {installed.wheel.name}: {missing}"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)


def test_the_installed_package_holds_hooks_as_they_are(installed: Installed) -> None:
    """The build copies hooks/ whole into the package as agent_configs/, each file with its
    bytes and its mode (Cline's hook scripts are executable)."""
    copied = installed.package() / "agent_configs"
    expected = sorted(path.relative_to(HOOKS) for path in HOOKS.rglob("*") if path.is_file())
    found = sorted(path.relative_to(copied) for path in copied.rglob("*") if path.is_file())
    assert found == expected
    for name in expected:
        source, copy = HOOKS / name, copied / name
        assert copy.read_bytes() == source.read_bytes(), name
        assert copy.stat().st_mode & 0o111 == source.stat().st_mode & 0o111, name


def test_rewind_runs_from_the_installed_package(installed: Installed, tmp_path: Path) -> None:
    where = installed.package()
    assert where.is_relative_to(installed.venv), where
    assert installed.ok("--version", cwd=tmp_path) == f"rewind {__version__}\n"


def test_the_documentation_is_readable_where_installed(
    installed: Installed, tmp_path: Path
) -> None:
    assert installed.ok("help", "restore.md", cwd=tmp_path).startswith("# Restoring files\n")
    assert "usage: rewind restore" in installed.ok("help", "restore", cwd=tmp_path)
    assert "usage: rewind log" in installed.ok("help", "log", cwd=tmp_path)
    assert "  claude-code.md   Claude Code\n" in installed.ok("help", cwd=tmp_path)


def test_the_demo_runs_without_a_tui(installed: Installed, tmp_path: Path) -> None:
    log = installed.ok("demo", "--no-tui", cwd=tmp_path)
    assert re.search(r"^session \S+ \(claude-code\)$", log, re.MULTILINE), log
    assert "Rename calc.py to arith.py" in log
    assert "A logo-old.png  binary" in log


def test_the_tui_paints_and_quits_in_a_terminal(installed: Installed, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=installed.env)
    prompt = "Greet the wheel test"
    installed.ok("begin", "--session", "s1", "--prompt", prompt, "--agent", "bot", cwd=project)
    installed.ok("track", "--session", "s1", "hello.txt", cwd=project)
    (project / "hello.txt").write_text("hello\n")
    installed.ok("end", "--session", "s1", cwd=project)

    screen = _run_in_terminal(
        [installed.rewind, "tui"], cwd=project, env=installed.env, wait_for=prompt, keys=b"q"
    )
    assert screen.status == 0, screen.text[-2000:]
    assert "hello.txt" in screen.text


def test_install_into_a_home_and_doctor(installed: Installed, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=installed.env)
    installed.ok("install", "claude-code", "--user", cwd=project)
    settings = json.loads((installed.home / ".claude" / "settings.json").read_text())
    commands = {
        hook.get("command", hook.get("url"))
        for groups in settings["hooks"].values()
        for group in groups
        for hook in group["hooks"]
    }
    port = installed.env["REWIND_RESIDENT_PORT"]
    resident = f"http://127.0.0.1:{port}/rewind/hook/claude-code"
    # The venv's interpreter without its site processing, on the installed package.
    runner = f"{installed.venv / 'bin' / 'python'} -S {installed.package() / '__main__.py'}"
    assert commands == {f"{runner} hook claude-code", resident}
    doctor = installed.run("doctor", cwd=project)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert f"runs rewind in {installed.package()}, the rewind on PATH's" in doctor.stdout
    _installed_hooks_record(installed, project, f"{runner} hook claude-code")
    # The project's file, meant to be committed, runs rewind from PATH (the venv's here).
    installed.ok("install", "codex", cwd=project)
    assert "rewind hook codex" in (project / ".codex" / "hooks.json").read_text()
    assert str(installed.venv) not in (project / ".codex" / "hooks.json").read_text()
    doctor = installed.run("doctor", cwd=project)
    assert f"runs rewind from PATH: {installed.rewind}" in doctor.stdout, doctor.stdout


def _installed_hooks_record(installed: Installed, project: Path, command: str) -> None:
    """The installed command, as Claude Code runs it: a first prompt and edit recorded by the
    hook's own process (REWIND_RESIDENT=off, as with no resident recorder: that process needs
    site-packages, xxhash, processed late), then a second prompt, which starts the resident,
    and an edit handed over to it."""
    agent = ClaudeCode(project)
    env = dict(installed.env, CLAUDE_PROJECT_DIR=str(project), REWIND_CAPTURE_PROGRAMS="0")

    def send(event: dict[str, object] | None, **extra: str) -> None:
        done = subprocess.run(
            ["sh", "-c", command],
            input=json.dumps(event),
            cwd=project,
            env=dict(env, **extra),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (done.returncode, done.stderr) == (0, ""), done

    for number in (1, 2):
        (project / "a.txt").write_text(f"before {number}\n")
        before, _after = agent.edit("a.txt", "before", "after")
        if number == 1:
            send(agent.prompt("prompt 1"), REWIND_RESIDENT="off")
            send(before, REWIND_RESIDENT="off")
            continue
        send(agent.prompt("prompt 2"))  # handled here; it starts the resident
        deadline = time.monotonic() + 20
        while not _a_resident_runs(installed.home / "rewind-home" / "resident"):
            assert time.monotonic() < deadline, "the prompt's hook started no resident"
            time.sleep(0.05)
        send(before)
    stats = next((installed.home / "rewind-home").glob("stores/*/rewind/stats/hook-calls.log"))
    events = [
        line.split(" ", 2)[2].removeprefix("agent=claude-code ")
        for line in stats.read_text().splitlines()
    ]
    assert events == [
        "event=UserPromptSubmit",
        "event=PreToolUse",
        "event=UserPromptSubmit",
        "event=PreToolUse via=forwarded",
    ]
    log = json.loads(installed.ok("log", "--json", cwd=project))
    assert [entry["prompt"] for entry in log] == ["prompt 1", "prompt 2"]
    assert all([item["path"] for item in entry["files"]] == ["a.txt"] for entry in log)


def _a_resident_runs(folder: Path) -> bool:
    """Whether a resident recorder's file there says it is ready (the hook that starts one
    writes the file first, not ready, with its own pid)."""
    for path in folder.glob("*.json"):
        try:
            if json.loads(path.read_text()).get("ready") is True:
                return True
        except (OSError, ValueError):
            continue
    return False


@dataclass
class Screen:
    status: int
    text: str


def _run_in_terminal(
    command: list[str], *, cwd: Path, env: dict[str, str], wait_for: str, keys: bytes
) -> Screen:
    """Run ``command`` on a real pseudo-terminal (80x24), wait until ``wait_for`` is painted,
    type ``keys``, and wait for the process to end."""
    import fcntl
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes the program, on the terminal's slave side
        try:
            os.chdir(cwd)
            os.execve(command[0], command, env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    output = bytearray()
    sent = False
    deadline = time.monotonic() + 45
    status: int | None = None
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the child closed the terminal
                    chunk = b""
                if not chunk:
                    break
                output += chunk
            if not sent and wait_for in _plain(output):
                os.write(fd, keys)
                sent = True
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
                break
        else:
            os.kill(pid, signal.SIGKILL)
    finally:
        if status is None:
            _, status = os.waitpid(pid, 0)
        os.close(fd)
    text = _plain(output)
    assert sent, f"{wait_for!r} never appeared on the screen: {text[-2000:]!r}"
    return Screen(status=os.waitstatus_to_exitcode(status), text=text)


def _plain(output: bytes | bytearray) -> str:
    return ANSI.sub("", bytes(output).decode("utf-8", "replace"))
