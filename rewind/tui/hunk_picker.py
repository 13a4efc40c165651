"""Choosing hunks, or single lines of a hunk, of one file's diff to put back (a partial rewind).

The hunks are listed in order, each with its number, its ``@@`` header and a box (``[x]`` the
whole hunk, ``[~]`` some of its lines, ``[ ]`` none); below, the focused hunk's diff with its
context, its changed lines numbered as ``rewind show TURN --path P`` numbers them. Hunks that no
longer apply to the file as it is now are dimmed, with the reason, and cannot be chosen.

The picker knows nothing of turns: it is given a :class:`HunkChoice` (the hunks of a diff between
any two recorded states, and how to plan and carry out putting the chosen ones back), and it
returns what the rewind did, for the caller to show.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from rewind.actions.changes import (
    ADDED,
    Hunk,
    PartialRefused,
    Selection,
    describe_selection,
)
from rewind.errors import UserError
from rewind.tui.file_choice import CHECKED, UNCHECKED
from rewind.tui.highlight import TAB_SIZE
from rewind.tui.keys import Options
from rewind.tui.restore_actions import HunkChoice, RestoreOutcome, put_back

SOME = "[~]"  # some of the hunk's lines are chosen
# Unchanged lines are indented past the box and the number of the changed ones ("[x]   1  -").
CONTEXT_INDENT = " " * 9
STYLES = {ADDED: "green", "-": "red"}


def _shown(line: bytes) -> str:
    """A line of the file for the screen: UTF-8 where it is, its newline left out."""
    return line.rstrip(b"\n").decode("utf-8", "replace").expandtabs(TAB_SIZE)


def _line(text: str, style: str = "") -> Text:
    """One row: never wrapped, cut with an ellipsis at the list's width."""
    return Text(text, style=style, no_wrap=True, overflow="ellipsis", end="")


def line_ranges(lines: frozenset[int]) -> str:
    """``1-3,5``: the changed lines chosen of a hunk."""
    return describe_selection({0: lines}).replace("0:", "")


def hunk_row(hunk: Hunk, chosen: frozenset[int] | bool | None, reason: str) -> Text:
    """A hunk of the list: box, number, header, +/- and what is chosen of it (``chosen`` is
    False when nothing is), or why it no longer applies."""
    box = CHECKED if chosen is None else UNCHECKED if chosen is False else SOME
    counts = f"-{len(hunk.removed)} +{len(hunk.added)}"
    text = f"{box} {hunk.number:>3}  {hunk.header()}  {counts}"
    if reason:
        return _line(f"{text}  no longer applies: {reason}", "dim")
    if isinstance(chosen, frozenset):
        text += f"  lines {line_ranges(chosen)} of {len(hunk.changed)}"
    return _line(text)


def changed_row(number: int, origin: str, line: bytes, chosen: bool, blocked: bool) -> Text:
    box = CHECKED if chosen else UNCHECKED
    style = "dim" if blocked else STYLES.get(origin, "")
    return _line(f"{box} {number:>3}  {origin}{_shown(line)}", style)


def context_row(line: bytes) -> Text:
    return _line(f"{CONTEXT_INDENT} {_shown(line)}")


NO_NEWLINE = _line(f"{CONTEXT_INDENT}\\ No newline at end of file")


class HunkList(Options):
    """The hunks, one row each."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "screen.toggle_hunk", "Toggle"),
        Binding("enter,l", "screen.lines", "Lines"),
    ]


class LineList(Options):
    """The focused hunk's diff: its header, context lines (not choosable) and changed lines."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "screen.toggle_line", "Toggle line"),
        Binding("escape,h", "screen.hunks", "Back to hunks"),
    ]


class HunkPicker(Screen[RestoreOutcome | None]):
    """Returns what putting the chosen hunks back did, or None when nothing was tried."""

    DEFAULT_CSS = """
    HunkPicker OptionList {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    HunkPicker #hunks {
        height: auto;
        max-height: 40%;
    }
    HunkPicker #lines {
        height: 1fr;
    }
    HunkPicker #chosen {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "all", "All"),
        Binding("n", "none", "None"),
        Binding("r", "put_back", "Put back"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, choice: HunkChoice, blocked: dict[int, str]) -> None:
        super().__init__()
        self.choice = choice
        self.hunks = choice.found.hunks
        self.blocked = blocked  # hunk number: why it no longer applies
        self.selection: Selection = {}
        self.shown_hunk = 0  # the number of the hunk whose lines are shown

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="title")
        yield HunkList(*(self._hunk_option(hunk) for hunk in self.hunks), id="hunks")
        yield LineList(id="lines")
        yield Static(id="chosen")
        yield Footer(compact=True, show_command_palette=False)

    def _title(self) -> Text:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(f"Put back hunks of {self.choice.title}", style="bold")
        count = len(self.hunks)
        title.append(f"  {count} hunk" + ("" if count == 1 else "s"), style="dim")
        if self.blocked:
            verb = "applies" if len(self.blocked) == 1 else "apply"
            title.append(f", {len(self.blocked)} no longer {verb}", style="dim")
        return title

    def on_mount(self) -> None:
        hunks = self.query_one(HunkList)
        hunks.highlighted = 0
        hunks.focus()
        self._show_lines()
        self._show_chosen()

    # what is shown -----------------------------------------------------------------------

    def _hunk_option(self, hunk: Hunk) -> Option:
        chosen = self.selection.get(hunk.number, False)
        return Option(hunk_row(hunk, chosen, self.blocked.get(hunk.number, "")))

    def _refresh_hunk(self, hunk: Hunk) -> None:
        prompt = self._hunk_option(hunk).prompt
        self.query_one(HunkList).replace_option_prompt_at_index(hunk.number - 1, prompt)

    def _focused_hunk(self) -> Hunk | None:
        index = self.query_one(HunkList).highlighted
        return None if index is None else self.hunks[index]

    def _line_chosen(self, hunk: Hunk, number: int) -> bool:
        if hunk.number not in self.selection:
            return False
        lines = self.selection[hunk.number]
        return lines is None or number in lines

    def _show_lines(self) -> None:
        """The focused hunk's diff, as ``rewind show TURN --path P`` shows it."""
        hunk = self._focused_hunk()
        view = self.query_one(LineList)
        view.clear_options()
        if hunk is None:
            return
        self.shown_hunk = hunk.number
        blocked = hunk.number in self.blocked
        header = f"hunk {hunk.number}/{len(self.hunks)} of {self.choice.name}  {hunk.header()}"
        options = [Option(_line(header, "cyan"), disabled=True)]
        options += [Option(context_row(line), disabled=True) for line in hunk.context_before]
        for number, (origin, line) in enumerate(hunk.changed, 1):
            chosen = self._line_chosen(hunk, number)
            row = changed_row(number, origin, line, chosen, blocked)
            options.append(Option(row, id=str(number), disabled=blocked))
            if not line.endswith(b"\n"):
                options.append(Option(NO_NEWLINE, disabled=True))
        options += [Option(context_row(line), disabled=True) for line in hunk.context_after]
        view.add_options(options)
        view.highlighted = None
        view.scroll_home(animate=False)

    def _refresh_lines(self, hunk: Hunk) -> None:
        view = self.query_one(LineList)
        blocked = hunk.number in self.blocked
        for index, option in enumerate(view.options):
            if option.id is not None:
                number = int(option.id)
                origin, line = hunk.changed[number - 1]
                chosen = self._line_chosen(hunk, number)
                row = changed_row(number, origin, line, chosen, blocked)
                view.replace_option_prompt_at_index(index, row)

    def _show_chosen(self) -> None:
        chosen = self.query_one("#chosen", Static)
        if self.selection:
            chosen.update(
                f"Chosen (as --hunks): {describe_selection(self.selection)} · r puts them back"
            )
        else:
            chosen.update("Nothing chosen: space chooses the hunk, enter its lines")

    def _changed(self, hunk: Hunk) -> None:
        self._refresh_hunk(hunk)
        if hunk.number == self.shown_hunk:
            self._refresh_lines(hunk)
        self._show_chosen()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "hunks" and event.option_index + 1 != self.shown_hunk:
            self._show_lines()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click (or Enter) on a changed line toggles it."""
        event.stop()
        if event.option_list.id == "lines":
            self.action_toggle_line()

    def on_descendant_focus(self) -> None:
        view = self.query_one(LineList)
        if self.focused is view and view.highlighted is None:
            hunk = self._focused_hunk()
            if hunk is not None and hunk.number in self.blocked:
                self._refuse(hunk)
                self.query_one(HunkList).focus()
                return
            view.action_first()
        elif self.focused is not view:
            view.highlighted = None

    # choosing ----------------------------------------------------------------------------

    def _refuse(self, hunk: Hunk) -> None:
        self.notify(
            f"Hunk {hunk.number} no longer applies ({self.blocked[hunk.number]}); it cannot "
            "be put back.",
            severity="warning",
        )

    def action_toggle_hunk(self) -> None:
        """Space on a hunk: chooses it whole; again, leaves it out (some lines: all of them)."""
        hunk = self._focused_hunk()
        if hunk is None:
            return
        if hunk.number in self.blocked:
            self._refuse(hunk)
            return
        if hunk.number in self.selection and self.selection[hunk.number] is None:
            del self.selection[hunk.number]
        else:
            self.selection[hunk.number] = None
        self._changed(hunk)

    def action_lines(self) -> None:
        """Enter on a hunk: into its lines, to choose them one by one."""
        hunk = self._focused_hunk()
        if hunk is None:
            return
        if hunk.number in self.blocked:
            self._refuse(hunk)
            return
        self.query_one(LineList).focus()

    def action_hunks(self) -> None:
        self.query_one(HunkList).focus()

    def action_toggle_line(self) -> None:
        hunk = self._focused_hunk()
        option = self.query_one(LineList).highlighted_option
        if hunk is None or option is None or option.id is None or hunk.number in self.blocked:
            return
        number = int(option.id)
        every = frozenset(range(1, len(hunk.changed) + 1))
        current = self.selection.get(hunk.number, frozenset())
        lines = every if current is None else current
        lines = lines - {number} if number in lines else lines | {number}
        if not lines:
            self.selection.pop(hunk.number, None)
        else:
            self.selection[hunk.number] = None if lines == every else lines
        self._changed(hunk)

    def action_all(self) -> None:
        """Every hunk that still applies, whole."""
        for hunk in self.hunks:
            if hunk.number not in self.blocked:
                self.selection[hunk.number] = None
                self._changed(hunk)

    def action_none(self) -> None:
        chosen = [hunk for hunk in self.hunks if hunk.number in self.selection]
        self.selection = {}
        for hunk in chosen:
            self._changed(hunk)

    # putting back ------------------------------------------------------------------------

    def action_put_back(self) -> None:
        """Plans the rewind from the file as it is now, then asks with the resulting diff."""
        from rewind.tui.confirm_partial import ConfirmPartial

        if not self.selection:
            self.notify("Nothing is chosen: space chooses the hunk under the cursor.")
            return
        try:
            plan = self.choice.plan(dict(self.selection))
        except PartialRefused as refused:
            self.notify(str(refused), severity="warning")
            self._recheck()
            return
        except UserError as error:
            self.notify(str(error), severity="error")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.dismiss(put_back(self.choice.store, plan))

        self.app.push_screen(ConfirmPartial(plan), confirmed)

    def _recheck(self) -> None:
        """The file changed since the picker opened: shows which hunks still apply, and leaves
        out of the choice those that no longer do."""
        try:
            self.blocked = self.choice.blocked()
        except UserError as error:
            self.notify(str(error), severity="error")
            return
        for number in list(self.selection):
            if number in self.blocked:
                del self.selection[number]
        self.query_one("#title", Static).update(self._title())
        for hunk in self.hunks:
            self._refresh_hunk(hunk)
        self._show_lines()
        self._show_chosen()

    def action_close(self) -> None:
        self.dismiss(None)
