"""``rewind completion SHELL``: scripts generated from the parser, tried in a real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rewind.commands.parsing.parser import build_parser
from tests.conftest import ok, run_rewind


def complete_in_bash(script: str, words: list[str], path: str | None = None) -> list[str]:
    """What bash's completion function offers for ``words`` (the last one being typed), with
    ``path`` as PATH when given."""
    line = " ".join(words)
    program = (
        f"source /dev/stdin <<'SCRIPT'\n{script}\nSCRIPT\n"
        f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}; "
        f"COMP_LINE='{line}'; COMP_POINT={len(line)}; _shtab_rewind; "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {**os.environ, "PATH": path} if path is not None else None
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_commands_and_their_options() -> None:
    script = run_rewind("completion", "bash").stdout
    assert complete_in_bash(script, ["rewind", "lo"]) == ["log"]
    assert complete_in_bash(script, ["rewind", "log", "--gr"]) == ["--grep"]
    assert "--dry-run" in complete_in_bash(script, ["rewind", "restore", "--d"])


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_command_is_in_every_script(shell: str) -> None:
    result = run_rewind("completion", shell)
    assert result.returncode == 0, result
    parser = build_parser()
    assert parser._subparsers is not None
    choices = parser._subparsers._group_actions[0].choices
    assert isinstance(choices, dict)
    missing = [name for name in choices if name not in result.stdout]
    assert not missing, missing


def test_an_unknown_shell_is_refused_in_one_line() -> None:
    result = run_rewind("completion", "cmd.exe")
    assert (
        result.returncode == 1
        and "unknown choice 'cmd.exe' (one of bash, zsh, fish)" in result.stderr
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_agents_help_topics_and_the_projects_session_ids(
    project: Path, tmp_path: Path
) -> None:
    script = run_rewind("completion", "bash").stdout
    assert complete_in_bash(script, ["rewind", "install", "cl"]) == ["claude-code", "cline"]
    assert complete_in_bash(script, ["rewind", "uninstall", "gi"]) == ["git-hook"]
    assert complete_in_bash(script, ["rewind", "help", "resto"]) == ["restore", "restore.md"]
    assert "exit-codes" in complete_in_bash(script, ["rewind", "help", "ex"])
    for session in ("fix-parser", "fix-docs", "other"):
        ok("begin", "--session", session, "--prompt", "x")
    shim = tmp_path / "bin" / "rewind"  # 'rewind' as the person's shell finds it
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m rewind "$@"\n')
    shim.chmod(0o755)
    path = f"{shim.parent}{os.pathsep}{os.environ['PATH']}"
    offered = complete_in_bash(script, ["rewind", "log", "--session", "fix"], path)
    assert sorted(offered) == ["fix-docs", "fix-parser"]
    assert complete_in_bash(script, ["rewind", "forget", "ot"], path) == ["other"]
    assert ok("sessions", "--ids").stdout.split() == ["other", "fix-docs", "fix-parser"]
