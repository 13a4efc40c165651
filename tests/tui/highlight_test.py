"""Syntax highlighting in the diff view: colours by the file's language, the diff's meaning kept,
and only the lines on screen tokenized. Real sessions recorded through the engine, real Pygments.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.color import Color
from rich.segment import Segment
from textual.pilot import Pilot

from rewind.history.restoring.opening import open_current_store
from rewind.store.repository import Store
from rewind.tui.app import RewindApp
from rewind.tui.diff_view import CODE_BACKGROUNDS, STYLES, DiffView, diff_file_name
from rewind.tui.file_list import FileList
from rewind.tui.highlight import code_segments, lexer_for
from rewind.tui.timeline_data import TURN_DIFF
from tests.tui.app_test import SIZE, run_app, timeline
from tests.tui.conftest import turn

ADDED_TINT = CODE_BACKGROUNDS["added"].bgcolor
REMOVED_TINT = CODE_BACKGROUNDS["removed"].bgcolor
GREEN = STYLES["added"].color
RED = STYLES["removed"].color


def record_edit(project: Path) -> Store:
    """Turn 1 writes calc.py and notes.unknownext; turn 2 changes a line of each."""
    store = open_current_store(create=True)
    turn(
        store,
        "Write a calculator",
        {"calc.py": "def add(a, b):\n    return a + b\n", "notes.unknownext": "def a\nold\n"},
    )
    turn(
        store,
        "Return a string",
        {
            "calc.py": 'def add(a, b):\n    return "sum"  # total\n',
            "notes.unknownext": "def a\nnew\n",
        },
    )
    return store


def select_file(app: RewindApp, name: str) -> DiffView:
    files = app.screen.query_one(FileList)
    files.move_cursor(row=list(files.paths.values()).index(name.encode()))
    return app.screen.query_one(DiffView)


def rendered(view: DiffView, line: str) -> list[Segment]:
    """The segments the view draws for its line ``line`` (the view scrolled to the top)."""
    return list(view.render_line(view.text_lines().index(line)))


def colour_of(segments: list[Segment], text: str) -> Color | None:
    styles = [segment.style for segment in segments if segment.text == text]
    assert styles and styles[0] is not None, (text, segments)
    return styles[0].color


def backgrounds(segments: list[Segment]) -> set[Color | None]:
    return {None if segment.style is None else segment.style.bgcolor for segment in segments}


class TestLexer:
    def test_the_language_comes_from_the_file_name(self) -> None:
        assert lexer_for("calc.py") is not None
        assert lexer_for("src/deep/calc.py") is not None
        assert lexer_for("Makefile") is not None
        for unknown in ("notes.unknownext", "notes.txt", "README", "", "dir/"):
            assert lexer_for(unknown) is None, unknown

    def test_keywords_and_strings_are_coloured_apart_from_plain_names(self) -> None:
        lexer = lexer_for("calc.py")
        assert lexer is not None
        segments = code_segments('def add(a, b): return "sum"  # total', lexer)
        assert "".join(segment.text for segment in segments) == (
            'def add(a, b): return "sum"  # total'
        )
        keyword, string, name = (colour_of(segments, text) for text in ("def", "sum", "a"))
        comment = colour_of(segments, "# total")
        assert len({keyword, string, name, comment}) == 4
        assert None not in (keyword, string, name, comment)

    def test_tabs_keep_their_stops_after_the_marker(self) -> None:
        lexer = lexer_for("calc.py")
        assert lexer is not None
        segments = code_segments("\tif x:\t# tab", lexer, first_column=1)
        drawn = "+" + "".join(segment.text for segment in segments)
        assert drawn == "+\tif x:\t# tab".expandtabs(4)


class TestDiffView:
    def test_added_lines_are_tinted_dark_green_and_removed_lines_dark_red(self) -> None:
        assert ADDED_TINT is not None and REMOVED_TINT is not None
        red, green, blue = ADDED_TINT.get_truecolor()
        assert green > 2 * max(red, blue) and green < 96
        red, green, blue = REMOVED_TINT.get_truecolor()
        assert red > 2 * max(green, blue) and red < 96

    def test_python_lines_are_highlighted_and_keep_their_meaning(self, project: Path) -> None:
        record_edit(project)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            view = select_file(app, "calc.py")
            await pilot.pause()
            added = rendered(view, '+    return "sum"  # total')
            assert added[0].text == "+" and added[0].style is not None
            assert added[0].style.color == GREEN
            assert backgrounds(added) == {ADDED_TINT}  # the padding to the edge too
            assert colour_of(added, "return") not in (GREEN, colour_of(added, '"'), None)
            assert colour_of(added, "# total") != colour_of(added, "return")
            removed = rendered(view, "-    return a + b")
            assert removed[0].text == "-" and removed[0].style is not None
            assert removed[0].style.color == RED
            assert backgrounds(removed) == {REMOVED_TINT}
            assert colour_of(removed, "return") == colour_of(added, "return")
            context = rendered(view, " def add(a, b):")
            assert ADDED_TINT not in backgrounds(context) | {REMOVED_TINT}
            assert colour_of(context, "def") == colour_of(added, "return")  # both keywords
            hunk = rendered(view, next(line for line in view.text_lines() if line[:2] == "@@"))
            assert [segment.style for segment in hunk[:1]] == [STYLES["hunk"]]

        run_app(project, scenario)

    def test_an_unknown_language_keeps_the_plain_diff_colours(self, project: Path) -> None:
        record_edit(project)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            view = select_file(app, "notes.unknownext")
            await pilot.pause()
            assert view.text_lines()[0].startswith("notes.unknownext")
            assert rendered(view, "+new")[0] == Segment("+new", STYLES["added"])
            assert rendered(view, "-old")[0] == Segment("-old", STYLES["removed"])
            assert rendered(view, " def a")[0] == Segment(" def a", STYLES["plain"])

        run_app(project, scenario)

    def test_side_by_side_tints_the_old_half_red_and_the_new_half_green(
        self, project: Path
    ) -> None:
        record_edit(project)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            view = select_file(app, "calc.py")
            await pilot.press("v")
            await pilot.pause()
            assert view.has_class("-split")
            rows = [list(view.render_line(y)) for y in range(5)]
            changed = next(row for row in rows if "sum" in "".join(s.text for s in row))
            middle = next(i for i, segment in enumerate(changed) if segment.text == " │ ")
            old_half, new_half = changed[1:middle], changed[middle + 2 :]
            assert backgrounds(old_half) == {REMOVED_TINT}
            assert backgrounds(new_half) == {ADDED_TINT}
            assert colour_of(old_half, "return") == colour_of(new_half, "return")
            assert colour_of(new_half, "return") != colour_of(new_half, '"')
            same = next(row for row in rows if "def add" in "".join(s.text for s in row))
            assert backgrounds(same).isdisjoint({ADDED_TINT, REMOVED_TINT})
            assert colour_of(same, "def") == colour_of(new_half, "return")

        run_app(project, scenario)

    def test_the_language_is_read_from_the_diff_header_without_a_path(self, project: Path) -> None:
        record_edit(project)

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            diff = timeline(app).history.diff_text(1, b"calc.py", TURN_DIFF)
            assert diff_file_name(diff) == "calc.py"
            unnamed = dataclasses.replace(diff, path=b"")
            assert diff_file_name(unnamed) == "calc.py"
            view = app.screen.query_one(DiffView)
            view.show(unnamed)
            await pilot.pause()
            assert backgrounds(rendered(view, '+    return "sum"  # total')) == {ADDED_TINT}

        run_app(project, scenario)

    def test_only_the_lines_on_screen_are_tokenized(self, project: Path) -> None:
        store = open_current_store(create=True)
        lines = 10_000
        turn(store, "big", {"big.py": "".join(f"x{i} = {i}\n" for i in range(lines))})
        changed = "".join(f"x{i} = {i * (i % 3 == 0) + 1}\n" for i in range(lines))
        turn(store, "change every third line", {"big.py": changed})

        async def scenario(app: RewindApp, pilot: Pilot[None]) -> None:
            view = app.screen.query_one(DiffView)
            await pilot.pause()
            assert len(view.text_lines()) > lines
            assert 0 < len(view.styled_lines) <= SIZE[1]
            assert len(list(view.render_line(6))) > 3  # highlighted: marker, tokens, padding
            view.scroll_to(y=6000, animate=False)
            await pilot.pause()
            assert any(6000 <= index < 6000 + SIZE[1] for index in view.styled_lines)
            assert len(view.styled_lines) <= 2 * SIZE[1]

        run_app(project, scenario)
