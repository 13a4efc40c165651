"""The hunk picker (``p`` on the timeline): putting back some hunks, or single lines, of what a
turn did to a file, driven by keys on histories recorded through the engine on real files."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_current_store
from rewind.history.restoring.partial import file_hunks
from rewind.history.session import load_head
from rewind.history.sessions import read_entries
from rewind.store.repository import Store
from rewind.tui.confirm_partial import ConfirmPartial
from rewind.tui.diff_view import DiffView
from rewind.tui.help_screen import HelpScreen
from rewind.tui.hunk_picker import HunkList, HunkPicker, LineList
from rewind.tui.restore_actions import HunkChoice, RestoreOutcome
from rewind.tui.timeline_screen import TimelineScreen
from tests.tui.app_test import notices, prompts, run_app, timeline
from tests.tui.conftest import SESSION, turn

BEFORE = "".join(f"line {n}\n" for n in range(1, 21))
# The turn: two separate changes, hunk 1 (line 2) and hunk 2 (line 10 -> two lines).
AFTER = BEFORE.replace("line 2\n", "LINE TWO\n").replace("line 10\n", "ten\nten and a half\n")
# A hand edit after the turn, away from both hunks.
HAND = AFTER.replace("line 15\n", "line 15, edited by hand\n")


@pytest.fixture
def edited(project: Path) -> Store:
    """f.txt as BEFORE, then one turn that makes it AFTER, then a hand edit (HAND)."""
    (project / "f.txt").write_text(BEFORE)
    store = open_current_store(create=True)
    turn(store, "Rewrite f.txt", {"f.txt": AFTER})
    (project / "f.txt").write_text(HAND)
    return store


def picker(app: App[Any]) -> HunkPicker:
    screen = app.screen
    assert isinstance(screen, HunkPicker), type(screen).__name__
    return screen


def hunk_rows(app: App[Any]) -> list[str]:
    hunks = picker(app).query_one(HunkList)
    return [str(option.prompt) for option in hunks.options]


def line_rows(app: App[Any]) -> list[str]:
    lines = picker(app).query_one(LineList)
    return [str(option.prompt) for option in lines.options]


def chosen_line(app: App[Any]) -> str:
    return str(picker(app).query_one("#chosen", Static).render())


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


def entry_count(store: Store) -> int:
    return len(read_entries(store, load_head(store, SESSION)))


class TestPutBackHunks:
    def test_one_of_two_hunks_is_put_back_and_a_later_hand_edit_survives(
        self, edited: Store, project: Path
    ) -> None:
        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p")
            rows = hunk_rows(app)
            assert rows[0].startswith("[ ]   1  @@ -1,5 +1,5 @@  -1 +1")
            assert rows[1].startswith("[ ]   2  @@ -7,7 +7,8 @@  -1 +2")
            assert len(rows) == 2
            # The focused hunk's diff, its changed lines numbered as 'rewind show' does.
            assert line_rows(app)[0] == "hunk 1/2 of f.txt  @@ -1,5 +1,5 @@"
            assert "[ ]   1  -line 2" in line_rows(app)
            assert "[ ]   2  +LINE TWO" in line_rows(app)
            await press(pilot, "down", "space")
            assert hunk_rows(app)[1].startswith("[x]   2")
            assert hunk_rows(app)[0].startswith("[ ]   1")
            assert "[x]   3  +ten and a half" in line_rows(app)
            assert "Chosen (as --hunks): 2 " in chosen_line(app)
            await press(pilot, "r")
            confirm = app.screen
            assert isinstance(confirm, ConfirmPartial)
            shown = "\n".join(confirm.query_one(DiffView).text_lines())
            assert "-ten\n-ten and a half\n+line 10" in shown
            assert (project / "f.txt").read_text() == HAND  # nothing written yet
            await press(pilot, "y")
            assert isinstance(app.screen, TimelineScreen)
            assert "Put back 1 hunk of f.txt (restore 2); 'u' undoes it." in notices(app)
            await pilot.pause(0.3)
            newest = timeline(app).rows[-1]  # the timeline shows the new restore entry
            assert (newest.kind, newest.title) == ("restore", "put back hunks of turn 1: f.txt 2")
            assert prompts(app)[-1].startswith("[restore] put back hunks")

        run_app(project, scenario)
        expected = HAND.replace("ten\nten and a half\n", "line 10\n")
        assert (project / "f.txt").read_text() == expected
        assert "line 15, edited by hand" in expected and "LINE TWO" in expected

    def test_single_lines_of_a_hunk_are_put_back(self, edited: Store, project: Path) -> None:
        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p", "down", "enter")
            lines = picker(app).query_one(LineList)
            assert picker(app).focused is lines
            assert lines.highlighted_option is not None
            assert lines.highlighted_option.id == "1"  # the first changed line, not context
            await press(pilot, "down", "down", "space")  # line 3: +ten and a half
            assert "[x]   3  +ten and a half" in line_rows(app)
            assert "[ ]   1  -line 10" in line_rows(app)
            assert hunk_rows(app)[1].startswith("[~]   2")
            assert "lines 3 of 3" in hunk_rows(app)[1]
            assert "Chosen (as --hunks): 2:3 " in chosen_line(app)
            await press(pilot, "escape")  # back to the hunks: the choice stays
            assert picker(app).focused is picker(app).query_one(HunkList)
            assert lines.highlighted is None
            await press(pilot, "r", "y")
            assert "Put back 1 line of hunk 2 of f.txt (restore 2); 'u' undoes it." in notices(app)

        run_app(project, scenario)
        assert (project / "f.txt").read_text() == HAND.replace("ten and a half\n", "")

    def test_space_on_lines_then_on_the_hunk_chooses_it_whole_then_none(
        self, edited: Store, project: Path
    ) -> None:
        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p", "enter", "space")  # hunk 1, its line 1
            assert hunk_rows(app)[0].startswith("[~]   1")
            await press(pilot, "h", "space")  # back to the hunks: some lines -> whole
            assert hunk_rows(app)[0].startswith("[x]   1")
            assert "[x]   2  +LINE TWO" in line_rows(app)
            await press(pilot, "space")
            assert hunk_rows(app)[0].startswith("[ ]   1")
            await press(pilot, "a")
            assert [row[:3] for row in hunk_rows(app)] == ["[x]", "[x]"]
            await press(pilot, "n")
            assert [row[:3] for row in hunk_rows(app)] == ["[ ]", "[ ]"]
            assert chosen_line(app).startswith("Nothing chosen")
            await press(pilot, "r")
            assert isinstance(app.screen, HunkPicker)
            assert any(message.startswith("Nothing is chosen") for message in notices(app))

        run_app(project, scenario)
        assert (project / "f.txt").read_text() == HAND

    def test_undo_afterwards_gives_back_the_exact_bytes(self, project: Path) -> None:
        (project / "f.txt").write_text(BEFORE)
        store = open_current_store(create=True)
        turn(store, "Rewrite f.txt", {"f.txt": AFTER})
        # By hand since: CRLF line ends in one place, a tab, no newline at the end.
        now = AFTER.replace("line 15\n", "line 15\r\n").replace("line 19\n", "\tline 19\n")
        now_bytes = now.rstrip("\n").encode()
        (project / "f.txt").write_bytes(now_bytes)

        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p", "a", "r", "y")
            assert isinstance(app.screen, TimelineScreen)
            assert "Put back 2 hunks of f.txt (restore 2); 'u' undoes it." in notices(app)
            put_back = (project / "f.txt").read_bytes()
            assert b"line 2\n" in put_back and b"line 15\r\n" in put_back
            assert put_back.endswith(b"line 20")
            await press(pilot, "u")
            assert any(message.startswith("Took back restore 2") for message in notices(app))
            await pilot.pause(0.3)
            assert prompts(app)[-1].startswith("[undo]")

        run_app(project, scenario)
        assert (project / "f.txt").read_bytes() == now_bytes


class TestRefusals:
    def test_a_hunk_that_no_longer_applies_is_shown_and_cannot_be_chosen(
        self, edited: Store, project: Path
    ) -> None:
        (project / "f.txt").write_text(HAND.replace("LINE TWO\n", "line two, by hand\n"))

        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p")
            first = hunk_rows(app)[0]
            assert first.startswith("[ ]   1")
            assert first.endswith("no longer applies: its lines were changed since")
            assert "1 no longer applies" in str(picker(app).query_one("#title", Static).render())
            assert "[ ]   2  +LINE TWO" in line_rows(app)  # its diff is still shown
            await press(pilot, "space")
            assert hunk_rows(app)[0].startswith("[ ]   1")
            assert picker(app).selection == {}
            message = (
                "Hunk 1 no longer applies (its lines were changed since); it cannot be put back."
            )
            assert message in notices(app)
            await press(pilot, "enter")  # its lines cannot be chosen either
            assert picker(app).focused is picker(app).query_one(HunkList)
            await press(pilot, "a")
            assert picker(app).selection == {2: None}
            await press(pilot, "r", "y")
            assert "Put back 1 hunk of f.txt (restore 2); 'u' undoes it." in notices(app)

        run_app(project, scenario)
        assert (project / "f.txt").read_text() == (
            HAND.replace("LINE TWO\n", "line two, by hand\n").replace(
                "ten\nten and a half\n", "line 10\n"
            )
        )

    def test_a_hunk_changed_while_the_picker_is_open_is_refused_and_shown(
        self, edited: Store, project: Path
    ) -> None:
        changed = HAND.replace("ten and a half\n", "ten and three quarters\n")

        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p", "a")
            (project / "f.txt").write_text(changed)  # an editor saves meanwhile
            await press(pilot, "r")
            assert isinstance(app.screen, HunkPicker)
            refusal = [m for m in notices(app) if "no longer apply" in m]
            assert refusal and "f.txt hunk 2: its lines were changed since" in refusal[0]
            assert refusal[0].endswith(
                "nothing was written. Compare 'rewind show 1 --path "
                "f.txt' with the file, and leave those hunks out."
            )
            assert "no longer applies" in hunk_rows(app)[1]
            assert picker(app).selection == {1: None}  # the refused hunk is left out

        run_app(project, scenario)
        assert (project / "f.txt").read_text() == changed
        assert entry_count(edited) == 1

    def test_escape_changes_nothing(self, edited: Store, project: Path) -> None:
        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p", "a", "r")
            assert isinstance(app.screen, ConfirmPartial)
            await press(pilot, "escape")  # the confirmation: back to the picker, choice kept
            assert picker(app).selection == {1: None, 2: None}
            app._last_escape = 0.0  # a while ago: not Esc Esc (the rewind menu)
            await press(pilot, "escape")
            assert isinstance(app.screen, TimelineScreen)
            assert not any(message.startswith("Put back") for message in notices(app))

        run_app(project, scenario)
        assert (project / "f.txt").read_text() == HAND
        assert entry_count(edited) == 1

    def test_a_binary_file_is_refused_with_a_notification(self, project: Path) -> None:
        store = open_current_store(create=True)
        turn(store, "Write data", {"data.bin": "\0\1\2 binary\n"})

        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p")
            assert isinstance(app.screen, TimelineScreen)
            assert notices(app) == [
                "No hunks to choose: data.bin is a binary file; restore the whole file from "
                "the rewind menu (Esc Esc, then Choose files) instead."
            ]

        run_app(project, scenario)

    def test_a_symlink_is_refused_with_a_notification(self, project: Path) -> None:
        store = open_current_store(create=True)
        begin(store, SESSION, prompt="Link it", agent="claude-code")
        track(store, SESSION, [b"link"])
        os.symlink("elsewhere", project / "link")
        record_after(store, SESSION, close=True)

        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p")
            assert isinstance(app.screen, TimelineScreen)
            assert any(
                message.startswith("No hunks to choose: link is a symlink there;")
                for message in notices(app)
            )

        run_app(project, scenario)

    def test_a_file_the_turn_deleted_is_refused_with_a_notification(self, project: Path) -> None:
        (project / "gone.txt").write_text("bye\n")
        store = open_current_store(create=True)
        turn(store, "Delete it", {"gone.txt": None})

        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p")
            assert isinstance(app.screen, TimelineScreen)
            assert notices(app) == [
                "No hunks to choose: gone.txt does not exist now, so no hunk can be put back "
                "into it; restore the whole file from the rewind menu (Esc Esc, then Choose "
                "files) instead."
            ]

        run_app(project, scenario)

    def test_an_open_turn_is_refused_with_a_notification(
        self, edited: Store, project: Path
    ) -> None:
        begin(edited, SESSION, prompt="Still going", agent="claude-code")
        track(edited, SESSION, [b"f.txt"])

        async def scenario(app: Any, pilot: Pilot[None]) -> None:
            await press(pilot, "p")
            assert isinstance(app.screen, TimelineScreen)
            assert any("is still open" in message for message in notices(app))

        run_app(project, scenario)


class Host(App[None]):
    """A bare app that shows the picker alone and keeps what it hands back."""

    def __init__(self, screen: HunkPicker) -> None:
        super().__init__()
        self.shown = screen
        self.results: list[RestoreOutcome | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.shown, self.results.append)


def test_the_picker_takes_any_two_recorded_states(project: Path) -> None:
    """A diff between two versions of a file (not one turn's) is chosen from and put back."""
    (project / "f.txt").write_text(BEFORE)
    store = open_current_store(create=True)
    turn(store, "First", {"f.txt": BEFORE.replace("line 2\n", "two\n")})
    turn(store, "Second", {"f.txt": AFTER})
    first, second = read_entries(store, load_head(store, SESSION))
    # From the file as turn 1 left it to as turn 2 left it: hunk 1 is LINE TWO (turn 2 changed
    # "two"), hunk 2 the lines about ten.
    found = file_hunks(store, b"f.txt", first.files[0].after, second.files[0].after)
    choice = HunkChoice(store, SESSION, second, found, "f.txt: version 2 against version 1")
    app = Host(HunkPicker(choice, choice.blocked()))

    async def drive() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert "[ ]   1  -two" in line_rows(app)
            await press(pilot, "space", "r", "y")

    asyncio.run(drive())
    assert app.results == [
        RestoreOutcome("Put back 1 hunk of f.txt (restore 3); 'u' undoes it.", True)
    ]
    assert (project / "f.txt").read_text() == AFTER.replace("LINE TWO\n", "two\n")


def test_p_is_in_the_footer_and_help_lists_the_pickers_keys(edited: Store, project: Path) -> None:
    async def scenario(app: Any, pilot: Pilot[None]) -> None:
        footer = app.screen.query_one(Footer)
        assert "p" in {key.key for key in footer.query(FooterKey)}
        await press(pilot, "p")
        footer = app.screen.query_one(Footer)
        assert {"space", "enter", "a", "n", "r", "escape"} <= {
            key.key for key in footer.query(FooterKey)
        }
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = {(where, key) for where, key, _ in app.screen.rows}
        assert ("timeline", "p") in rows
        assert {("put back hunks", "r"), ("hunk lines", "space"), ("confirm put back", "y")} <= rows

    run_app(project, scenario)
