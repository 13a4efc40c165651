"""``rewind blame PATH``: for every line of a file as it is now, the prompt that last changed it
(docs/history.md)."""

from __future__ import annotations

import sys

from rewind.actions.reading import blame
from rewind.actions.records import blame_json
from rewind.commands.output.json_output import print_json
from rewind.commands.output.render import local_time, paint, use_colour
from rewind.history.attribution.note_blame import NotedLine
from rewind.history.entry import TURN, first_line
from rewind.history.insight.blame import BEFORE_RECORD, Blame, Run
from rewind.history.insight.file_history import OUTSIDE, Version

AGENT_WIDTH = 12
LABEL_WIDTH = 13 + 2 + 5 + 1 + AGENT_WIDTH + 16 + 1  # "ID (#N agent YYYY-MM-DD HH:MM)"


def run(*, path: str, as_json: bool = False) -> int:
    blamed = blame(path)
    if as_json:
        print_json(blame_json(blamed))
    else:
        _print_text(blamed.blame, blamed.store.root.display(blamed.blame.path), blamed.noted)
    return 0


def _noted_label(noted: NotedLine) -> str:
    """A line a commit's note answers: ``note COMMIT (TOOL #TURN)``."""
    tool = noted.tool if len(noted.tool) < AGENT_WIDTH else noted.tool[: AGENT_WIDTH - 2] + "…"
    turn = f"#{noted.turn}" if noted.turn else ""
    return f"note {noted.commit[:12]} ({turn:<5} {tool})".ljust(LABEL_WIDTH)


def _print_notes(noted: dict[int, NotedLine], colour: bool) -> None:
    """The prompts the notes name, once each, after the recorded versions."""
    seen: dict[tuple[str, str], NotedLine] = {}
    for line in noted.values():
        seen.setdefault((line.commit, line.key), line)
    for line in seen.values():
        who = f"{line.tool} session {line.session}" if line.session else line.tool
        turn = f" #{line.turn}" if line.turn else ""
        prompt = first_line(line.prompt, 60) if line.prompt else "(the note holds no prompt)"
        print(paint(f"note {line.commit[:12]} {who}{turn}", "magenta", colour) + f"  {prompt}")


def _label(run: Run) -> str:
    version = run.version
    if version is None:
        text = "before the record" if run.status == BEFORE_RECORD else "changed outside rewind"
        return text.ljust(LABEL_WIDTH)
    agent = "outside" if version.source == OUTSIDE else version.entry.agent or "-"
    if len(agent) > AGENT_WIDTH - 1:
        agent = agent[: AGENT_WIDTH - 2] + "…"
    number = f"#{version.entry.number}"
    return (
        f"{version.id:<13} ({number:<5} {agent:<{AGENT_WIDTH - 1}} {local_time(version.at)[:16]})"
    ).ljust(LABEL_WIDTH)


def _print_text(blame: Blame, shown: str, noted: dict[int, NotedLine]) -> None:
    colour = use_colour()
    write = sys.stdout.write
    count = len(blame.lines)
    print(
        paint(
            f"{shown}: {count} line{'s' * (count != 1)}, by the prompt that last changed each",
            "bold",
            colour,
        )
    )
    seen: dict[str, Version] = {}
    for run in blame.runs:
        if run.version is not None:
            seen.setdefault(run.version.id, run.version)
    for version in sorted(seen.values(), key=lambda v: v.at, reverse=True):
        entry = version.entry
        text = first_line(entry.prompt, 60) if entry.kind == TURN else entry.prompt
        if version.source == OUTSIDE:
            text = f"changed outside rewind before: {text}"
        print(
            paint(f"{version.id:<13} {entry.session} #{entry.number}", "cyan", colour) + f"  {text}"
        )
    _print_notes(noted, colour)
    print()
    width = len(str(count))
    for run in blame.runs:
        label = _label(run)
        if run.version is None or run.version.source == OUTSIDE:
            label = paint(label, "yellow", colour)
        else:
            label = paint(label, "cyan", colour)
        for number in range(run.start, run.start + run.count):
            line = blame.lines[number - 1].decode("utf-8", "replace")
            note = noted.get(number)
            shown_label = paint(_noted_label(note), "magenta", colour) if note else label
            write(f"{shown_label} {number:>{width}}| {line}\n")
