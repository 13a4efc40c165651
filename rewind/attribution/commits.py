"""What a commit of the person's repository brought, read with libgit2 (nothing is written):
each file it added or changed, its content as committed, and the lines the commit added to it
(against its first parent; every line of a root commit's files)."""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pygit2

# A file this large is not read for authorship (as rewind's default max_file_size).
MAX_BYTES = 16 * 1024 * 1024


@dataclass
class CommittedFile:
    path: bytes  # from the top of the work tree, as git names it
    content: bytes
    added: list[int]  # the line numbers (from 1) of the lines the commit added


@dataclass
class Commit:
    sha: str
    author: str  # "Name <email>"
    files: list[CommittedFile]


def open_repository(top: bytes) -> pygit2.Repository:
    import pygit2

    return pygit2.Repository(top)


def read_commit(repository: pygit2.Repository, revision: str) -> Commit:
    """The commit ``revision`` names; its text files that the commit added or changed."""
    import pygit2

    found = repository.revparse_single(revision)
    commit = found.peel(pygit2.Commit)
    if commit.parents:
        diff = commit.parents[0].tree.diff_to_tree(commit.tree, context_lines=0)
    else:
        diff = commit.tree.diff_to_tree(context_lines=0, swap=True)
    files = []
    for patch in diff:
        if patch is None:
            continue
        delta = patch.delta
        if delta.is_binary or delta.new_file.mode not in (0o100644, 0o100755):
            continue
        if delta.new_file.size > MAX_BYTES or not patch.hunks:
            continue
        added = [
            number
            for hunk in patch.hunks
            for number in range(hunk.new_start, hunk.new_start + hunk.new_lines)
        ]
        if not added:
            continue
        blob = repository.get(delta.new_file.id)
        if isinstance(blob, pygit2.Blob):
            files.append(CommittedFile(delta.new_file.raw_path, blob.data, added))
    signature = commit.author
    return Commit(str(commit.id), f"{signature.name} <{signature.email}>", files)
