"""The rewind menu, its file choice and its confirmation, driven by keys on a real store.

Each history is recorded through the engine (begin, track, record_after) on real files; what a
restore through the menu leaves on disk is compared with ``rewind restore N --yes`` on a twin.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Label, OptionList

from rewind.errors import UserError
from rewind.history.conversation.cut_point import CutPoint, fingerprint
from rewind.history.recording import turns as recording
from rewind.history.restoring.opening import open_store
from rewind.store.repository import Store
from rewind.tui.confirm_restore import ConfirmRestore
from rewind.tui.file_choice import FileChoice
from rewind.tui.restore_actions import RestoreOutcome, plan_for, restore, undo_last
from rewind.tui.rewind_menu import RewindMenu
from tests.conftest import ok, snapshot

SESSION = "s"
SIZE = (100, 30)
# Keys from the row the menu starts on (turn 3, the newest; the list is oldest first) to turn
# 1's actions.
TO_TURN_1 = ("up", "up", "enter")

SnapCompare = Callable[..., bool]


def record_history(root: Path) -> Store:
    """Three turns: edit a and b; create new.txt and delete gone.txt; edit a again."""
    (root / "a.txt").write_bytes(b"one\n")
    (root / "b.txt").write_bytes(b"two\n")
    (root / "gone.txt").write_bytes(b"bye\n")
    store = open_store(os.fsencode(os.path.realpath(root)), create=True)
    turns: list[tuple[str, dict[str, bytes | None]]] = [
        ("edit a and b", {"a.txt": b"one\nONE\n", "b.txt": b"two\nTWO\n"}),
        ("add new, remove gone", {"new.txt": b"new\n", "gone.txt": None}),
        ("edit a again\nwith a second line", {"a.txt": b"one\nONE\nuno\n"}),
    ]
    for prompt, files in turns:
        recording.begin(store, SESSION, prompt=prompt, agent="test")
        recording.track(store, SESSION, [name.encode() for name in files])
        for name, content in files.items():
            if content is None:
                (root / name).unlink()
            else:
                (root / name).write_bytes(content)
        recording.record_after(store, SESSION, close=True)
    return store


def twin(tmp_path: Path) -> Path:
    """A second project with the same history, restored through the CLI."""
    root = tmp_path / "twin"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    record_history(root)
    return root


class Host(App[None]):
    """A bare app that shows one screen and keeps what it hands back."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.shown = screen
        self.results: list[object] = []

    def on_mount(self) -> None:
        self.push_screen(self.shown, self.results.append)


def drive(app: Host, *keys: str) -> list[object]:
    """Runs ``app`` headless, presses ``keys`` (``"|"`` waits for screens to settle)."""

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            for key in keys:
                if key == "|":
                    await pilot.pause()
                else:
                    await pilot.press(key)
            await pilot.pause()

    asyncio.run(run())
    return app.results


def menu(store: Store) -> Host:
    return Host(RewindMenu(store, SESSION))


class TestTheTurnsListed:
    def test_oldest_first_as_the_timeline_from_the_turn_it_has_selected(
        self, project: Path
    ) -> None:
        store = record_history(project)
        entries = [entry.id for entry in RewindMenu(store, SESSION).entries]

        async def highlighted(selected: str | None) -> tuple[list[str], int | None]:
            app = Host(RewindMenu(store, SESSION, selected))
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                turns = app.screen.query_one("#turns", OptionList)
                listed = [str(turns.get_option_at_index(i).id) for i in range(turns.option_count)]
                return listed, turns.highlighted

        assert asyncio.run(highlighted(None)) == (entries, 2)  # the newest, as the timeline
        assert asyncio.run(highlighted(entries[0])) == (entries, 0)  # the timeline's choice
        assert asyncio.run(highlighted("not-an-entry")) == (entries, 2)


class TestRestoreThroughTheMenu:
    def test_restores_exactly_as_the_cli_does(self, project: Path, tmp_path: Path) -> None:
        store = record_history(project)
        other = twin(tmp_path)
        results = drive(menu(store), *TO_TURN_1, "enter", "|", "enter")
        ok("restore", "--session", SESSION, "--yes", "1", cwd=other)
        assert snapshot(project) == snapshot(other)
        assert (project / "a.txt").read_bytes() == b"one\n"
        assert (project / "gone.txt").read_bytes() == b"bye\n"
        assert not (project / "new.txt").exists()
        [outcome] = results
        assert isinstance(outcome, RestoreOutcome)
        assert outcome.message == "Restored 4 files to before turn 1 (restore 4)."
        assert outcome.undoable

    def test_undo_last_brings_everything_back(self, project: Path) -> None:
        store = record_history(project)
        before = snapshot(project)
        drive(menu(store), *TO_TURN_1, "enter", "|", "enter")
        assert snapshot(project) != before
        outcome = undo_last(store, SESSION)
        assert outcome.message == "Took back restore 4: 4 files put back (undo 5)."
        assert snapshot(project) == before

    def test_a_later_turn_restores_only_what_came_after(self, project: Path) -> None:
        store = record_history(project)
        drive(menu(store), "up", "enter", "enter", "|", "enter")  # turn 2
        assert (project / "a.txt").read_bytes() == b"one\nONE\n"
        assert (project / "b.txt").read_bytes() == b"two\nTWO\n"
        assert (project / "gone.txt").read_bytes() == b"bye\n"

    def test_escape_and_never_mind_change_nothing(self, project: Path) -> None:
        store = record_history(project)
        before = snapshot(project)
        assert drive(menu(store), "escape") == [None]
        assert drive(menu(store), *TO_TURN_1, "escape", "escape") == [None]
        assert drive(menu(store), *TO_TURN_1, "up", "enter") == [None]  # "Never mind"
        assert drive(menu(store), *TO_TURN_1, "enter", "|", "escape", "escape", "escape") == [None]
        assert snapshot(project) == before


class TestMenuContent:
    def test_turns_oldest_first_with_prompt_and_summary(self, project: Path) -> None:
        store = record_history(project)
        screen = RewindMenu(store, SESSION)
        rows: list[str] = []

        async def run() -> None:
            async with Host(screen).run_test(size=SIZE) as pilot:
                await pilot.pause()
                turns = screen.query_one("#turns", OptionList)
                for index in range(turns.option_count):
                    rows.append(str(turns.get_option_at_index(index).prompt))

        asyncio.run(run())
        assert [row.split()[0] for row in rows] == ["1", "2", "3"]  # as the timeline
        assert "edit a again" in rows[2] and "second line" not in rows[2]
        assert rows[2].endswith("1 file +1 -0")
        assert rows[1].endswith("2 files +1 -1")
        assert rows[0].endswith("2 files +2 -0")

    def test_diff_against_now_is_shown_and_closed(self, project: Path) -> None:
        store = record_history(project)
        screen = RewindMenu(store, SESSION)
        seen: list[str] = []

        async def run() -> None:
            app = Host(screen)
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press(*TO_TURN_1, "down", "down", "enter")
                await pilot.pause()
                seen.append(type(app.screen).__name__)
                await pilot.press("escape")
                await pilot.pause()
                seen.append(type(app.screen).__name__)

        asyncio.run(run())
        assert seen == ["DiffNow", "RewindMenu"]


class TestChoosingFiles:
    def test_only_the_chosen_files_are_restored(self, project: Path) -> None:
        store = record_history(project)
        # Choose files for turn 1; uncheck the first (a.txt); continue; confirm.
        drive(menu(store), *TO_TURN_1, "down", "enter", "|", "space", "enter", "|", "enter")
        assert (project / "a.txt").read_bytes() == b"one\nONE\nuno\n"
        assert (project / "b.txt").read_bytes() == b"two\n"
        assert (project / "gone.txt").read_bytes() == b"bye\n"
        assert not (project / "new.txt").exists()

    def test_choosing_nothing_restores_nothing(self, project: Path) -> None:
        store = record_history(project)
        before = snapshot(project)
        results = drive(menu(store), *TO_TURN_1, "down", "enter", "|", "a", "enter", "|")
        assert results == []  # the menu stays open
        assert snapshot(project) == before

    def test_file_choice_preselects_all_but_conflicts(self, project: Path) -> None:
        store = record_history(project)
        (project / "b.txt").write_bytes(b"changed outside\n")
        plan = plan_for(store, SESSION, 1)
        [chosen] = drive(Host(FileChoice(plan)), "enter")
        assert chosen == {b"a.txt", b"new.txt", b"gone.txt"}


class TestConflicts:
    def test_a_file_changed_outside_is_left_alone(self, project: Path) -> None:
        store = record_history(project)
        (project / "b.txt").write_bytes(b"changed outside\n")
        [outcome] = drive(menu(store), *TO_TURN_1, "enter", "|", "enter")
        assert isinstance(outcome, RestoreOutcome)
        assert outcome.message == (
            "Restored 3 files to before turn 1 (restore 4); left 1 file changed outside alone."
        )
        assert (project / "b.txt").read_bytes() == b"changed outside\n"
        assert (project / "a.txt").read_bytes() == b"one\n"
        assert (project / "gone.txt").read_bytes() == b"bye\n"

    def test_forcing_restores_it_and_undo_brings_it_back(self, project: Path) -> None:
        store = record_history(project)
        (project / "b.txt").write_bytes(b"changed outside\n")
        before = snapshot(project)
        [outcome] = drive(menu(store), *TO_TURN_1, "enter", "|", "f", "y")
        assert isinstance(outcome, RestoreOutcome)
        assert outcome.message == "Restored 4 files to before turn 1 (restore 4)."
        assert (project / "b.txt").read_bytes() == b"two\n"
        undo_last(store, SESSION)
        assert snapshot(project) == before

    def test_confirmation_returns_only_the_forced_files(self, project: Path) -> None:
        store = record_history(project)
        (project / "b.txt").write_bytes(b"changed outside\n")
        plan = plan_for(store, SESSION, 1)
        chosen = {f.path for f in plan.files}
        assert drive(Host(ConfirmRestore(plan, chosen)), "enter") == [set()]
        assert drive(Host(ConfirmRestore(plan, chosen)), "f", "enter") == [{b"b.txt"}]
        assert drive(Host(ConfirmRestore(plan, chosen)), "escape") == [None]

    def test_every_sections_count_is_in_sight_on_a_small_screen(self, project: Path) -> None:
        store = record_history(project)
        (project / "b.txt").write_bytes(b"changed outside\n")
        plan = plan_for(store, SESSION, 1)
        app = Host(ConfirmRestore(plan, {f.path for f in plan.files}))

        async def summary() -> tuple[str, bool]:
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                label = app.screen.query_one(".summary", Label)
                inside = app.screen.region.contains_region(label.region)
                return str(label.render()), inside and label.region.height > 0

        text, in_sight = asyncio.run(summary())
        assert text == ("1 put back · 1 deleted · 1 brought back · 1 changed outside since")
        assert in_sight


class TestMouse:
    def test_buttons_answer_clicks(self, project: Path) -> None:
        store = record_history(project)
        plan = plan_for(store, SESSION, 1)
        chosen = {f.path for f in plan.files}
        for screen, button, expected in [
            (ConfirmRestore(plan, chosen), "#confirm", set()),
            (ConfirmRestore(plan, chosen), "#cancel", None),
            (FileChoice(plan), "#confirm", chosen),
            (FileChoice(plan), "#cancel", None),
        ]:
            app = Host(screen)

            async def run(app: Host = app, button: str = button) -> None:
                async with app.run_test(size=SIZE) as pilot:
                    await pilot.pause()
                    await pilot.click(button)
                    await pilot.pause()

            asyncio.run(run())
            assert app.results == [expected]


class TestRestoreActions:
    def test_the_open_turn_is_closed_first_as_the_cli_does(self, project: Path) -> None:
        store = record_history(project)
        recording.begin(store, SESSION, prompt="still going")
        recording.track(store, SESSION, [b"b.txt"])
        (project / "b.txt").write_bytes(b"half done\n")
        outcome = restore(store, plan_for(store, SESSION, 4), set())
        assert outcome.message == "Restored 1 file to before turn 4 (restore 5)."
        assert (project / "b.txt").read_bytes() == b"two\nTWO\n"
        undo_last(store, SESSION)
        assert (project / "b.txt").read_bytes() == b"half done\n"

    def test_an_unknown_turn_is_refused_as_the_cli_refuses_it(self, project: Path) -> None:
        store = record_history(project)
        with pytest.raises(UserError, match="there is no turn '9'"):
            plan_for(store, SESSION, 9)

    def test_errors_become_outcomes(self, project: Path) -> None:
        store = record_history(project)
        outcome = undo_last(store, SESSION)
        assert outcome.message.startswith("There is no restore to undo in this session")
        assert not outcome.undoable

    def test_a_file_changed_after_the_plan_is_refused(self, project: Path) -> None:
        store = record_history(project)
        plan = plan_for(store, SESSION, "1")
        (project / "a.txt").write_bytes(b"meanwhile\n")
        outcome = restore(store, plan, set())
        assert outcome.message == (
            "a.txt changed while the restore was being prepared; nothing was written."
        )
        assert (project / "a.txt").read_bytes() == b"meanwhile\n"

    def test_nothing_left_to_restore(self, project: Path) -> None:
        store = record_history(project)
        restore(store, plan_for(store, SESSION, 1), set())
        outcome = restore(store, plan_for(store, SESSION, 1), set())
        assert outcome.message == (
            "Nothing to restore: every file is already as it was before turn 1."
        )
        assert not outcome.undoable


class TestSnapshots:
    def test_menu_120x40(self, project: Path, snap_compare: SnapCompare) -> None:
        assert snap_compare(menu(record_history(project)), terminal_size=(120, 40))

    def test_menu_80x24(self, project: Path, snap_compare: SnapCompare) -> None:
        assert snap_compare(menu(record_history(project)), terminal_size=(80, 24))

    def test_confirmation_120x40(self, project: Path, snap_compare: SnapCompare) -> None:
        store = record_history(project)
        (project / "b.txt").write_bytes(b"changed outside\n")
        assert snap_compare(menu(store), press=[*TO_TURN_1, "enter"], terminal_size=(120, 40))

    def test_confirmation_80x24(self, project: Path, snap_compare: SnapCompare) -> None:
        store = record_history(project)
        (project / "b.txt").write_bytes(b"changed outside\n")
        assert snap_compare(menu(store), press=[*TO_TURN_1, "enter"], terminal_size=(80, 24))


def record_agent_history(root: Path, transcript: Path) -> Store:
    """The history of :func:`record_history`, as Claude Code's turns: each with where the
    agent's conversation stood before its prompt (a transcript growing by one exchange)."""
    (root / "a.txt").write_bytes(b"one\n")
    store = open_store(os.fsencode(os.path.realpath(root)), create=True)
    for number, content in enumerate((b"one\nONE\n", b"one\nONE\nuno\n"), 1):
        offset = transcript.stat().st_size if transcript.exists() else 0
        data = transcript.read_bytes() if transcript.exists() else b""
        cut = CutPoint("claude-code", "c1", str(transcript), offset, fingerprint(data), "", "")
        recording.begin(
            store, SESSION, prompt=f"turn {number}", agent="claude-code", conversation=cut.to_json()
        )
        recording.track(store, SESSION, [b"a.txt"])
        (root / "a.txt").write_bytes(content)
        recording.record_after(store, SESSION, close=True)
        with transcript.open("ab") as handle:
            handle.write(b'{"type": "user", "uuid": "u%d", "version": "2.1.332"}\n' % number)
    return store


def fake_claude(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``claude`` on PATH that says its version, as the installed client would."""
    folder.mkdir()
    program = folder / "claude"
    program.write_text('#!/bin/sh\necho "2.1.332 (Claude Code)"\n')
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def actions_of(screen: RewindMenu, *keys: str) -> tuple[list[str], str]:
    """The ids of the actions offered after ``keys``, and the hint under them."""
    seen: list[str] = []
    hint: list[str] = []

    async def run() -> None:
        async with Host(screen).run_test(size=SIZE) as pilot:
            await pilot.press(*keys)
            await pilot.pause()
            actions = screen.query_one("#actions", OptionList)
            seen.extend(str(actions.get_option_at_index(i).id) for i in range(actions.option_count))
            hint.append(str(screen.query_one("#hint", Label).render()))

    asyncio.run(run())
    return seen, hint[0]


class TestTheConversation:
    def test_a_turn_of_an_agent_offers_code_conversation_or_both(
        self, project: Path, tmp_path: Path
    ) -> None:
        store = record_agent_history(project, tmp_path / "t.jsonl")
        actions, hint = actions_of(RewindMenu(store, SESSION), "enter")
        assert actions == ["both", "restore", "conversation", "choose", "diff", "never"]
        assert "conversation stays" not in hint

    def test_a_turn_whose_conversation_cannot_be_resumed_says_why(self, project: Path) -> None:
        store = record_history(project)
        actions, hint = actions_of(RewindMenu(store, SESSION), "enter")
        assert actions == ["restore", "choose", "diff", "never"]
        assert (
            "The conversation stays as it is: the turn was not recorded by an agent's hook" in hint
        )

    def test_both_restores_the_files_then_hands_the_turn_over(
        self, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = record_agent_history(project, tmp_path / "t.jsonl")
        fake_claude(tmp_path / "bin", monkeypatch)
        [outcome] = drive(menu(store), "up", "enter", "enter", "|", "enter")  # turn 1: both
        assert isinstance(outcome, RestoreOutcome) and outcome.undoable
        assert outcome.resume is not None and outcome.resume.number == 1
        assert (project / "a.txt").read_bytes() == b"one\n"

    def test_the_conversation_alone_changes_no_file(
        self, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = record_agent_history(project, tmp_path / "t.jsonl")
        fake_claude(tmp_path / "bin", monkeypatch)
        before = snapshot(project)
        [outcome] = drive(menu(store), "enter", "down", "down", "enter")  # turn 2: conversation
        assert isinstance(outcome, RestoreOutcome)
        assert outcome.resume is not None and outcome.resume.number == 2
        assert snapshot(project) == before

    def test_without_the_client_nothing_happens_and_it_says_so(
        self, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = record_agent_history(project, tmp_path / "t.jsonl")
        (tmp_path / "empty").mkdir()
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
        before = snapshot(project)
        assert drive(menu(store), "enter", "enter") == []  # the menu stays open
        assert snapshot(project) == before

    def test_a_transcript_gone_is_said_before_any_file_changes(
        self, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = record_agent_history(project, tmp_path / "t.jsonl")
        fake_claude(tmp_path / "bin", monkeypatch)
        (tmp_path / "t.jsonl").unlink()  # the agent removed the conversation
        before = snapshot(project)
        assert drive(menu(store), "enter", "enter", "|", "enter") == []  # turn 2, both: stays open
        assert snapshot(project) == before


def test_a_binary_files_turn_says_binary_not_plus_nothing(project: Path) -> None:
    """The menu's line of a turn that changed only a binary file (issue 24, item 5)."""
    from rewind.history.lookup import newest
    from rewind.history.restoring.opening import open_current_store
    from rewind.history.session import load_head
    from rewind.tui.rewind_menu import change_summary
    from tests.tui import conftest

    store = open_current_store(create=True)
    conftest.turn(store, "text", {"a.txt": "one\n"})
    conftest.turn(store, "logo", {"logo.png": "\x89PNG\x00\x00\x01"})
    conftest.turn(store, "both", {"a.txt": "one\ntwo\n", "logo.png": "\x89PNG\x00\x00\x02"})
    first, logo, both = newest(store, load_head(store, conftest.SESSION), 3)
    assert change_summary(store, first) == "1 file +1 -0"
    assert change_summary(store, logo) == "1 file, binary"
    assert change_summary(store, both) == "2 files +1 -0"
