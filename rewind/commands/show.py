"""``rewind show TURN``: what one entry did (rewind.actions.reading), as text or ``--json``."""

from __future__ import annotations

from rewind.actions.reading import Shown, ShownHunks, ShowRequest, show
from rewind.actions.records import shown_hunks_json, shown_json
from rewind.commands.output.hunk_text import hunk_text
from rewind.commands.output.json_output import print_json
from rewind.commands.output.render import PROMPT_WIDTH, colour_diff, local_time, paint, use_colour
from rewind.commands.output.terminal_safe import print_fetched_safely
from rewind.history.entry import first_line


def run(
    *,
    session: str | None,
    turn: str,
    as_json: bool = False,
    path: str | None = None,
    remote: str | None = None,
) -> int:
    shown = show(ShowRequest(turn=turn, session=session, path=path, remote=remote))
    if remote is not None:
        print_fetched_safely()
    if isinstance(shown, ShownHunks):
        if as_json:
            print_json(shown_hunks_json(shown))
        else:
            _print_hunks(shown)
    elif as_json:
        print_json(shown_json(shown))
    else:
        _print_entry(shown, remote)
    return 0


def _print_entry(shown: Shown, remote: str | None) -> None:
    entry, store = shown.entry, shown.store
    labels = f" [{', '.join(shown.labels)}]" if shown.labels else ""
    colour = use_colour()
    print(
        paint(
            f"{entry.kind} {entry.number} ({entry.id})  {local_time(entry.started)}  "
            f"{first_line(entry.prompt, PROMPT_WIDTH)}{labels}",
            "bold",
            colour,
        )
    )
    cut = shown.conversation
    if cut is not None:
        resume = f"rewind resume {entry.number}"
        if remote is not None:
            resume += f" --remote {remote} --session {shown.session}"
        print(f"conversation: {cut.agent} session {cut.session} ('{resume}')")
    if shown.reply is not None:
        print("reply:")
        print("".join(f"    {line}\n" for line in shown.reply.splitlines()), end="")
    for diff in shown.diffs:
        if diff.text:
            print(colour_diff(diff.text, colour), end="")
        elif diff.status != "unchanged":
            print(f"{store.root.display(diff.path)}: {diff.status}")


def _print_hunks(shown: ShownHunks) -> None:
    """The entry's diff of one file as numbered hunks, with numbered changed lines: what
    'rewind restore TURN --path P --hunks' takes."""
    entry, found, root = shown.entry, shown.hunks, shown.store.root
    colour = use_colour()
    print(
        paint(
            f"{entry.kind} {entry.number} ({entry.id})  {local_time(entry.started)}  "
            f"{first_line(entry.prompt, PROMPT_WIDTH)}",
            "bold",
            colour,
        )
    )
    if found.recorded_as != found.path:
        then, now = root.display(found.recorded_as), root.display(found.path)
        print(f"{then} in {entry.kind} {entry.number}, {now} now (renamed since)")
    if not found.hunks:
        print(f"{root.display(shown.path)}: no changed lines")
    for hunk in found.hunks:
        print(hunk_text(hunk, len(found.hunks), root.display(shown.path), colour))
