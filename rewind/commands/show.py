from __future__ import annotations

from rewind.commands.output.hunk_text import hunk_json, hunk_text
from rewind.commands.output.json_output import FORMAT, print_json
from rewind.commands.output.records_json import entry_json, entry_key_json, path_json
from rewind.commands.output.render import PROMPT_WIDTH, colour_diff, local_time, paint, use_colour
from rewind.commands.parsing.reading import print_fetched_safely, session_to_read
from rewind.errors import StoreError
from rewind.history.conversation.cut_point import CutPoint
from rewind.history.entry import TURN, Entry, first_line
from rewind.history.insight.diffs import entry_diffs
from rewind.history.kept_conversation import kept_reply
from rewind.history.lookup import find
from rewind.history.restoring.partial import turn_hunks
from rewind.history.session import require_existing
from rewind.history.sessions import all_labels, labels_of
from rewind.store.repository import Store


def run(
    *,
    session: str | None,
    turn: str,
    as_json: bool = False,
    path: str | None = None,
    remote: str | None = None,
) -> int:
    store, session_id = session_to_read(session, remote)
    if remote is not None:
        print_fetched_safely()
    head = require_existing(store, session_id)
    entry = find(store, head, turn)
    if entry.is_damaged:
        raise StoreError(
            f"entry {entry.number} of session {entry.session} cannot be shown, it is a "
            f"{entry.prompt}; '{store.check_command}' lists every damaged entry."
        )
    if path is not None:
        return _show_hunks(store, entry, store.root.stored_name(path), as_json)
    names = all_labels(entry, labels_of(store, head.session_id))
    if as_json:
        diffs = entry_diffs(store, entry, with_text=True)
        cut = CutPoint.from_json(entry.conversation)
        shown = {
            "format": FORMAT,
            **entry_json(entry, diffs, names),
            "conversation": cut.to_json() if cut is not None else None,
            "reply": _reply(store, entry, remote is not None),
        }
        files = shown["files"]
        assert isinstance(files, list)
        for item, diff in zip(files, diffs, strict=True):
            item["diff"] = diff.text or None
        print_json(shown)
        return 0
    labels = f" [{', '.join(names)}]" if names else ""
    colour = use_colour()
    print(
        paint(
            f"{entry.kind} {entry.number} ({entry.id})  {local_time(entry.started)}  "
            f"{first_line(entry.prompt, PROMPT_WIDTH)}{labels}",
            "bold",
            colour,
        )
    )
    cut = CutPoint.from_json(entry.conversation)
    if cut is not None:
        resume = f"rewind resume {entry.number}"
        if remote is not None:
            resume += f" --remote {remote} --session {session_id}"
        print(f"conversation: {cut.agent} session {cut.session} ('{resume}')")
    reply = _reply(store, entry, remote is not None)
    if reply is not None:
        print("reply:")
        print("".join(f"    {line}\n" for line in reply.splitlines()), end="")
    for diff in entry_diffs(store, entry, with_text=True):
        if diff.text:
            print(colour_diff(diff.text, colour), end="")
        elif diff.status != "unchanged":
            print(f"{store.root.display(diff.path)}: {diff.status}")
    return 0


def _reply(store: Store, entry: Entry, fetched: bool) -> str | None:
    """The agent's final reply to the turn, when it was kept ([conversation] keep; in a
    fetched session, when its machine shared it: [conversation] share, with what is private
    on this machine taken out)."""
    if entry.kind != TURN:
        return None
    reply = kept_reply(store, entry.session, entry.id)
    if reply is None or not fetched:
        return reply
    from rewind.history.remote.shared_conversation import redacted_reply  # for --remote only

    return redacted_reply(store, entry.session, reply)


def _show_hunks(store: Store, entry: Entry, path: bytes, as_json: bool) -> int:
    """The entry's diff of one file as numbered hunks, with numbered changed lines: what
    'rewind restore TURN --path P --hunks' takes."""
    found = turn_hunks(store, entry, path)
    name = store.root.display(path)
    if as_json:
        print_json(
            {
                "format": FORMAT,
                "entry": {
                    **entry_key_json(entry),
                    "number": entry.number,  # the name format 1 first used
                    "session": entry.session,
                    "kind": entry.kind,
                },
                **path_json(path),
                # The file's name in the entry and now (they differ when it was renamed).
                "recorded_as": store.root.display(found.recorded_as),
                "now": store.root.display(found.path),
                "hunks": [hunk_json(hunk) for hunk in found.hunks],
            }
        )
        return 0
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
        then, now = store.root.display(found.recorded_as), store.root.display(found.path)
        print(f"{then} in {entry.kind} {entry.number}, {now} now (renamed since)")
    if not found.hunks:
        print(f"{name}: no changed lines")
    for hunk in found.hunks:
        print(hunk_text(hunk, len(found.hunks), name, colour))
    return 0
