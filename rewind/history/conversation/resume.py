"""``rewind resume TURN``: the agent's own command that continues its conversation from just
before TURN, as a new branch of it (docs/conversation.md). The agent's transcripts are only
read; what the branch needs is a copy in rewind's directory, or the client's own fork.
"""

from __future__ import annotations

from rewind.errors import UserError
from rewind.history.conversation import claude_code, codex, copilot, gemini
from rewind.history.conversation.branch import Branch, Request
from rewind.history.conversation.clients import client_of, files_only, installed
from rewind.history.conversation.cut_point import CutPoint
from rewind.history.entry import TURN, Entry
from rewind.store.repository import Store

BRANCHES = {
    "claude-code": claude_code.branch,
    "gemini": gemini.branch,
    "codex": codex.branch,
    "copilot": copilot.branch,
}


# The agents whose branch the client itself makes: it must be there even to print the command.
FORKED_BY_THE_CLIENT = frozenset({"codex", "copilot"})


def cut_point_of(entry: Entry) -> CutPoint:
    """The cut point of ``entry``; a refusal saying why it has none."""
    way_out = files_only(entry.number)
    if entry.kind != TURN:
        raise UserError(
            f"entry {entry.number} is a {entry.kind}, not a turn of the agent's; resume from a "
            "turn ('rewind log' lists them)."
        )
    client = client_of(
        entry.agent, entry.number
    )  # refuses the agents whose conversation is out of reach
    cut = CutPoint.from_json(entry.conversation)
    if cut is None or cut.agent != client.agent:
        raise UserError(
            f"turn {entry.number} has no record of where {client.name}'s conversation stood (it "
            f"was recorded by an older rewind, or the agent sent no transcript); {way_out}"
        )
    return cut


def plan(store: Store, entry: Entry, prompt: str = "", check_client: bool = True) -> Branch:
    """The branch that resumes the conversation from just before ``entry``; with
    ``check_client``, the installed client must be one rewind knows (else the program is
    named as the agent runs it, for a command to be printed)."""
    cut = cut_point_of(entry)
    client = client_of(cut.agent, entry.number)
    program = client.program
    if check_client or cut.agent in FORKED_BY_THE_CLIENT:
        program, _ = installed(client, entry.number)
    request = Request(store, cut, entry.number, program, prompt)
    return BRANCHES[cut.agent](request)
