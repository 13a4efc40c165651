"""What rewind suggests: for a mistyped command, option or install target, the closest one, in
one line, as git does; in a project with nothing recorded, how to begin (issue 24, items 9
and 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import error_line, run_rewind


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            ["resotre", "2"],
            "rewind: unknown command 'resotre'; did you mean 'restore'? "
            "('rewind --help' has the rest)",
        ),
        (
            ["log", "--sesion", "x"],
            "rewind: unknown option '--sesion'; did you mean '--session'? "
            "('rewind log --help' has the rest)",
        ),
        (
            ["restore", "1", "--dyr-run"],
            "rewind: unknown option '--dyr-run'; did you mean '--dry-run'? "
            "('rewind restore --help' has the rest)",
        ),
        (
            ["--no-pagr", "log"],
            "rewind: unknown option '--no-pagr'; did you mean '--no-pager'? "
            "('rewind --help' has the rest)",
        ),
        (
            ["remote", "ad", "x", "y"],
            "rewind: argument ACTION: unknown choice 'ad'; did you mean 'add'? "
            "('rewind remote --help' has the rest)",
        ),
        (
            ["install", "claude"],
            "rewind: unknown target 'claude'; did you mean 'claude-code'? (one of claude-code, "
            "codex, gemini, cursor, copilot, cline, git-hook, windsurf, pi, qwen, droid, opencode, "
            "kilo)",
        ),
    ],
    ids=["command", "option", "option-of-restore", "global-option", "action", "target"],
)
def test_the_closest_is_suggested(project: Path, arguments: list[str], expected: str) -> None:
    assert error_line(run_rewind(*arguments)) == expected


def test_nothing_close_lists_the_choices_or_says_what_was_not_understood(project: Path) -> None:
    line = error_line(run_rewind("xyzzy"))
    assert line.startswith("rewind: unknown command 'xyzzy' (one of begin, track, end,")
    assert error_line(run_rewind("log", "stray")) == (
        "rewind: unrecognized arguments: stray; see 'rewind --help'."
    )


def test_with_nothing_recorded_reading_fails_and_listing_does_not_both_saying_how_to_begin(
    project: Path,
) -> None:
    """One rule: asking for what does not exist exits 1; a listing of nothing exits 0."""
    line = error_line(run_rewind("log"))
    assert "let your agent record its turns with 'rewind install AGENT'" in line
    listed = run_rewind("sessions")
    assert listed.returncode == 0
    assert "let your agent record its turns with 'rewind install AGENT'" in listed.stdout
    assert run_rewind("sessions", "--json").stdout == "[]\n"
