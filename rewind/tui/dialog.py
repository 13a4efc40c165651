"""The frame every dialog of the TUI shares: a panel in the middle of the screen, its title and
its hint; each dialog's own CSS says only its size and what is its own."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

Result = TypeVar("Result")


class Dialog(ModalScreen[Result]):
    DEFAULT_CSS = """
    Dialog {
        align: center middle;
    }
    Dialog > Vertical {
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    Dialog .title {
        text-style: bold;
    }
    Dialog .hint {
        color: $text-muted;
    }
    """
