"""The prompts behind a commit (``rewind log --commit REV``): its authorship note, any
writer's, read with what this machine's store knows of rewind's own turns."""

from __future__ import annotations

from dataclasses import dataclass, field

from rewind.errors import UserError
from rewind.history.attribution.git_notes import NOTES_REF
from rewind.history.attribution.note_format import (
    Note,
    NoteError,
    parse,
    printable,
    prompt_text,
    ranges_text,
)
from rewind.store.git_program import GitFailed, run_git
from rewind.store.project_repository import notes_of
from rewind.store.repository import Store

# The label a commit gives the turns open when it was made (rewind.hooks.git_postcommit):
# "commit:" and 12 hex digits.
COMMIT_LABEL = "commit:"


def linked_commits(labels: list[str]) -> list[str]:
    """The commits (12 hex digits each) an entry's labels say it made."""
    return [label[len(COMMIT_LABEL) :] for label in labels if label.startswith(COMMIT_LABEL)]


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


def described(found: CommitPrompts) -> list[str]:
    """``rewind log --commit``'s lines (the TUI shows the same): the commit, then each author
    the note names with its prompt, then its files' line ranges."""
    lines = [f"commit {found.commit[:12]}  {found.subject}"]
    if found.unreadable:
        return [*lines, f"  its note (refs/notes/ai) cannot be read: {found.unreadable}"]
    if found.note is None:
        return [
            *lines,
            "  no authorship note: no line of it is an agent's, or it was made without "
            "[attribution] notes = true (docs/attribution.md)",
        ]
    if not found.prompts:
        lines.append("  its note names no line")
    for behind in found.prompts:
        who = f"{behind.tool} session {behind.session}" if behind.session else behind.tool
        turn = f" #{behind.turn}" if behind.turn else ""
        prompt = _first_line(behind.prompt) if behind.prompt else "(the note holds no prompt)"
        lines.append(f"  {who}{turn}: {prompt}")
        lines.extend(f"      {path} {ranges}" for path, ranges in behind.files.items())
    return lines


def _first_line(text: str, width: int = 72) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def with_recorded_prompts(found: CommitPrompts, store: Store | None) -> CommitPrompts:
    """``found`` with the prompts its note does not hold taken from this machine's record
    (the turn the note names, when ``store`` has it)."""
    if store is None:
        return found
    for behind in found.prompts:
        if not behind.prompt:
            behind.prompt = _recorded_prompt(store, behind)
    return found


def _recorded_prompt(store: Store, behind: PromptBehind) -> str:
    from rewind.history.lookup import find
    from rewind.history.session import load_head

    if not behind.session or not behind.turn:
        return ""
    try:
        entry = find(store, load_head(store, behind.session), behind.turn)
    except Exception:  # not recorded here, or gone: the note alone answers
        return ""
    return entry.prompt if entry.id == behind.entry else ""


def commit_prompts(top: bytes, revision: str) -> CommitPrompts:
    """What the note of the commit ``revision`` names; refuses a revision git does not know."""
    commit, subject = _resolve(top, revision)
    notes = notes_of(top, [commit], NOTES_REF)
    if commit not in notes:
        return CommitPrompts(commit, subject, None, [])
    text = notes[commit]
    if text is None:
        return CommitPrompts(commit, subject, None, [], unreadable="it is larger than 16 MB")
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
    for behind in found.values():  # another's words: printable before anything prints them
        for name in ("key", "tool", "model", "session", "turn", "entry", "prompt", "author"):
            setattr(behind, name, printable(getattr(behind, name)))
        behind.files = {printable(path): ranges for path, ranges in behind.files.items()}
    return CommitPrompts(commit, printable(subject), note, list(found.values()))


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
