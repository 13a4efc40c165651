"""``rewind resume TURN``: continue the agent's conversation from just before TURN, as a new
branch of it; ``--print`` prints the command instead of starting it."""

from __future__ import annotations

import os
import shlex
import sys

from rewind.actions.records import resume_json
from rewind.actions.resuming import Resumed, ResumeRequest, plan_resume, resume_entry
from rewind.commands.output.json_output import print_json
from rewind.errors import UserError
from rewind.history.entry import Entry
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
    request = ResumeRequest(turn, session, prompt or "", not print_only, remote)
    return _answer(plan_resume(request, client_args or []), print_only, as_json)


def resume_from(
    store: Store,
    entry: Entry,
    prompt: str,
    print_only: bool,
    as_json: bool,
    extra: list[str],
) -> int:
    """Starts (or prints) the branch of the conversation from just before ``entry``."""
    return _answer(
        resume_entry(store, entry, prompt, not print_only, None, extra), print_only, as_json
    )


def _answer(resumed: Resumed, print_only: bool, as_json: bool) -> int:
    if as_json:
        print_json(resume_json(resumed))
        return 0
    for note in resumed.branch.notes:
        print(f"rewind: {note}", file=sys.stderr)
    if print_only:
        print(f"cd {shlex.quote(resumed.root)} && {shlex.join(resumed.argv)}")
        return 0
    return _start(resumed.argv, resumed.root)


def _start(argv: list[str], root: str) -> int:
    """Replaces this process with the client's, in the project's root (its ``PWD`` too: OpenCode
    takes its project from it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.chdir(root)
        os.environ["PWD"] = root
        os.execv(argv[0], argv)
    except OSError as error:
        raise UserError(
            f"{argv[0]} could not be started ({error.strerror}); check the client's installation."
        ) from None
    raise AssertionError("unreachable")  # pragma: no cover
