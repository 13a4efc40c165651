"""``rewind tui`` and plain ``rewind``: the TUI only on a terminal."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import error_line, run_rewind


def test_rewind_tui_on_a_project_with_nothing_recorded_says_how_to_start(project: Path) -> None:
    line = error_line(run_rewind("tui"))
    assert "rewind install AGENT" in line and "rewind begin" in line


def test_the_empty_state_says_how_to_start_and_q_quits() -> None:
    """What 'rewind tui' opens on a terminal in a project with nothing recorded (issue 24,
    item 6), at the size a terminal opens at."""
    import asyncio

    from textual.widgets import Static

    from rewind.tui.empty_state import NothingRecorded

    app = NothingRecorded("/home/me/calc", ["claude-code", "codex"])
    seen: list[str] = []

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            seen.append(str(app.query_one("#how-to-start", Static).render()))
            await pilot.press("q")
            await pilot.pause()

    asyncio.run(run())
    assert "rewind has recorded nothing in /home/me/calc yet." in seen[0]
    assert "    rewind install claude-code\n    rewind install codex\n" in seen[0]
    assert app.return_code == 0 and not app.is_running
