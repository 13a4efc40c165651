"""``rewind hook git-post-rewrite``: git's post-rewrite hook, after ``git commit --amend`` and
``git rebase``: the note of each new commit takes in the lines of the commits it replaced
(several for a squash or a fixup), carried where they are unchanged
(:mod:`rewind.history.attribution.carry`).

git gives ``OLD NEW`` lines on standard input, which the hook's script hands over as they came;
nothing else is read. Only with ``[attribution] notes = true``.
"""

from __future__ import annotations

import sys

from rewind.hooks.git_postcommit import is_commit_id, note, project_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.hooks.context import HookContext

NEEDS_PAYLOAD = False
# At most this many rewritten commits are read (a rebase of a long branch is noted in full far
# below it); more lines than that are left out, and the log says so.
MAX_PAIRS = 100_000


def handle(context: HookContext) -> str | None:
    sources: dict[str, list[str]] = {}
    for number, line in enumerate(sys.stdin):
        if number >= MAX_PAIRS:
            context.log(f"post-rewrite: only the first {MAX_PAIRS} rewritten commits were noted")
            break
        words = line.split()
        if len(words) >= 2 and all(is_commit_id(word) for word in words[:2]):
            sources.setdefault(words[1], []).append(words[0])
    store = project_store(context) if sources else None
    if store is not None:
        note(context, store, [(new, tuple(old)) for new, old in sources.items()])
    return None
