"""The file-history screen (``h`` on the timeline's file list, ``f`` for a typed path): one
file's versions across sessions, its diffs, restoring a version and putting back hunks of one
step, driven by keys on histories recorded through the engine on real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.store.repository import Store
from rewind.tui.app import RewindApp
from rewind.tui.confirm_restore import ConfirmRestore
from rewind.tui.diff_view import DiffView
from rewind.tui.file_history_screen import FileHistoryScreen, VersionTable
from rewind.tui.file_list import FileList
from rewind.tui.hunk_picker import HunkPicker
from rewind.tui.path_prompt import PathPrompt
from rewind.tui.timeline_screen import TimelineScreen
from tests.tui.app_test import notices, run_app
from tests.tui.conftest import SESSION, turn

OTHER = "other"


def turn_in(store: Store, session: str, prompt: str, edits: dict[str, str | None]) -> None:
    """One turn of ``session``: the files of ``edits`` changed (None deletes, a "->" key
    renames: {"old.py->new.py": None})."""
    begin(store, session, prompt=prompt, agent="claude-code")
    names = [part for name in edits for part in name.split("->")]
    track(store, session, [name.encode() for name in names])
    for name, text in edits.items():
        if "->" in name:
            old, new = name.split("->")
            os.rename(old, new)
        elif text is None:
            Path(name).unlink()
        else:
            Path(name).write_text(text)
    record_after(store, session, close=True)


@pytest.fixture
def config_story(project: Path) -> Store:
    """config.yaml: created, edited, deleted and created again in session demo, then edited in
    session other."""
    store = open_current_store(create=True)
    turn_in(store, SESSION, "Write the config", {"config.yaml": "port: 8080\nhost: a\n"})
    turn_in(store, SESSION, "Change the port", {"config.yaml": "port: 9090\nhost: a\n"})
    turn_in(store, SESSION, "Remove the config", {"config.yaml": None})
    turn_in(store, SESSION, "Bring the config back", {"config.yaml": "port: 7070\n"})
    turn_in(store, OTHER, "Add a host", {"config.yaml": "port: 7070\nhost: b\n"})
    return store


def history(app: RewindApp) -> FileHistoryScreen:
    screen = app.screen
    assert isinstance(screen, FileHistoryScreen), type(screen).__name__
    return screen


def rows(app: RewindApp) -> list[list[str]]:
    table = history(app).query_one(VersionTable)
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


def diff_lines(app: RewindApp) -> list[str]:
    return history(app).query_one(DiffView).text_lines()


async def settle(pilot: Pilot[None]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


class TestVersions:
    def test_h_lists_the_versions_newest_first_across_sessions(
        self, config_story: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "h")  # the newest turn is selected, and its file
            screen = history(app)
            assert screen.path == b"config.yaml"
            ids = [v.id for v in screen.versions]
            kinds = [(v.entry.session, v.entry.number, v.after) for v in screen.versions]
            assert kinds == [
                (OTHER, 1, True),
                (SESSION, 4, True),
                (SESSION, 3, True),
                (SESSION, 2, True),
                (SESSION, 1, True),
                (SESSION, 1, False),
            ]
            shown = rows(app)
            assert [row[0] for row in shown] == [i[:7] for i in ids[:-1]] + [ids[-1][:7] + "^"]
            assert [row[2] for row in shown] == [
                "1 other",
                "4 demo",
                "3 demo",
                "2 demo",
                "1 demo",
                "1 demo",
            ]
            assert [row[3] for row in shown] == ["edit"] * 6
            assert [row[4] for row in shown] == [
                "+1 -0",
                "+1 -0",
                "deleted",
                "+1 -1",
                "+2 -0",
                "absent",  # before the first turn: the file did not exist yet
            ]
            assert shown[0][5] == "Add a host"
            assert shown[5][5] == "before: Write the config"
            title = str(screen.query_one("#history-title").render())
            assert "config.yaml  6 versions, newest first" in title
            assert "against the one before" in title

        run_app(project, scenario)

    def test_diffs_against_the_previous_a_marked_version_and_now(
        self, config_story: Store, project: Path
    ) -> None:
        (project / "config.yaml").write_text("port: 7070\nhost: by hand\n")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "h", "down", "down", "down")  # turn 2: the port changed
            two, one = history(app).versions[3], history(app).versions[4]
            lines = diff_lines(app)
            assert lines[0] == (
                f"config.yaml: {two.id[:7]} (after turn 2) against {one.id[:7]} (after turn 1)"
            )
            assert "-port: 8080" in lines and "+port: 9090" in lines
            await press(pilot, "m")
            assert rows(app)[3][0] == two.id[:7] + "*"
            await press(pilot, "up", "up", "up", "c")  # to the newest: other's turn
            newest = history(app).versions[0]
            lines = diff_lines(app)
            assert lines[0] == (
                f"config.yaml: from {two.id[:7]} (after turn 2) to {newest.id[:7]} (after turn 1)"
            )
            assert "-port: 9090" in lines and "+port: 7070" in lines and "+host: b" in lines
            assert "from marked" in str(history(app).query_one("#history-title").render())
            await press(pilot, "n")  # the newest version against the file now
            lines = diff_lines(app)
            assert lines[0] == f"config.yaml: from {newest.id[:7]} (after turn 1) to the file now"
            assert "-host: b" in lines and "+host: by hand" in lines
            await press(pilot, "down", "down")  # the delete, against now: the whole file comes
            assert "(after turn 3) to the file now" in diff_lines(app)[0]
            assert "+port: 7070" in diff_lines(app) and "+host: by hand" in diff_lines(app)
            await press(pilot, "escape")
            assert isinstance(app.screen, TimelineScreen)

        run_app(project, scenario)

    def test_a_rename_by_a_move_is_followed_and_restored_at_the_new_name(
        self, project: Path
    ) -> None:
        store = open_current_store(create=True)
        turn_in(store, SESSION, "Write old", {"old.py": "x = 1\n"})
        turn_in(store, SESSION, "Change x", {"old.py": "x = 2\n"})
        turn_in(store, SESSION, "Rename it", {"old.py->new.py": None})
        turn_in(store, SESSION, "Add y", {"new.py": "x = 2\ny = 3\n"})

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "h")
            assert history(app).path == b"new.py"
            shown = rows(app)
            assert [row[5] for row in shown] == [
                "Add y",
                "[renamed from old.py] Rename it",
                "[as old.py] Change x",
                "[as old.py] Write old",
                "[as old.py] before: Write old",
            ]
            await press(pilot, "down", "down", "down", "r")  # x = 1, then named old.py
            confirm = app.screen
            assert isinstance(confirm, ConfirmRestore)
            assert "then named old.py" in confirm.plan.title()
            await press(pilot, "y")
            assert (project / "new.py").read_text() == "x = 1\n"
            assert not (project / "old.py").exists()

        run_app(project, scenario)

    def test_o_asks_for_another_path_and_opens_its_history(
        self, config_story: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "h", "o")
            prompt = app.screen
            assert isinstance(prompt, PathPrompt)
            field = prompt.query_one(Input)
            assert field.value == "config.yaml"  # this file's name, to change
            field.value = "nothing-here.txt"
            await press(pilot, "enter")
            assert history(app).path == b"nothing-here.txt"
            assert diff_lines(app)[-1] == "rewind has recorded nothing for nothing-here.txt"
            await press(pilot, "escape")  # the new history replaced the old one
            assert isinstance(app.screen, TimelineScreen)

        run_app(project, scenario)


class TestRestore:
    def test_a_deleted_files_version_comes_back_and_u_undoes_it(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "h")  # turn 3 deleted notes.txt
            screen = history(app)
            assert screen.path == b"notes.txt"
            assert [row[4] for row in rows(app)] == ["deleted", "+1 -0", "absent"]
            created = screen.versions[1]
            await press(pilot, "down", "r")
            confirm = app.screen
            assert isinstance(confirm, ConfirmRestore)
            assert confirm.plan.title().startswith(f"restore notes.txt to version {created.id} ")
            assert not (project / "notes.txt").exists()  # nothing written yet
            await press(pilot, "y")
            assert (project / "notes.txt").read_text() == "todo\n"
            assert (
                f"Restored notes.txt to version {created.id} (restore 4); 'u' undoes it."
                in notices(app)
            )
            await pilot.pause(0.3)
            assert history(app).versions[0].source == "restore"  # read again
            assert rows(app)[0][3] == "restore"
            app.pop_screen()
            await settle(pilot)
            assert timeline_rows(app)[-1] == (
                "restore",
                "restore notes.txt to version " + created.id,
            )
            await press(pilot, "u")
            assert not (project / "notes.txt").exists()

        run_app(project, scenario)

    def test_a_file_changed_since_is_refused_unless_forced(
        self, recorded: Store, project: Path
    ) -> None:
        (project / "calc.py").write_text("print('mine')\n")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "up", "h")  # turn 2 changed calc.py
            assert history(app).path == b"calc.py"
            await press(pilot, "down", "r")  # turn 1's version
            assert isinstance(app.screen, ConfirmRestore)
            await press(pilot, "y")  # not forced
            assert (project / "calc.py").read_text() == "print('mine')\n"
            assert any(
                notice.startswith("calc.py changed outside rewind since it last recorded it, so")
                for notice in notices(app)
            )
            assert len(history(app).versions) == 3  # no restore was recorded
            await press(pilot, "r", "f", "y")  # forced
            assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
            await press(pilot, "u")
            assert (project / "calc.py").read_text() == "print('mine')\n"

        run_app(project, scenario)

    def test_the_version_the_file_already_is_is_not_restored(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "up", "h", "r")
            assert isinstance(app.screen, FileHistoryScreen)
            assert any("already is version" in notice for notice in notices(app))

        run_app(project, scenario)


class TestHunksOfAStep:
    def test_p_puts_back_a_hunk_of_one_step_into_the_file_now(self, project: Path) -> None:
        lines = "".join(f"line {n}\n" for n in range(1, 21))
        (project / "f.txt").write_text(lines)
        store = open_current_store(create=True)
        step = lines.replace("line 2\n", "LINE TWO\n").replace("line 15\n", "LINE 15\n")
        turn_in(store, SESSION, "Shout two lines", {"f.txt": step})
        turn_in(store, SESSION, "Append", {"f.txt": step + "line 21\n"})

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await press(pilot, "h", "down")  # the step of turn 1: two hunks
            await press(pilot, "p")
            picker = app.screen
            assert isinstance(picker, HunkPicker)
            assert picker.choice.title.startswith("f.txt: version ")
            assert len(picker.hunks) == 2
            await press(pilot, "down", "space", "r", "y")
            assert isinstance(app.screen, FileHistoryScreen)
            assert "Put back 1 hunk of f.txt (restore 3); 'u' undoes it." in notices(app)
            await press(pilot, "down", "down", "p")  # the oldest version: no step before it
            assert any("oldest version" in notice for notice in notices(app))

        run_app(project, scenario)
        assert (project / "f.txt").read_text() == lines.replace(
            "line 2\n", "LINE TWO\n"
        ) + "line 21\n"


def timeline_rows(app: RewindApp) -> list[tuple[str, str]]:
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    return [(row.kind, row.title) for row in screen.rows]


def test_h_without_a_selected_file_asks_for_a_path(project: Path) -> None:
    (project / "kept.txt").write_text("kept\n")
    store = open_current_store(create=True)
    turn(store, "Edit kept", {"kept.txt": "edited\n"})
    turn(store, "Nothing", {})

    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        assert app.screen.query_one(FileList).selected_path() is None
        await press(pilot, "h")
        prompt = app.screen
        assert isinstance(prompt, PathPrompt)
        await pilot.press(*"ke")
        await pilot.press("right", "enter")  # the suggestion, from the session's files
        await settle(pilot)
        assert history(app).path == b"kept.txt"
        assert [row[5] for row in rows(app)] == ["Edit kept", "before: Edit kept"]

    run_app(project, scenario)
