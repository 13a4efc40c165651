"""``rewind resume TURN``: the agent's own command that continues its conversation from just
before TURN, as a new branch of it (docs/conversation.md). The agent's transcripts are only
read; what the branch needs is a copy in rewind's directory, or the client's own fork.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeAlias

from rewind.errors import UserError
from rewind.history.conversation import claude_code, codex, copilot, gemini, opencode, pi
from rewind.history.conversation.branch import Branch, Request
from rewind.history.conversation.clients import client_of, files_only, installed
from rewind.history.conversation.cut_point import CutPoint
from rewind.history.entry import TURN, Entry
from rewind.history.lookup import entries_between
from rewind.history.session import load_head
from rewind.store.repository import Store

# A fetched turn's remote, and the view of the machine that recorded it (None: a local turn).
Fetched: TypeAlias = "tuple[str, Store] | None"

BRANCHES = {
    "claude-code": claude_code.branch,
    "gemini": gemini.branch,
    "codex": codex.branch,
    "copilot": copilot.branch,
    "pi": pi.branch,
    "opencode": opencode.branch,
}


# The agents whose branch the client itself makes: it must be there even to print the command.
FORKED_BY_THE_CLIENT = frozenset({"codex", "copilot", "opencode"})


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


# What each agent's branch needs, checked without writing anything or asking the client.
CHECKS: dict[str, Callable[[Request], object]] = {
    "claude-code": claude_code.check,
    "gemini": gemini.check,
    "codex": codex.check,
    "copilot": copilot.check,
    "pi": pi.check,
    "opencode": opencode.check,
}


def plan(
    store: Store,
    entry: Entry,
    prompt: str = "",
    check_client: bool = True,
    fetched: Fetched = None,
    redact: Callable[[bytes], bytes] | None = None,
) -> Branch:
    """The branch that resumes the conversation from just before ``entry``; with
    ``check_client``, the installed client must be one rewind knows (else the program is
    named as the agent runs it, for a command to be printed). ``fetched``: the remote and the
    view ``entry`` was read from, for a turn fetched from another machine, whose copy
    ``redact`` takes this machine's private contents and secrets out of."""
    if fetched is None:
        cut = cut_point_of(entry)
        refuse_a_transcript_missing_at_the_prompt(store, entry, cut)
        with_client = check_client or cut.agent in FORKED_BY_THE_CLIENT
        return BRANCHES[cut.agent](_request(store, entry, cut, prompt, with_client))
    remote, view = fetched
    try:
        cut = cut_point_of(entry)
        refuse_a_transcript_missing_at_the_prompt(view, entry, cut)
        if cut.agent in FORKED_BY_THE_CLIENT:
            raise UserError(
                f"{client_of(cut.agent).name} keeps its conversations in a database of its own "
                f"on the machine that recorded turn {entry.number}, so it cannot be resumed "
                f"here; {files_only(entry.number)}"
            )
        request = _request(store, entry, cut, prompt, check_client, remote, view)
        return BRANCHES[cut.agent](replace(request, redact=redact))
    except UserError as error:
        # The way out for a fetched turn: its files are not this work tree's to restore.
        message = str(error).replace(
            files_only(entry.number)[:-1], "resume it on the machine that recorded it"
        )
        raise UserError(message) from None


def check(store: Store, entry: Entry, check_client: bool = True) -> None:
    """Refuses, as :func:`plan` would, a resume from before ``entry`` that cannot be made,
    writing nothing (no copy, no fork): ``rewind restore TURN --conversation`` asks before it
    changes a file, so that a refusal never comes once the files are back."""
    cut = cut_point_of(entry)
    refuse_a_transcript_missing_at_the_prompt(store, entry, cut)
    CHECKS[cut.agent](_request(store, entry, cut, "", check_client))


# How many entries before a turn cut at the transcript's start are looked through for an
# earlier turn of the same conversation (a resume's cost stays bounded on a long history).
EARLIER_LOOKED_AT = 200


def refuse_a_transcript_missing_at_the_prompt(store: Store, entry: Entry, cut: CutPoint) -> None:
    """A turn cut at the transcript's start began the conversation, unless an earlier turn of
    the session belongs to the same conversation of the agent: then its transcript did not
    exist when the prompt came (a payload naming a file the agent never wrote), and there is
    nothing recorded to resume from. Refused, saying so."""
    if cut.offset != 0 or entry.number <= 1:
        return
    head = load_head(store, entry.session)
    first = max(1, entry.number - EARLIER_LOOKED_AT)
    for earlier in reversed(entries_between(store, head, first, entry.number - 1)):
        earlier_cut = CutPoint.from_json(earlier.conversation) if earlier.kind == TURN else None
        if earlier_cut is not None and (earlier_cut.agent, earlier_cut.session) == (
            cut.agent,
            cut.session,
        ):
            raise UserError(
                f"turn {entry.number} cannot be resumed: when its prompt came, its transcript "
                f"({cut.transcript}) did not exist, though turn {earlier.number} of the same "
                f"conversation came before it, so where the conversation stood was not "
                f"recorded; {files_only(entry.number)}"
            )


def _request(
    store: Store,
    entry: Entry,
    cut: CutPoint,
    prompt: str,
    with_client: bool,
    remote: str = "",
    view: Store | None = None,
) -> Request:
    client = client_of(cut.agent, entry.number)
    program = installed(client, entry.number)[0] if with_client else client.program
    return Request(store, cut, entry.number, program, prompt, entry.session, entry.id, remote, view)
