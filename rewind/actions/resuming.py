"""Resuming the agent's conversation from just before a turn, as a new branch of it: what
``rewind resume``, ``rewind restore --conversation`` and the TUI's rewind menu ask for.

A resume is planned here (which client, which command, the branch's copy or fork made when the
client is to be started); the interface prints the command or hands the process over to the
client. :func:`check` refuses, writing nothing, a resume that cannot be made, so that a restore
with its conversation is refused before any file changes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from rewind.actions.projects import local_session, project_root, store_to_read
from rewind.actions.stores import open_store
from rewind.history.conversation.branch import Branch
from rewind.history.conversation.resume import Fetched, check, cut_point_of, plan
from rewind.history.entry import Entry
from rewind.history.lookup import find
from rewind.history.remote.shared_conversation import fetched_redactor
from rewind.history.session import require_existing
from rewind.store.repository import Store


@dataclass(frozen=True)
class ResumeRequest:
    """Resume from before ``turn`` of ``session`` (the most recent when None), read from the
    sessions fetched from ``remote`` when given. ``start``: the client is to be started here,
    so it must be installed and the branch is made now; else only its command is wanted."""

    turn: str
    session: str | None = None
    prompt: str = ""
    start: bool = True
    remote: str | None = None
    cwd: bytes | None = None


@dataclass
class Resumed:
    """The branch that continues the conversation of ``entry``'s session from before it."""

    store: Store
    entry: Entry
    branch: Branch
    extra: list[str] = field(default_factory=list)  # the person's own arguments for the client

    @property
    def argv(self) -> list[str]:
        return self.branch.argv(self.extra)

    @property
    def root(self) -> str:
        """Where the client runs: the project's root."""
        return os.fsdecode(self.store.root.path)


def plan_resume(request: ResumeRequest, extra: list[str] | None = None) -> Resumed:
    store = open_store(project_root(request.cwd))
    fetched: Fetched = None
    if request.remote is not None:
        view, session_id = store_to_read(request.session, request.remote, request.cwd)
        entry = find(view, require_existing(view, session_id), request.turn)
        fetched = (request.remote, view)
    else:
        head = require_existing(store, local_session(store, request.session))
        entry = find(store, head, request.turn)
    return resume_entry(store, entry, request.prompt, request.start, fetched, extra)


def resume_entry(
    store: Store,
    entry: Entry,
    prompt: str = "",
    start: bool = True,
    fetched: Fetched = None,
    extra: list[str] | None = None,
) -> Resumed:
    """The resume from before ``entry`` (of the session ``fetched`` from a remote, when given:
    this machine's private contents and secrets are taken out of its copy)."""
    redact = fetched_redactor(store) if fetched is not None else None
    branch = plan(store, entry, prompt, start, fetched, redact)
    return Resumed(store, entry, branch, list(extra or []))


__all__ = [
    "ResumeRequest",
    "Resumed",
    "check",
    "cut_point_of",
    "plan_resume",
    "resume_entry",
]
