"""``rewind log --commit REV``: the prompts behind a commit, from its authorship note
(docs/attribution.md)."""

from __future__ import annotations

from rewind.actions.projects import project_root, recorded_store
from rewind.commands.output.json_output import print_json
from rewind.history.attribution.commit_prompts import (
    CommitPrompts,
    commit_prompts,
    described,
    with_recorded_prompts,
)


def run(revision: str, as_json: bool) -> int:
    found = with_recorded_prompts(commit_prompts(project_root(None), revision), recorded_store())
    if as_json:
        print_json(_json(found))
    else:
        print("\n".join(described(found)))
    return 0


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
