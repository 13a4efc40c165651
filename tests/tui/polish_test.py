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

from rewind.history.insight.labels import add_label
from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import load_head
from rewind.store.repository import Store
from rewind.tui import restore_actions
from rewind.tui.app import NOTICE_SECONDS, RewindApp
from rewind.tui.file_choice import Checks, FileChoice
from rewind.tui.help_screen import HelpScreen
from rewind.tui.timeline_data import Counts
from rewind.tui.turn_table import (
    FILES_WIDTH,
    LABELS_WIDTH,
    PROMPT_WIDTH,
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
            assert prompt.plain.endswith("…") and prompt.cell_len == PROMPT_WIDTH
            assert labels.plain.endswith("…") and labels.cell_len == LABELS_WIDTH

        run(project, scenario)

    def test_the_title_line_is_cut_with_an_ellipsis(self, project: Path) -> None:
        turn(open_current_store(create=True), "one", {"a.txt": "x\n"})

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            title = app.screen.query_one("#title", Static)
            line = "".join(segment.text for segment in title.render_line(0))
            assert line.rstrip().endswith("…"), line

        run(project, scenario, size=(40, 24))


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
    def test_m_c_and_u_are_in_the_footer_and_in_help(self, recorded: Store, project: Path) -> None:
        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            footer = app.screen.query_one(Footer)
            keys = {key.key for key in footer.query(FooterKey)}
            assert {"m", "c", "u", "slash", "d", "v", "l", "s", "q"} <= keys
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            rows = app.screen.rows
            assert {"m", "c", "u"} <= {key for _, key, _ in rows}
            assert {"choose files", "confirm restore", "label dialog"} <= {w for w, _, _ in rows}

        run(project, scenario)


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
