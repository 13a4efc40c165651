"""``rewind tui`` and plain ``rewind``: the TUI only on a terminal."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import error_line, run_rewind


def test_plain_rewind_without_a_terminal_prints_the_usage(project: Path) -> None:
    result = run_rewind()  # stdin and stdout are pipes here
    assert "COMMAND" in error_line(result)


def test_rewind_tui_on_a_project_with_nothing_recorded_says_how_to_start(project: Path) -> None:
    line = error_line(run_rewind("tui"))
    assert "rewind begin" in line
