"""``rewind log --commit REV``: the prompts behind a commit, from its authorship note
(docs/attribution.md)."""

from __future__ import annotations

from rewind.actions.projects import project_root, recorded_store
from rewind.attribution.commit_prompts import CommitPrompts, PromptBehind, commit_prompts
from rewind.commands.output.json_output import print_json
from rewind.history.entry import first_line
from rewind.store.repository import Store


def run(revision: str, as_json: bool) -> int:
    found = commit_prompts(project_root(None), revision)
    store = recorded_store()
    if store is not None:
        for behind in found.prompts:
            if not behind.prompt:
                behind.prompt = _recorded_prompt(store, behind)
    if as_json:
        print_json(_json(found))
    else:
        _print_text(found)
    return 0


def _recorded_prompt(store: Store, behind: PromptBehind) -> str:
    """The prompt this machine's record holds for a turn the note names without its text."""
    from rewind.history.lookup import find
    from rewind.history.session import load_head

    if not behind.session or not behind.turn:
        return ""
    try:
        entry = find(store, load_head(store, behind.session), behind.turn)
    except Exception:  # not recorded here, or gone: the note alone answers
        return ""
    return entry.prompt if entry.id == behind.entry else ""


def _print_text(found: CommitPrompts) -> None:
    print(f"commit {found.commit[:12]}  {found.subject}")
    if found.unreadable:
        print(f"  its note (refs/notes/ai) cannot be read: {found.unreadable}")
        return
    if found.note is None:
        print(
            "  no authorship note: no line of it is an agent's, or it was made without "
            "[attribution] notes = true (docs/attribution.md)"
        )
        return
    if not found.prompts:
        print("  its note names no line")
    for behind in found.prompts:
        who = f"{behind.tool} session {behind.session}" if behind.session else behind.tool
        turn = f" #{behind.turn}" if behind.turn else ""
        prompt = first_line(behind.prompt, 72) if behind.prompt else "(the note holds no prompt)"
        print(f"  {who}{turn}: {prompt}")
        for path, ranges in behind.files.items():
            print(f"      {path} {ranges}")


def _json(found: CommitPrompts) -> dict[str, object]:
    return {
        "commit": found.commit,
        "subject": found.subject,
        "note": found.note is not None,
        "unreadable": found.unreadable or None,
        "prompts": [
            {
                "key": b.key,
                "tool": b.tool,
                "model": b.model or None,
                "session": b.session or None,
                "turn": int(b.turn) if b.turn.isdigit() else None,
                "prompt": b.prompt or None,
                "author": b.author or None,
                "lines": b.lines,
                "files": b.files,
            }
            for b in found.prompts
        ],
    }
