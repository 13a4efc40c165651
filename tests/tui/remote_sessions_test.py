"""The TUI on sessions fetched from a remote: read like local ones, never written.

Two machines, as two people have them: machine A (the test's own REWIND_HOME/HOME) records a
session with ``rewind begin/track/end`` in a git project and pushes it to a bare repository;
machine B (a second REWIND_HOME/HOME pair) clones the project elsewhere, adds the remote and
fetches. The app then runs on machine B's clone.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

import rewind.history.recording.turns
from rewind.history.index.database import INDEX_FILE
from rewind.history.remote.fetched import machine_views
from rewind.history.restoring.opening import open_current_store
from rewind.tui.app import RewindApp
from rewind.tui.file_history_screen import FileHistoryScreen
from rewind.tui.origin import NO_BLAME_NOTICE, READ_ONLY_NOTICE
from rewind.tui.sessions_screen import SessionsScreen
from rewind.tui.timeline_screen import TimelineScreen
from tests.conftest import ok
from tests.support.git import git
from tests.tui.app_test import diff_shown, prompts
from tests.tui.conftest import record_demo
from tests.tui.snapshot_test import FROZEN, SnapCompare, settled

SIZE = (100, 30)
MACHINE_A = "laptop-3fa2b1"
MACHINE_B = "desk-77c0de"
Scenario = Callable[[RewindApp, Pilot[None]], Awaitable[None]]


def commit_readme(project: Path) -> None:
    """The project's first commit: its root commit is the project's id on both machines."""
    (project / "README").write_text("calc\n")
    git("add", "README", cwd=project)
    git("commit", "-q", "-m", "start", cwd=project)


def push_then_fetch_elsewhere(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Pushes machine A's sessions to a new bare repository, then, as machine B (another
    REWIND_HOME and HOME, from here on), clones the project and fetches them; B is left in
    the clone, which it returns."""
    remote = project.parent / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=project.parent)
    as_a = {"REWIND_MACHINE": MACHINE_A}
    ok("remote", "add", "backup", str(remote), cwd=project, env=as_a)
    ok("push", "--all", cwd=project, env=as_a)
    clone = project.parent / "machine-b" / "project"
    git("clone", "-q", str(project), str(clone), cwd=project.parent)
    home = project.parent / "machine-b" / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("REWIND_HOME", str(home / "rewind-home"))
    monkeypatch.setenv("REWIND_MACHINE", MACHINE_B)
    monkeypatch.chdir(clone)
    ok("remote", "add", "backup", str(remote), cwd=clone)
    ok("fetch", cwd=clone)
    return clone


@pytest.fixture
def machine_b(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Session s1 recorded on machine A (turn 1 greets, turn 2 adds b.txt), fetched by
    machine B, whose clone has its own session ``local-work`` (one turn on c.txt)."""
    commit_readme(project)
    (project / "a.txt").write_text("hi\n")
    git("add", "a.txt", cwd=project)
    git("commit", "-q", "-m", "a", cwd=project)
    as_a = {"REWIND_MACHINE": MACHINE_A}
    ok("begin", "--session", "s1", "--prompt", "Make a greeting", cwd=project, env=as_a)
    ok("track", "--session", "s1", "a.txt", cwd=project, env=as_a)
    (project / "a.txt").write_text("hello\n")
    ok("end", "--session", "s1", cwd=project, env=as_a)
    ok("begin", "--session", "s1", "--prompt", "Add b", cwd=project, env=as_a)
    ok("track", "--session", "s1", "b.txt", cwd=project, env=as_a)
    (project / "b.txt").write_text("bee\n")
    ok("end", "--session", "s1", cwd=project, env=as_a)
    clone = push_then_fetch_elsewhere(project, monkeypatch)
    ok("begin", "--session", "local-work", "--prompt", "Local change", cwd=clone)
    ok("track", "--session", "local-work", "c.txt", cwd=clone)
    (clone / "c.txt").write_text("sea\n")
    ok("end", "--session", "local-work", cwd=clone)
    return clone


def run_app(clone: Path, scenario: Scenario, remote: str | None = "backup") -> RewindApp:
    session = None if remote is not None else "local-work"
    app = RewindApp(str(clone), session, watch=True, remote=remote)

    async def drive() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settled(pilot)
            await scenario(app, pilot)

    asyncio.run(drive())
    return app


def timeline(app: RewindApp) -> TimelineScreen:
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    return screen


def title(app: RewindApp) -> str:
    return str(timeline(app).query_one("#title", Static).render())


def notices(app: RewindApp) -> list[str]:
    return [notice.message for notice in app._notifications]


def work_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but git's, with its bytes."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name != ".git"]
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


def recorded(clone: Path) -> tuple[str, str]:
    """What machine B's store says of its own session and of the fetched one."""
    own = ok("log", "--json", "--session", "local-work", cwd=clone).stdout
    fetched = ok("log", "--json", "--remote", "backup", cwd=clone).stdout
    return own, fetched


async def chose_row(app: RewindApp, pilot: Pilot[None], starting: str) -> None:
    """In the sessions screen, the row whose first cell starts with ``starting`` (spaces and
    the recent marker aside), chosen with Enter."""
    table = app.screen.query_one(DataTable)
    firsts = [str(table.get_row_at(row)[0]).lstrip("* ") for row in range(table.row_count)]
    table.move_cursor(row=[f.startswith(starting) for f in firsts].index(True))
    await pilot.press("enter")
    await settled(pilot)


class TestReading:
    def test_the_turns_and_their_diffs_show_with_where_they_come_from(
        self, machine_b: Path
    ) -> None:
        local = open_current_store()
        view = machine_views(local, "backup")[MACHINE_A]
        assert not os.path.exists(view.state_path(INDEX_FILE))  # nothing read it yet

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            assert title(app).startswith(f"backup · {MACHINE_A} · s1 (read-only)")
            assert prompts(app) == ["Make a greeting", "Add b"]
            assert app.watcher is None  # a fetched view changes only when 'rewind fetch' runs
            await pilot.press("up")
            await settled(pilot)
            shown = diff_shown(app)
            assert "what turn 1 changed" in shown
            assert "-hi" in shown and "+hello" in shown

        run_app(machine_b, scenario)

    def test_d_diffs_to_where_the_session_ended_not_to_this_work_tree(
        self, machine_b: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up", "d")
            await settled(pilot)
            shown = diff_shown(app)
            # This clone's a.txt still reads "hi": to the work tree there would be nothing.
            assert "from before turn 1 to the session's end" in shown
            assert "-hi" in shown and "+hello" in shown
            assert "the session's end" in title(app)

        run_app(machine_b, scenario)

    def test_file_history_reads_the_fetched_versions(self, machine_b: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up", "h")
            await settled(pilot)
            screen = app.screen
            assert isinstance(screen, FileHistoryScreen)
            assert len(screen.versions) == 2  # "hi" before turn 1, "hello" after it

        run_app(machine_b, scenario)


class TestNothingIsWritten:
    def test_restore_undo_label_and_hunk_keys_say_why_and_write_nothing(
        self, machine_b: Path
    ) -> None:
        before, records = work_tree(machine_b), recorded(machine_b)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up")  # turn 1, a.txt selected
            await settled(pilot)
            await pilot.press("escape", "escape")  # the rewind menu, elsewhere
            await settled(pilot)
            assert isinstance(app.screen, TimelineScreen)
            assert notices(app) == [READ_ONLY_NOTICE]
            for key in ("u", "l", "p"):
                app.clear_notifications()
                await pilot.press(key)
                await settled(pilot)
                assert isinstance(app.screen, TimelineScreen), key
                assert notices(app) == [READ_ONLY_NOTICE], key
            app.clear_notifications()
            await pilot.press("b")
            await settled(pilot)
            assert notices(app) == [NO_BLAME_NOTICE]
            await pilot.press("h")
            await settled(pilot)
            assert isinstance(app.screen, FileHistoryScreen)
            for key in ("r", "p"):
                app.clear_notifications()
                await pilot.press(key)
                await settled(pilot)
                assert isinstance(app.screen, FileHistoryScreen), key
                assert notices(app) == [READ_ONLY_NOTICE], key

        run_app(machine_b, scenario)
        assert work_tree(machine_b) == before
        assert recorded(machine_b) == records


class TestSessionsScreen:
    def test_lists_the_fetched_sessions_and_switches_to_one_and_back(self, machine_b: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            assert title(app).startswith("session local-work")
            await pilot.press("s")
            await settled(pilot)
            assert isinstance(app.screen, SessionsScreen)
            table = app.screen.query_one(DataTable)
            firsts = [str(table.get_row_at(row)[0]).strip() for row in range(table.row_count)]
            assert firsts == [
                "* local-work",
                "fetched from backup (read-only)",
                f"backup · {MACHINE_A}/s1",
            ]
            await chose_row(app, pilot, "fetched from")  # a heading opens nothing
            assert isinstance(app.screen, SessionsScreen)
            await chose_row(app, pilot, "backup ·")
            assert title(app).startswith(f"backup · {MACHINE_A} · s1 (read-only)")
            assert prompts(app) == ["Make a greeting", "Add b"]
            await pilot.press("escape", "escape")
            await settled(pilot)
            assert isinstance(app.screen, TimelineScreen)
            assert notices(app) == [READ_ONLY_NOTICE]

            await pilot.press("s")
            await settled(pilot)
            await chose_row(app, pilot, "local-work")
            assert title(app).startswith("session local-work")
            assert prompts(app) == ["Local change"]
            await pilot.press("escape", "escape")  # a local session: the menu opens again
            await settled(pilot)
            assert type(app.screen).__name__ == "RewindMenu"

        run_app(machine_b, scenario, remote=None)


@pytest.fixture
def frozen_fetched(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The TUI tests' demo session recorded on machine A at fixed times (so the picture is
    stable: 'rewind begin' cannot be given a time, so the engine records it in-process), then
    pushed and fetched by machine B as above; times shown in UTC."""
    commit_readme(project)
    ticks = iter(FROZEN + 20.0 * step for step in range(1000))
    monkeypatch.setattr(
        rewind.history.recording.turns, "time", SimpleNamespace(time=lambda: next(ticks))
    )
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    record_demo()
    clone = push_then_fetch_elsewhere(project, monkeypatch)
    yield clone
    monkeypatch.undo()
    time.tzset()


def test_fetched_timeline_snapshot(frozen_fetched: Path, snap_compare: SnapCompare) -> None:
    app = RewindApp(str(frozen_fetched), None, watch=False, remote="backup")
    assert snap_compare(app, terminal_size=SIZE, run_before=settled)
