"""``rewind completion SHELL``: scripts generated from the parser, tried in a real bash."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from rewind.commands.parsing.parser import build_parser
from tests.conftest import run_rewind


def complete_in_bash(script: str, words: list[str]) -> list[str]:
    """What bash's completion function offers for ``words`` (the last one being typed)."""
    line = " ".join(words)
    program = (
        f"source /dev/stdin <<'SCRIPT'\n{script}\nSCRIPT\n"
        f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}; "
        f"COMP_LINE='{line}'; COMP_POINT={len(line)}; _shtab_rewind; "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
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
