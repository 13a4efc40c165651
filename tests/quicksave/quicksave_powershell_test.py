"""The PowerShell of Claude Code's PowerShell tool, read for the quicksave: the files each
command line may change, found on a real file system through rewind.quicksave."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rewind.quicksave import QuicksaveLimits, paths_at_risk
from rewind.quicksave.powershell import posix_equivalent

pytestmark = pytest.mark.unit


def at_risk(command: str, root: Path) -> tuple[set[str], list[str]]:
    translated, warnings = posix_equivalent(command)
    plan = paths_at_risk(translated, os.fsencode(root), QuicksaveLimits())
    names = {os.path.relpath(os.fsdecode(path), root) for path in plan.paths}
    return names, warnings + plan.warnings


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in ("a.txt", "b c.txt", "it's.txt", "dir/x.txt", "dir/y.log", "sub/z.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    return tmp_path


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("Remove-Item a.txt", {"a.txt"}),
        ("Remove-Item -Recurse -Force dir", {"dir/x.txt", "dir/y.log"}),
        ("rm a.txt, 'b c.txt'", {"a.txt", "b c.txt"}),
        ("del -LiteralPath 'it''s.txt'", {"it's.txt"}),
        ('Remove-Item -Path "b c.txt" -fo', {"b c.txt"}),
        ("Remove-Item dir\\*.log", {"dir/y.log"}),
        ("Move-Item -Path a.txt -Destination sub\\moved.txt", {"a.txt", "sub/moved.txt"}),
        ("Copy-Item -Dest copy.txt a.txt", {"copy.txt"}),
        ("Rename-Item -Path dir/x.txt -NewName w.txt", {"dir/x.txt", "dir/w.txt"}),
        ("Set-Content -Path new.txt -Value 'hi'", {"new.txt"}),
        ("'hi' | Out-File -FilePath out.txt -Encoding utf8", {"out.txt"}),
        ("Write-Output hi >> log.txt 2>&1", {"log.txt"}),
        ("Set-Location sub; Remove-Item z.txt # done", {"sub/z.txt"}),
        ("Get-ChildItem; npm test && Clear-Content a.txt", {"a.txt"}),
        ("Remove-Item `\n  a.txt", {"a.txt"}),
    ],
)
def test_file_cmdlets(tree: Path, command: str, expected: set[str]) -> None:
    assert at_risk(command, tree) == (expected, [])


@pytest.mark.parametrize(
    ("command", "warning"),
    [
        ("Get-ChildItem *.txt | Remove-Item", "Remove-Item without a path"),
        ("Get-ChildItem | ForEach-Object { Remove-Item $_ }", "not understood"),
        ("Remove-Item $env:TEMP\\x", "not understood"),
        ('Remove-Item "$HOME/x"', "not understood"),
    ],
)
def test_what_cannot_be_read_is_said(tree: Path, command: str, warning: str) -> None:
    names, warnings = at_risk(command, tree)
    assert names == set()
    assert len(warnings) == 1 and warning in warnings[0]


def test_the_rest_of_the_line_is_still_read(tree: Path) -> None:
    names, warnings = at_risk("$x = 1; Remove-Item a.txt", tree)
    assert names == {"a.txt"} and len(warnings) == 1
