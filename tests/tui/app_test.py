"""Pilot tests of the TUI on a real store recorded through the engine, one class per feature."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Label, Static

from rewind.history.entry import SHELL
from rewind.history.insight.labels import labels_of
from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.store.repository import Store
from rewind.tui import timeline_data
from rewind.tui.app import RewindApp
from rewind.tui.diff_view import DiffView
from rewind.tui.file_list import FileList
from rewind.tui.help_screen import HelpScreen, sections
from rewind.tui.label_dialog import LabelDialog
from rewind.tui.timeline_screen import TimelineScreen
from rewind.tui.turn_table import TurnTable
from tests.tui.conftest import SESSION, turn

SIZE = (100, 30)
Scenario = Callable[[RewindApp, Pilot[None]], Awaitable[None]]


def run_app(project: Path, scenario: Scenario, watch: bool = False) -> RewindApp:
    app = RewindApp(str(project), SESSION, watch=watch)

    async def drive() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await scenario(app, pilot)

    asyncio.run(drive())
    return app


def timeline(app: RewindApp) -> TimelineScreen:
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    return screen


def prompts(app: RewindApp) -> list[str]:
    table = app.screen.query_one(TurnTable)
    return [str(table.get_row_at(row)[2]) for row in range(table.row_count)]


def diff_shown(app: RewindApp) -> str:
    """The text the diff view shows (title, diff or the note that replaces it)."""
    screen = timeline(app)
    index = screen._selected_index()
    path = screen.query_one(FileList).selected_path()
    assert index is not None and path is not None
    diff = screen.history.diff_text(index, path, screen.diff_mode)
    shown = "\n".join(screen.query_one(DiffView).text_lines())
    assert shown.startswith(diff.title)
    return shown


class TestTimeline:
    def test_rows_show_every_turn_newest_last(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            assert prompts(app) == ["Write a calculator", "Add subtraction", "Remove the notes"]
            table = app.screen.query_one(TurnTable)
            assert table.cursor_row == 2  # the newest entry is selected

        run_app(project, scenario)

    def test_selecting_a_turn_shows_its_files_and_the_diff(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up")  # turn 2
            await pilot.pause()
            files = app.screen.query_one(FileList)
            assert [str(files.get_row_at(row)[1]) for row in range(files.row_count)] == ["calc.py"]
            shown = diff_shown(app)
            assert "what turn 2 changed" in shown
            assert "+def sub(a, b):" in shown
            await pilot.press("up")  # turn 1: two new files
            await pilot.pause()
            assert files.row_count == 2
            assert str(files.get_row_at(0)[0]) == "A"

        run_app(project, scenario)

    def test_line_counts_fill_in(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await app.workers.wait_for_complete()
            await pilot.pause()
            table = app.screen.query_one(TurnTable)
            cells = [str(table.get_row_at(row)[3]) for row in range(table.row_count)]
            assert cells == ["2 files +3 -0", "1 file +4 -0", "1 file +0 -1"]

        run_app(project, scenario)

    def test_only_the_rows_in_view_are_counted_until_scrolled_to(self, project: Path) -> None:
        store = open_current_store(create=True)
        for number in range(40):
            turn(store, f"turn {number}", {f"f{number}.txt": "a\nb\n"})

        def counted(app: RewindApp) -> list[bool]:
            table = app.screen.query_one(TurnTable)
            return ["+" in str(table.get_row_at(row)[3]) for row in range(table.row_count)]

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert counted(app)[-1] and not counted(app)[0]  # the newest rows are in view
            await pilot.press("ctrl+home")
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert counted(app)[0] and counted(app)[-1]

        run_app(project, scenario)


def notices(app: RewindApp) -> list[str]:
    return [notice.message for notice in app._notifications]


def file_rows(app: RewindApp) -> list[tuple[str, str]]:
    files = app.screen.query_one(FileList)
    return [
        (str(files.get_row_at(row)[0]), str(files.get_row_at(row)[1]))
        for row in range(files.row_count)
    ]


class TestLabelDialog:
    def test_l_adds_a_label_and_the_same_name_removes_it(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            await pilot.press("up", "l")
            await pilot.press(*"works", "enter")
            await pilot.pause()
            assert labels_of(recorded, SESSION) == {timeline(app).rows[1].entry_id: ["works"]}
            assert str(table.get_row_at(1)[4]) == "works"
            assert table.cursor_row == 1  # the selection stayed
            assert "turn 2 labelled 'works'" in notices(app)
            await pilot.press("l", *"works", "enter")
            await pilot.pause()
            assert labels_of(recorded, SESSION) == {}
            assert len(table.get_row_at(1)) == 4  # no label left: no labels column

        run_app(project, scenario)

    def test_a_refused_name_is_explained_in_the_dialog(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("l", *"no good", "enter")
            await pilot.pause()
            assert isinstance(app.screen, LabelDialog)
            problem = str(app.screen.query_one("#problem", Label).render())
            assert "cannot be a label" in problem
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TimelineScreen)
            assert labels_of(recorded, SESSION) == {}

        run_app(project, scenario)

    def test_an_open_turn_cannot_be_labelled(self, recorded: Store, project: Path) -> None:
        begin(recorded, SESSION, prompt="still going")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("l")
            await pilot.pause()
            assert isinstance(app.screen, TimelineScreen)
            assert any("still open" in message for message in notices(app))

        run_app(project, scenario)


class TestCompare:
    def test_m_then_c_shows_what_a_run_of_turns_changed_together(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up", "m", "down", "c")  # turn 2 marked, turn 3 selected
            await pilot.pause()
            assert file_rows(app) == [("M", "calc.py"), ("D", "notes.txt")]
            title = app.screen.query_one("#title", Static).render()
            assert "compare 2..3" in str(title)
            view = app.screen.query_one(DiffView)
            assert view.text_lines()[0] == "notes.txt: from before turn 2 to after turn 3"
            assert "-todo" in view.text_lines()
            app.screen.query_one(FileList).move_cursor(row=0)
            await pilot.pause()
            assert view.text_lines()[0] == "calc.py: from before turn 2 to after turn 3"
            assert "+def sub(a, b):" in view.text_lines()
            await pilot.press("up", "up")  # turn 1..2: both files new
            await pilot.pause()
            assert file_rows(app) == [("A", "calc.py"), ("A", "notes.txt")]
            await pilot.press("c")  # back to the selected turn alone
            await pilot.pause()
            assert file_rows(app) == [("A", "calc.py"), ("A", "notes.txt")]
            await pilot.press("down")
            await pilot.pause()
            assert file_rows(app) == [("M", "calc.py")]

        run_app(project, scenario)

    def test_c_without_a_mark_says_what_to_do(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("c")
            await pilot.pause()
            assert any("mark an entry with m first" in message for message in notices(app))
            assert file_rows(app) == [("D", "notes.txt")]

        run_app(project, scenario)


class TestSafetyNets:
    def test_files_saved_by_the_shell_quicksave_are_marked(
        self, recorded: Store, project: Path
    ) -> None:
        begin(recorded, SESSION, prompt="Clean up")
        track(recorded, SESSION, [b"calc.py"], source=SHELL)
        track(recorded, SESSION, [b"extra.txt"])
        (project / "calc.py").unlink()
        (project / "extra.txt").write_text("x\n")
        record_after(recorded, SESSION, close=True)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            assert prompts(app)[-1] == "[quicksave] Clean up"
            assert prompts(app)[-2] == "Remove the notes"
            files = app.screen.query_one(FileList)
            shown = [str(files.get_row_at(row)[1]) for row in range(files.row_count)]
            assert shown == ["calc.py [quicksave]", "extra.txt"]

        run_app(project, scenario)


class TestDiffModes:
    def test_d_switches_to_the_diff_from_the_checkpoint_to_now(
        self, recorded: Store, project: Path
    ) -> None:
        (project / "calc.py").write_text("print('changed since')\n")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up")  # turn 2
            await pilot.press("d")
            await pilot.pause()
            shown = diff_shown(app)
            assert "from before turn 2 to now" in shown
            assert "+print('changed since')" in shown
            assert "-    return a + b" in shown
            await pilot.press("d")
            await pilot.pause()
            assert "what turn 2 changed" in diff_shown(app)

        run_app(project, scenario)

    def test_a_deleted_file_and_an_open_turn_say_so(self, recorded: Store, project: Path) -> None:
        from rewind.history.recording.turns import begin, track

        begin(recorded, SESSION, prompt="Still working")
        track(recorded, SESSION, [b"calc.py"])

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            assert "the turn is still open" in diff_shown(app)
            await pilot.press("up")  # turn 3 deleted notes.txt
            await pilot.pause()
            assert "-todo" in diff_shown(app)

        run_app(project, scenario)


class TestSearch:
    def test_search_by_prompt_and_by_path_and_esc_closes_it(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("slash", *"notes")
            await pilot.pause()
            # turn 1 created notes.txt, turn 3's prompt names it
            assert prompts(app) == ["Write a calculator", "Remove the notes"]
            app.screen.query_one("#search", Input).value = "subtraction"
            await pilot.pause()
            assert prompts(app) == ["Add subtraction"]
            await pilot.press("escape")
            await pilot.pause(0.6)
            assert len(prompts(app)) == 3
            assert not app.screen.query_one("#search", Input).display

        run_app(project, scenario)


class TestKeys:
    def test_help_lists_the_bindings(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            keys = {key for _, key, _ in app.screen.rows}
            assert {"q", "?", "/", "d", "s", "u"} <= keys
            # One section per place, "anywhere" first, with the rewind menu at its top.
            shown = sections(app.screen.rows)
            assert shown[0][0] == "anywhere" and shown[0][1][0][0] == "escape escape"
            assert len({where for where, _ in shown}) == len(shown)
            await pilot.press("escape")
            await pilot.pause(0.6)
            assert isinstance(app.screen, TimelineScreen)

        run_app(project, scenario)

    def test_q_quits(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running

        run_app(project, scenario)

    def test_sessions_screen_jumps_to_a_session(self, recorded: Store, project: Path) -> None:
        from tests.tui.conftest import turn

        turn(recorded, "Other session's turn", {"other.txt": "x\n"})  # session demo again
        from rewind.history.recording.turns import begin

        begin(recorded, "second", prompt="Second session", agent="codex")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("s")
            await pilot.pause()
            assert type(app.screen).__name__ == "SessionsScreen"
            await app.workers.wait_for_complete()
            sessions = app.screen.query_one(DataTable)
            rows = [str(sessions.get_row_at(row)[0]).strip("* ") for row in range(2)]
            assert sorted(rows) == ["demo", "second"]
            sessions.move_cursor(row=rows.index("second"))
            await pilot.press("enter")
            await pilot.pause()
            assert timeline(app).session_id == "second"
            assert prompts(app) == ["Second session (open)"]

        run_app(project, scenario)


class TestDoubleEscape:
    def menu_expected(self) -> str | None:
        """The class the menu is, or None while the rewind menu module is not there."""
        found = importlib.util.find_spec("rewind.tui.rewind_menu")
        return "RewindMenu" if found is not None else None

    def test_a_single_escape_does_not_open_the_menu(
        self, recorded: Store, project: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("rewind.tui.app.DOUBLE_ESCAPE_SECONDS", 0.5)  # as people have it

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("escape")
            await pilot.pause(0.6)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TimelineScreen)
            assert not app._notifications

        run_app(project, scenario)

    def test_two_quick_escapes_open_the_menu(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("down")  # from anywhere: here, with focus moved around
            await pilot.press("tab")
            await pilot.press("escape", "escape")
            await pilot.pause()
            expected = self.menu_expected()
            if expected is None:
                messages = [notice.message for notice in app._notifications]
                assert messages == ["rewind menu not available"]
            else:
                assert type(app.screen).__name__ == expected

        run_app(project, scenario)


class TestLiveUpdates:
    def test_a_turn_recorded_by_another_process_appears(
        self, recorded: Store, project: Path
    ) -> None:
        def rewind(*arguments: str) -> None:
            subprocess.run(
                [sys.executable, "-m", "rewind", *arguments],
                check=True,
                capture_output=True,
                env={**os.environ},
            )

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up")  # the selection must survive the refresh
            selected = app.screen.query_one(TurnTable).selected_id()
            await asyncio.to_thread(
                rewind, "begin", "--session", SESSION, "--prompt", "From outside"
            )
            await asyncio.to_thread(rewind, "track", "--session", SESSION, "calc.py")
            for _ in range(30):
                if "From outside" in prompts(app):
                    break
                await pilot.pause(0.1)
            assert prompts(app)[-1] == "From outside (open)"
            assert app.screen.query_one(TurnTable).selected_id() == selected

        run_app(project, scenario, watch=True)


class TestLabels:
    def test_labels_given_later_show_and_follow_live(self, recorded: Store, project: Path) -> None:
        from rewind.history.insight.labels import add_label

        add_label(recorded, SESSION, "1", "first-draft")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            assert str(table.get_row_at(0)[4]) == "first-draft"
            await asyncio.to_thread(add_label, recorded, SESSION, "2", "subtraction")
            for _ in range(30):
                if str(table.get_row_at(1)[4]) == "subtraction":
                    break
                await pilot.pause(0.1)
            assert str(table.get_row_at(1)[4]) == "subtraction"

        run_app(project, scenario, watch=True)


class TestRestoreAndUndo:
    """Needs the rewind menu (rewind/tui/rewind_menu.py)."""

    def test_restore_through_the_menu_then_u_undoes_it(
        self, recorded: Store, project: Path
    ) -> None:
        notes = project / "notes.txt"
        assert not notes.exists()  # turn 3 deleted it

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("escape", "escape")
            await pilot.pause()
            assert type(app.screen).__name__ == "RewindMenu"
            for key in ("enter", "|", "enter", "|", "enter", "|"):  # turn 3, restore, confirm
                if key == "|":
                    await pilot.pause()
                else:
                    await pilot.press(key)
            assert isinstance(app.screen, TimelineScreen)
            assert notes.read_text() == "todo\n"
            messages = [notice.message for notice in app._notifications]
            assert any(message.startswith("Restored") for message in messages), messages
            await pilot.pause(0.3)
            assert prompts(app)[-1].startswith("[restore]")
            await pilot.press("u")
            await pilot.pause()
            assert not notes.exists()
            messages = [notice.message for notice in app._notifications]
            assert any(message.startswith("Took back restore") for message in messages), messages
            assert any("(U: redo)" in message for message in messages), messages
            await pilot.pause(0.3)
            assert prompts(app)[-2].startswith("[restore] (undone)")  # taken back
            await pilot.press("U")  # puts it back
            await pilot.pause()
            assert notes.read_text() == "todo\n"
            messages = [notice.message for notice in app._notifications]
            assert any(message.startswith("Put back restore") for message in messages), messages
            await pilot.pause(0.3)
            assert prompts(app)[-1].startswith("[redo]")
            assert not any("(undone)" in prompt for prompt in prompts(app))
            await pilot.press("u")  # takes the redo back: the restore is not in effect again
            await pilot.pause(0.3)
            marked = [prompt.split(" ", 2)[:2] for prompt in prompts(app) if "(undone)" in prompt]
            assert marked == [["[restore]", "(undone)"], ["[redo]", "(undone)"]], prompts(app)

        run_app(project, scenario)


class TestSideBySide:
    def test_v_lays_the_diff_out_side_by_side(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("up", "v")
            await pilot.pause()
            assert app.screen.query_one(DiffView).has_class("-split")
            await pilot.press("v")
            await pilot.pause()
            assert not app.screen.query_one(DiffView).has_class("-split")

        run_app(project, scenario)

    def test_rows_pair_removed_and_added_lines(self) -> None:
        from rewind.tui.side_by_side import side_by_side_rows

        text = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n same\n-old\n+new\n+more\n"
        rows = side_by_side_rows(text)
        assert rows[0] == "@@ -1,3 +1,3 @@"
        plain = [tuple(str(cell) for cell in row) for row in rows[1:]]
        assert plain == [
            ("1", "same", "1", "same"),
            ("2", "old", "2", "new"),
            ("", "", "3", "more"),
        ]


class TestOpenTurnGrows:
    def test_the_open_turns_counts_follow_its_files(self, recorded: Store, project: Path) -> None:
        from rewind.history.recording.turns import begin, record_after, track

        begin(recorded, SESSION, prompt="Growing")
        track(recorded, SESSION, [b"calc.py"])

        def edit_and_record() -> None:
            with (project / "calc.py").open("a") as handle:
                handle.write("# one more line\n")
            record_after(recorded, SESSION, close=True)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            await app.workers.wait_for_complete()
            await asyncio.to_thread(edit_and_record)
            for _ in range(30):
                await app.workers.wait_for_complete()
                if str(table.get_row_at(3)[3]) == "1 file +1 -0":
                    break
                await pilot.pause(0.1)
            assert str(table.get_row_at(3)[3]) == "1 file +1 -0"
            assert prompts(app)[-1] == "Growing"

        run_app(project, scenario, watch=True)

    def test_a_file_a_hook_appends_to_the_open_turn_appears(
        self, recorded: Store, project: Path
    ) -> None:
        begin(recorded, SESSION, prompt="Growing")
        (project / "notes.txt").write_text("a note\n")

        def track_from_another_process() -> None:
            subprocess.run(
                [sys.executable, "-m", "rewind", "track", "--session", SESSION, "notes.txt"],
                check=True,
                capture_output=True,
            )

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            await app.workers.wait_for_complete()
            assert str(table.get_row_at(3)[3]).startswith("0 files")
            await asyncio.to_thread(track_from_another_process)  # appends to the journal only
            for _ in range(30):
                await app.workers.wait_for_complete()
                if str(table.get_row_at(3)[3]).startswith("1 file"):
                    break
                await pilot.pause(0.1)
            assert str(table.get_row_at(3)[3]).startswith("1 file")

        run_app(project, scenario, watch=True)


class TestLongSessions:
    """A session is read a window at a time: the newest entries at first, older ones as the
    cursor reaches the top, all of them for a search."""

    def record(self, count: int) -> None:
        store = open_current_store(create=True)
        for number in range(1, count + 1):
            turn(store, f"turn {number}", {f"f{number % 3}.txt": f"v{number}\n"})

    def test_the_newest_window_first_then_older_ones_at_the_top(
        self, project: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(timeline_data, "WINDOW", 5)
        self.record(12)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            assert prompts(app) == [f"turn {n}" for n in range(8, 13)]
            title = str(app.screen.query_one("#title", Static).render())
            assert "12 entries (7 older: at the top for more)" in title
            await pilot.press("ctrl+home")
            await pilot.pause()
            assert prompts(app) == [f"turn {n}" for n in range(3, 13)]
            assert timeline(app).history.entries[timeline(app)._selected_index() or 0].number == 8
            await pilot.press("ctrl+home")
            await pilot.pause()
            assert prompts(app) == [f"turn {n}" for n in range(1, 13)]
            title = str(app.screen.query_one("#title", Static).render())
            assert "12 entries" in title and "older" not in title

        run_app(project, scenario)

    def test_a_search_reads_the_whole_session(
        self, project: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(timeline_data, "WINDOW", 4)
        self.record(10)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("slash")
            await pilot.press(*"turn 2")
            await pilot.pause()
            assert prompts(app) == ["turn 2"]

        run_app(project, scenario)


class TestResumingTheConversation:
    def test_the_menu_hands_the_turn_to_resume_and_the_tui_closes(
        self, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from rewind.history.conversation.cut_point import CutPoint

        store = open_current_store(create=True)
        cut = CutPoint("claude-code", "c1", str(tmp_path / "t.jsonl"), 0, "", "", "")
        begin(store, SESSION, prompt="write notes", agent="claude-code", conversation=cut.to_json())
        track(store, SESSION, [b"notes.txt"])
        Path("notes.txt").write_text("notes\n")
        record_after(store, SESSION, close=True)
        client = tmp_path / "bin" / "claude"
        client.parent.mkdir()
        client.write_text('#!/bin/sh\necho "2.1.332 (Claude Code)"\n')
        client.chmod(0o755)
        monkeypatch.setenv("PATH", f"{client.parent}{os.pathsep}{os.environ['PATH']}")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("escape", "escape")
            await pilot.pause()
            await pilot.press("enter", "down", "down", "enter")  # turn 1: the conversation alone
            await pilot.pause()

        app = run_app(project, scenario)
        assert app.resume is not None and app.resume.number == 1
        assert Path("notes.txt").read_text() == "notes\n"  # no file changed
