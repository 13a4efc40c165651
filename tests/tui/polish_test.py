"""What the TUI shows is never cut silently: numbers whole, an ellipsis where text is cut,
check boxes readable without colour, every key listed, one agent name, short notifications."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable, Footer, Static
from textual.widgets._footer import FooterKey

from rewind.history.entry import SHELL
from rewind.history.insight.labels import add_label
from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import load_head
from rewind.store.repository import Store
from rewind.tui import restore_actions
from rewind.tui.app import NOTICE_SECONDS, RewindApp
from rewind.tui.file_choice import Checks, FileChoice
from rewind.tui.file_list import path_text
from rewind.tui.help_screen import HelpScreen
from rewind.tui.timeline_data import RENAMED, Counts, FileRow, TurnRow
from rewind.tui.turn_table import (
    FILES_WIDTH,
    LABELS_WIDTH,
    TurnTable,
    counts_text,
    short_number,
)
from tests.conftest import error_line, run_rewind
from tests.tui.conftest import SESSION, turn

THOUSAND = 1000
Scenario = Callable[[RewindApp, Pilot[None]], Awaitable[None]]


def record_thousand_then_restore(store: Store) -> None:
    """Turn 1 creates 1,000 files; restoring to before it deletes them all (+0 -1000)."""
    begin(store, SESSION, prompt="Generate the fixtures", agent="claude-code")
    names = [f"data/f{number:04}.txt".encode() for number in range(THOUSAND)]
    Path("data").mkdir()
    track(store, SESSION, names)
    for name in names:
        Path(name.decode()).write_text("one line\n")
    record_after(store, SESSION, close=True)
    generated = load_head(store, SESSION).current
    assert generated is not None
    plan = restore_actions.plan_for(store, SESSION, generated.number)
    restore_actions.restore(store, plan, set())


def run(project: Path, scenario: Scenario, size: tuple[int, int] = (100, 30)) -> RewindApp:
    app = RewindApp(str(project), SESSION, watch=False)

    async def drive() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            await scenario(app, pilot)

    asyncio.run(drive())
    return app


async def settle(app: RewindApp, pilot: Pilot[None]) -> None:
    """Until the background workers (the +/- counts) are done."""
    await pilot.pause()
    for _ in range(200):
        if not any(worker.is_running for worker in app.workers):
            break
        await pilot.pause(0.05)
    await pilot.pause()


class TestNumbers:
    def test_short_numbers_have_at_most_four_characters_and_round_down(self) -> None:
        assert [short_number(n) for n in (0, 999, 1000, 1099, 1100, 9999, 12345, 999_999)] == [
            "0", "999", "1k", "1k", "1.1k", "9.9k", "12k", "999k",
        ]  # fmt: skip
        assert short_number(1_250_000) == "1.2M"
        assert max(len(short_number(10**k - 1)) for k in range(1, 12)) <= 4

    def test_the_widest_counts_fit_the_files_column(self) -> None:
        widest = counts_text(9_999_999, Counts(999_999, 999_999, False))
        assert widest.cell_len <= FILES_WIDTH, widest.plain

    def test_a_thousand_file_restore_shows_its_counts_whole(self, project: Path) -> None:
        record_thousand_then_restore(open_current_store(create=True))
        for width in (80, 100, 120):

            async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
                table = app.screen.query_one(TurnTable)
                cells = [str(table.get_row_at(row)[3]) for row in range(table.row_count)]
                assert cells == ["1k files +1k -0", "1k files +0 -1k"]
                offset = sum(c.get_render_width(table) for c in list(table.columns.values())[:4])
                assert offset <= app.size.width  # the files column is on screen, whole

            run(project, scenario, size=(width, 24))


class TestEllipsis:
    def test_a_long_prompt_and_long_labels_end_in_an_ellipsis(self, project: Path) -> None:
        store = open_current_store(create=True)
        turn(store, "Refactor " + "the parser and the printer " * 4, {"a.txt": "x\n"})
        entry = load_head(store, SESSION).current
        assert entry is not None
        for name in ("first-label-name", "second-label-name"):
            add_label(store, SESSION, entry, name)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            prompt, labels = table.get_row_at(0)[2], table.get_row_at(0)[4]
            assert isinstance(prompt, Text) and isinstance(labels, Text)
            assert table.widths is not None
            assert prompt.plain.endswith("…") and prompt.cell_len == table.widths.prompt
            assert labels.plain.endswith("…") and labels.cell_len == LABELS_WIDTH

        run(project, scenario)

    def test_the_title_line_is_cut_with_an_ellipsis(self, project: Path) -> None:
        turn(open_current_store(create=True), "one", {"a.txt": "x\n"})

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            title = app.screen.query_one("#title", Static)
            line = "".join(segment.text for segment in title.render_line(0))
            assert line.rstrip().endswith("…"), line

        run(project, scenario, size=(30, 24))

    def test_a_files_tag_gives_way_to_its_path_before_the_path_is_cut(self) -> None:
        def row(shown: str) -> FileRow:
            return FileRow(b"x", shown, RENAMED, None, "", source=SHELL)

        assert path_text(row("a.py"), 24).plain == "a.py [quicksave]"
        assert path_text(row("calc.py → arith.py"), 24).plain == "calc.py → arith.py [q]"
        cut = path_text(row("tests/unit/test_calc.py"), 24).plain
        assert cut == "…s/unit/test_calc.py [q]"


class TestSessionsDialog:
    def test_its_columns_fit_100_columns(self, project: Path) -> None:
        store = open_current_store(create=True)
        turn(store, "one", {"a.txt": "x\n"})
        long_id = str(uuid.UUID(int=7))
        begin(store, long_id, prompt="two", agent="claude-code")

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("s")
            await settle(app, pilot)
            table = app.screen.query_one(DataTable)
            assert table.virtual_size.width <= table.scrollable_content_region.width
            ids = [str(table.get_row_at(row)[0]).strip("* ") for row in range(table.row_count)]
            assert long_id in ids

        run(project, scenario)


class TestCheckBoxes:
    def test_boxes_read_x_or_blank_without_colour(self, recorded: Store, project: Path) -> None:
        plan = restore_actions.plan_for(recorded, SESSION, 2)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            app.push_screen(FileChoice(plan))
            await pilot.pause()
            checks = app.screen.query_one(Checks)

            def box(row: int) -> str:
                return "".join(segment.text for segment in checks.render_line(row))[:3]

            assert [box(row) for row in range(checks.option_count)] == ["[x]", "[x]"]
            await pilot.press("space")
            await pilot.pause()
            assert box(0) == "[ ]" and box(1) == "[x]"

        run(project, scenario)


class TestKeys:
    def test_the_footer_fits_80_columns_and_help_lists_the_rest(
        self, recorded: Store, project: Path
    ) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            footer = app.screen.query_one(Footer)
            shown = list(footer.query(FooterKey))
            keys = {key.key for key in shown}
            assert {"question_mark", "slash", "d", "p", "h", "b", "s", "u", "q"} <= keys
            assert max(key.region.right for key in shown) <= 80  # none cut at the right
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            rows = app.screen.rows
            assert {"m", "c", "u", "v", "l", "j", "k"} <= {key for _, key, _ in rows}
            assert {"choose files", "confirm restore", "label dialog"} <= {w for w, _, _ in rows}

        run(project, scenario, size=(80, 24))


class TestNotifications:
    def test_a_restores_notice_goes_within_seconds(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            await pilot.press("escape", "escape")
            await pilot.pause()
            for key in ("enter", "|", "enter", "|", "enter", "|"):  # turn 3, restore, confirm
                if key == "|":
                    await pilot.pause()
                else:
                    await pilot.press(key)
            notices = list(app._notifications)
            assert any(n.message.startswith("Restored") for n in notices)
            assert all(n.timeout <= NOTICE_SECONDS <= 3 for n in notices)

        run(project, scenario)


class TestAgent:
    def test_a_watch_entry_does_not_rename_the_session(self, project: Path) -> None:
        store = open_current_store(create=True)
        turn(store, "one", {"a.txt": "x\n"})  # claude-code
        begin(store, SESSION, prompt="", agent="watch")
        track(store, SESSION, [b"b.txt"])
        Path("b.txt").write_text("y\n")
        record_after(store, SESSION, close=True)
        log = run_rewind("log", "--session", SESSION)
        assert f"session {SESSION} (claude-code)" in log.stdout

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            title = app.screen.query_one("#title", Static)
            line = "".join(segment.text for segment in title.render_line(0))
            assert "claude-code" in line and "watch" not in line
            await pilot.press("s")
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            assert str(table.get_row_at(0)[1]) == "claude-code"

        run(project, scenario)


def test_an_unknown_session_is_the_usual_error(recorded: Store, project: Path) -> None:
    result = run_rewind("tui", "--session", "UNKNOWN")
    assert result.returncode == 1
    assert error_line(result) == (
        "rewind: there is no session 'UNKNOWN'; 'rewind sessions' lists them."
    )


class TestEightyByTwentyFour:
    """The timeline at the size a terminal opens at (issue 24, item 5)."""

    def test_nine_entries_in_view_and_the_prompt_takes_the_room(self, project: Path) -> None:
        store = open_current_store(create=True)
        for number in range(1, 13):
            turn(
                store, f"Turn {number}: " + "make the parser faster " * 3, {"a.txt": f"{number}\n"}
            )

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            assert table.widths is not None and table.widths.compact
            assert table.size.height - 1 >= 9  # rows in view, the header aside
            assert table.widths.prompt >= 45
            title = app.screen.query_one("#title", Static)
            line = "".join(segment.text for segment in title.render_line(0)).rstrip()
            assert "…" not in line and len(line) <= 80, line  # the compact title, whole

        run(project, scenario, size=(80, 24))

    def test_j_and_k_move_the_selection(self, project: Path) -> None:
        store = open_current_store(create=True)
        for number in range(1, 4):
            turn(store, f"turn {number}", {"a.txt": f"{number}\n"})

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            assert table.cursor_row == 2
            await pilot.press("k", "k")
            assert table.cursor_row == 0
            await pilot.press("j")
            assert table.cursor_row == 1

        run(project, scenario, size=(80, 24))

    def test_a_restore_and_its_undo_come_into_view_selected(self, project: Path) -> None:
        store = open_current_store(create=True)
        for number in range(1, 13):
            turn(store, f"turn {number}", {"a.txt": f"{number}\n"})

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            table = app.screen.query_one(TurnTable)
            await pilot.press("home")  # the oldest turn selected, the newest out of view
            await pilot.press("escape", "escape")
            await pilot.pause()
            await pilot.press("enter")  # the turn at the top of the menu: the newest
            await pilot.pause()
            await pilot.press("enter", "y")  # restore code, confirmed
            await settle(app, pilot)
            await pilot.pause(0.3)
            newest = timeline_rows(app)[-1]
            assert newest.kind == "restore"
            assert table.selected_id() == newest.entry_id  # selected, so scrolled into view
            await pilot.press("u")
            await settle(app, pilot)
            await pilot.pause(0.3)
            assert timeline_rows(app)[-1].kind == "undo"
            assert table.selected_id() == timeline_rows(app)[-1].entry_id

        run(project, scenario, size=(80, 24))


def timeline_rows(app: RewindApp) -> list[TurnRow]:
    from rewind.tui.timeline_screen import TimelineScreen

    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    return screen.rows


def test_the_sessions_screen_fits_80_columns(recorded: Store, project: Path) -> None:
    from rewind.tui.sessions_screen import SessionsScreen

    async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
        await pilot.press("s")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one(DataTable)
        used = sum(column.get_render_width(table) for column in table.columns.values())
        assert used <= table.size.width, (used, table.size.width)  # no column off screen

    run(project, scenario, size=(80, 24))
