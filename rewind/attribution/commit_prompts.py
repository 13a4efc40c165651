"""The prompts behind a commit (``rewind log --commit REV``): its authorship note, any
writer's, read with what this machine's store knows of rewind's own turns."""

from __future__ import annotations

from dataclasses import dataclass, field

from rewind.attribution.git_notes import NOTES_REF
from rewind.attribution.note_format import Note, NoteError, parse, prompt_text, ranges_text
from rewind.errors import UserError
from rewind.store.git_program import GitFailed, run_git
from rewind.store.project_repository import notes_of


@dataclass
class PromptBehind:
    """One author key of the note: who, and the lines it wrote in each file."""

    key: str
    tool: str
    model: str
    session: str
    turn: str
    entry: str  # rewind's entry id, when rewind wrote the note
    prompt: str
    author: str
    files: dict[str, str] = field(default_factory=dict)  # path: line ranges
    lines: int = 0


@dataclass
class CommitPrompts:
    commit: str
    subject: str
    note: Note | None
    prompts: list[PromptBehind]
    unreadable: str = ""  # why the note could not be read, when it could not


def commit_prompts(top: bytes, revision: str) -> CommitPrompts:
    """What the note of the commit ``revision`` names; refuses a revision git does not know."""
    commit, subject = _resolve(top, revision)
    text = notes_of(top, [commit], NOTES_REF).get(commit)
    if text is None:
        return CommitPrompts(commit, subject, None, [])
    try:
        note = parse(text)
    except NoteError as error:
        return CommitPrompts(commit, subject, None, [], unreadable=str(error))
    found: dict[str, PromptBehind] = {}
    for attested in note.files:
        for key, lines in attested.entries.items():
            behind = found.get(key) or found.setdefault(key, _behind(note, key))
            behind.files[attested.path] = ranges_text(lines)
            behind.lines += len(lines)
    return CommitPrompts(commit, subject, note, list(found.values()))


def _behind(note: Note, key: str) -> PromptBehind:
    if key in note.humans:
        return PromptBehind(key, "person", "", "", "", "", "", note.humans[key])
    session = note.sessions.get(key.split("::")[0])
    if session is not None:
        agent = session.agent_id
        author = session.human_author or ""
        return PromptBehind(key, agent.tool, agent.model, agent.id, "", "", "", author)
    record = note.prompts.get(key)
    if record is None:
        return PromptBehind(key, "unknown", "", "", "", "", "", "")
    attributes = record.custom_attributes
    return PromptBehind(
        key,
        record.agent_id.tool,
        record.agent_id.model,
        record.agent_id.id,
        attributes.get("rewind_turn", ""),
        attributes.get("rewind_entry", ""),
        prompt_text(record),
        record.human_author or "",
    )


def _resolve(top: bytes, revision: str) -> tuple[str, str]:
    try:
        done = run_git(
            None,
            "-C",
            top,
            "log",
            "-1",
            "--format=%H%x00%s",
            "--end-of-options",
            revision,
            "--",
            what=f"reading commit {revision}",
            check=False,
            repository_from_environment=True,
        )
    except GitFailed as error:
        raise UserError(f"git could not read {revision} ({error.cause}).") from None
    commit, _, subject = done.stdout.decode("utf-8", "replace").strip().partition("\0")
    if done.returncode != 0 or len(commit) < 40:
        raise UserError(
            f"{revision!r} is not a commit of this repository; name one as git does (HEAD~2, a "
            "branch, an id)."
        )
    return commit, subject
