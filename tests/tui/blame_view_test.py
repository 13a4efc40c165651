"""The blame view (``b`` on the timeline's file list or in a file's history): each line of the
file as it is now with the prompt that last changed it, on histories recorded through the
engine on real files."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from textual.pilot import Pilot

from rewind.history.restoring.opening import open_current_store
from rewind.store.repository import Store
from rewind.tui.app import RewindApp
from rewind.tui.blame_view import BlameLines, BlameScreen
from rewind.tui.file_history_screen import FileHistoryScreen, VersionTable
from rewind.tui.timeline_screen import TimelineScreen
from tests.tui.app_test import notices, run_app
from tests.tui.conftest import SESSION
from tests.tui.file_history_screen_test import press, turn_in


def blame(app: RewindApp) -> BlameScreen:
    screen = app.screen
    assert isinstance(screen, BlameScreen), type(screen).__name__
    return screen


def gutters(app: RewindApp) -> list[str]:
    view = blame(app).query_one(BlameLines)
    assert view.blame is not None
    return [view.gutter_text(index) for index in range(len(view.blame.lines))]


def selected_version(app: RewindApp) -> str | None:
    screen = app.screen
    assert isinstance(screen, FileHistoryScreen), type(screen).__name__
    return screen.query_one(VersionTable).selected_id()


def test_the_gutter_shows_each_runs_prompt_once_and_the_status_line_the_whole_prompt(
    recorded: Store, project: Path
) -> None:
    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        await press(pilot, "up", "b")  # turn 2 changed calc.py
        screen = blame(app)
        assert screen.path == b"calc.py"
        shown = gutters(app)
        assert len(shown) == 6
        assert shown[0].split()[:2] == ["1", "claude-code"]  # the agent's name whole
        assert shown[0].endswith("Write a calculator")  # the room the code leaves
        assert shown[1].strip() == "┆"
        assert shown[2].split()[0] == "2" and shown[2].endswith("Add subtraction")
        assert [line.strip() for line in shown[3:]] == ["┆", "┆", "┆"]
        versions = screen.blame.versions if screen.blame else []
        status = screen.status_text()
        assert status.startswith("line 1: turn 1 of session demo, claude-code · version ")
        assert status.endswith("· Write a calculator ⏎ with add and sub")
        assert versions[1].id in status  # turn 1's after-state
        await press(pilot, "down", "down")
        assert screen.status_text().startswith("line 3: turn 2 of session demo")
        assert f"version {versions[0].id} · Add subtraction" in screen.status_text()

    run_app(project, scenario)


def test_lines_before_the_record_and_outside_it_say_so(project: Path) -> None:
    (project / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    store = open_current_store(create=True)
    turn_in(store, SESSION, "Change b", {"app.py": "a = 1\nb = 20\nc = 3\n"})
    (project / "app.py").write_text("a = 1\nb = 20\nc = 3\nd = 4\n")  # by hand, since

    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        await press(pilot, "b")
        shown = gutters(app)
        assert shown[0].strip() == "before rewind"
        assert shown[1].split()[0] == "1" and shown[1].endswith("Change b")
        assert shown[2].strip() == "before rewind"
        assert shown[3].strip() == "outside"
        assert blame(app).status_text().startswith("line 1: before rewind: the line was there")
        await press(pilot, "end")
        assert blame(app).status_text().startswith("line 4: outside: changed where rewind")
        await press(pilot, "enter")  # no version made that line
        assert isinstance(app.screen, BlameScreen)
        assert "Line 4 is outside: no recorded version made it." in notices(app)

    run_app(project, scenario)


def test_enter_opens_the_lines_version_in_the_files_history(recorded: Store, project: Path) -> None:
    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        await press(pilot, "up", "b")
        found = blame(app).blame
        assert found is not None
        versions = found.versions
        await press(pilot, "enter")  # line 1: turn 1's version
        assert selected_version(app) == versions[1].id
        await press(pilot, "b", "down", "down", "enter")  # from the history: back to it
        assert selected_version(app) == versions[0].id
        assert [type(screen) for screen in app.screen_stack[1:]] == [
            TimelineScreen,
            FileHistoryScreen,
        ]

    run_app(project, scenario)


def test_a_missing_file_says_why_there_is_no_blame(recorded: Store, project: Path) -> None:
    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        await press(pilot, "b")  # turn 3 deleted notes.txt
        assert blame(app).status_text().startswith("notes.txt does not exist now;")
        await press(pilot, "escape")
        assert isinstance(app.screen, TimelineScreen)

    run_app(project, scenario)


def test_five_thousand_lines_blame_and_scroll_quickly(project: Path) -> None:
    text = "".join(f"line {n} = {n}\n" for n in range(5000))
    (project / "big.py").write_text(text)
    store = open_current_store(create=True)
    changed = text.replace("line 2500 = 2500\n", "line 2500 = 'changed'\n")
    turn_in(store, SESSION, "Change one line of many", {"big.py": changed})
    app = RewindApp(str(project), SESSION, watch=False)

    async def drive() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            started = time.perf_counter()
            await press(pilot, "b")
            opened = time.perf_counter() - started
            view = blame(app).query_one(BlameLines)
            assert view.blame is not None and len(view.blame.lines) == 5000
            await press(pilot, "pagedown", "pagedown", "end")
            assert view.cursor == 4999
            top = view.scroll_offset.y
            assert top <= view.cursor < top + view.size.height  # scrolled along
            # A screenful at the end costs what one at the top does: only those lines are drawn.
            started = time.perf_counter()
            for _ in range(20):
                view._code = {}
                strips = [view.render_line(y) for y in range(view.size.height)]
            drawn = (time.perf_counter() - started) / 20
            assert "4999 = 4999" in "".join(segment.text for segment in strips[-1])
            view.move_to(2500)
            await pilot.pause()
            assert "line 2501: turn 1" in blame(app).status_text()
            assert "Change one line of many" in blame(app).status_text()
            assert opened < 5 and drawn < 0.1, (opened, drawn)

    asyncio.run(drive())


def test_lines_a_commits_note_answers_say_the_note_answered(project: Path) -> None:
    import subprocess

    from tests.attribution.rewrite_test import foreign_note

    (project / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    subprocess.run(["git", "add", "app.py"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "app"], cwd=project, check=True)
    sha = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=project, check=True, capture_output=True, text=True
    ).stdout.strip()
    foreign_note(project, sha, "app.py", [2, 3])  # a teammate's agent wrote b and c
    store = open_current_store(create=True)
    turn_in(store, SESSION, "Change a", {"app.py": "a = 10\nb = 2\nc = 3\n"})

    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        await press(pilot, "b")
        shown = gutters(app)
        assert shown[0].split()[0] == "1" and shown[0].endswith("Change a")
        assert shown[1].split()[:3] == ["note", "codex", sha[:10]]
        assert shown[1].endswith("(the note holds no prompt)")
        assert shown[2].strip() == "┆"
        await press(pilot, "down")
        assert (
            blame(app)
            .status_text()
            .startswith(
                f"line 2: the note of commit {sha[:12]} (not rewind's record): codex session "
                "teammate-session"
            )
        )

    run_app(project, scenario)
