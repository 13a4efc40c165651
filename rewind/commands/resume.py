"""``rewind resume TURN``: continue the agent's conversation from just before TURN, as a new
branch of it; ``--print`` prints the command instead of starting it."""

from __future__ import annotations

import os
import shlex
import sys

from rewind.actions.projects import local_session, store_to_read
from rewind.actions.records import FORMAT
from rewind.actions.stores import open_current_store
from rewind.commands.output.json_output import print_json
from rewind.errors import UserError
from rewind.history.conversation.branch import Branch
from rewind.history.conversation.resume import Fetched, plan
from rewind.history.entry import Entry
from rewind.history.lookup import find
from rewind.history.remote.shared_conversation import fetched_redactor
from rewind.history.session import require_existing
from rewind.store.repository import Store


def run(
    *,
    session: str | None,
    turn: str,
    prompt: str | None = None,
    print_only: bool = False,
    as_json: bool = False,
    client_args: list[str] | None = None,
    remote: str | None = None,
) -> int:
    if as_json and not print_only:
        raise UserError(
            "--json prints the command; give --print too ('rewind resume TURN --print --json')."
        )
    if prompt and prompt.startswith("-"):
        raise UserError(
            "a --prompt that begins with '-' would be read by the client as one of its options; "
            "begin it with another character."
        )
    store = open_current_store()
    fetched: Fetched = None
    if remote is not None:
        view, session_id = store_to_read(session, remote)
        head = require_existing(view, session_id)
        entry = find(view, head, turn)
        fetched = (remote, view)
    else:
        head = require_existing(store, local_session(store, session))
        entry = find(store, head, turn)
    extra = client_args or []
    return resume_from(store, entry, prompt or "", print_only, as_json, extra, fetched)


def resume_from(
    store: Store,
    entry: Entry,
    prompt: str,
    print_only: bool,
    as_json: bool,
    extra: list[str],
    fetched: Fetched = None,
) -> int:
    """Starts (or prints) the branch of the conversation from just before ``entry`` (of the
    session ``fetched`` from a remote, when given)."""
    redact = fetched_redactor(store) if fetched is not None else None
    branch = plan(store, entry, prompt, not print_only, fetched, redact)
    argv = branch.argv(extra)
    root = os.fsdecode(store.root.path)
    if as_json:
        print_json(
            {
                "format": FORMAT,
                "turn": entry.number,
                "agent": branch.agent,
                "argv": argv,
                "cwd": root,
                "session": branch.session or None,
                "notes": branch.notes,
            }
        )
        return 0
    for note in branch.notes:
        print(f"rewind: {note}", file=sys.stderr)
    if print_only:
        print(f"cd {shlex.quote(root)} && {shlex.join(argv)}")
        return 0
    return _start(branch, argv, root)


def _start(branch: Branch, argv: list[str], root: str) -> int:
    """Replaces this process with the client's, in the project's root."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.chdir(root)
        os.execv(argv[0], argv)
    except OSError as error:
        raise UserError(
            f"{argv[0]} could not be started ({error.strerror}); check the client's installation."
        ) from None
    raise AssertionError("unreachable")  # pragma: no cover
