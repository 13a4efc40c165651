"""Keys every list of the TUI shares: ``j`` and ``k`` move the cursor down and up, as the arrows
do (as in less, vim and most terminal programs)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, OptionList, SelectionList

LIST_KEYS: list[BindingType] = [
    Binding("j", "cursor_down", "Down", show=False),
    Binding("k", "cursor_up", "Up", show=False),
]


class Table(DataTable[Text | str]):
    """A DataTable with :data:`LIST_KEYS`."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_KEYS


class Options(OptionList):
    """An OptionList with :data:`LIST_KEYS`."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_KEYS


class Selections(SelectionList[bytes]):
    """A SelectionList with :data:`LIST_KEYS`."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_KEYS
