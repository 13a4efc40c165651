"""What ``rewind tui`` opens in a project where nothing is recorded yet: how to start."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static


def how_to_start(project: str, agents: list[str]) -> str:
    return (
        f"rewind has recorded nothing in {project} yet.\n\n"
        "To record your agent's turns, install its hooks here, then start it in this project:\n\n"
        + "".join(f"    rewind install {agent}\n" for agent in agents)
        + "\nOr record by hand: 'rewind begin', 'rewind track PATH', 'rewind end'.\n"
        "'rewind demo' shows a recorded session without touching this project."
    )


class NothingRecorded(App[None]):
    """One screen of text and a key to quit."""

    TITLE = "rewind"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("escape", "quit", "Quit", show=False),
    ]
    DEFAULT_CSS = """
    NothingRecorded Vertical { padding: 1 2; }
    """

    def __init__(self, project: str, agents: list[str]) -> None:
        super().__init__()
        self.text = how_to_start(project, agents)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.text, id="how-to-start")
        yield Footer()
