"""``rewind history PATH``: every recorded version of one file, newest first.

``rewind log --path`` lists the entries that recorded a path (what else each changed, too);
this lists the file's versions: each distinct content it had, who made it, and how it differed
from the version before (docs/history.md).
"""

from __future__ import annotations

from rewind.actions.reading import file_history
from rewind.actions.records import history_json
from rewind.commands.output.json_output import print_json
from rewind.commands.output.render import local_time, paint, use_colour
from rewind.errors import UserError
from rewind.history.entry import TURN, Entry, first_line
from rewind.history.filestate import ABSENT, FILE, LINK, TOO_LARGE
from rewind.history.insight.blame import nothing_recorded_for
from rewind.history.insight.file_history import OUTSIDE, Version
from rewind.store.repository import Store


def run(*, path: str, as_json: bool = False, max_count: int | None = None) -> int:
    # with --json, nothing recorded yet is an empty history, not an error
    found = file_history(path, max_count, missing_ok=as_json)
    if as_json:
        print_json(history_json(found))
        return 0
    store = found.store
    assert store is not None
    if not found.versions:  # a refusal, as blame's: one rule for a file with no version
        raise UserError(nothing_recorded_for(store.root.display(found.path)))
    _print_text(store, found.path, found.versions)
    return 0


def describe_state(version: Version) -> str:
    """What the version held, in a few words: "deleted", "binary", "412 B", "link"..."""
    state = version.state
    if state.kind == ABSENT:
        return "deleted"
    if state.kind == LINK:
        return "symlink"
    if state.kind == TOO_LARGE:
        return f"too large ({_size(state.size)})"
    if state.kind != FILE:
        return state.kind
    if version.binary:
        return f"binary, {_size(state.size)}"
    return _size(state.size)


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _brief(entry: Entry) -> str:
    """An entry's prompt, cut to fit on the version's line."""
    return first_line(entry.prompt, 40) if entry.kind == TURN else entry.prompt


def _print_text(store: Store, name: bytes, versions: list[Version]) -> None:
    colour = use_colour()
    count = len(versions)
    shown = store.root.display(name)
    print(paint(f"{shown}: {count} version{'s' * (count != 1)}, newest first", "bold", colour))
    for version in versions:
        entry = version.entry
        counts = ""
        if version.compared and not version.binary and version.state.kind != ABSENT:
            counts = f"  +{version.added} -{version.removed}"
        source = version.source
        if source == OUTSIDE:
            source = paint("changed outside rewind", "yellow", colour)
        session = entry.session if len(entry.session) <= 12 else entry.session[:8] + "…"
        heading = f"{version.id:<13}  {local_time(version.at)[:16]}  {session} #{entry.number}" + (
            f"  {entry.agent}" if entry.agent else ""
        )
        print(paint(heading, "cyan", colour) + f"  {source}  {describe_state(version)}{counts}")
        prompt = first_line(entry.prompt, 80) if entry.kind == TURN else entry.prompt
        where = ""
        if version.path != name:
            where = f"[as {store.root.display(version.path)}] "
        if version.moved_from is not None:
            where = f"[renamed from {store.root.display(version.moved_from)}] "
        side = "" if version.after else "before: "
        back = ""
        if version.same_as is not None:
            earlier = version.same_as.entry
            back = f" (back to {version.same_as.id}: #{earlier.number} {_brief(earlier)})"
        print(f"               {where}{side}{prompt}{back}".rstrip())
