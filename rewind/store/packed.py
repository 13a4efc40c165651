"""The store's packed objects, read and written through pygit2 (libgit2).

One of the three modules that import pygit2 (``tests/gates_test.py``): this one for the store,
:mod:`rewind.store.line_diffs` for line diffs, :mod:`rewind.store.project_repository` for the
user's own repository. pygit2 is imported inside the functions that need it, so that importing
this module is free. The user's own git configuration (global, XDG, system) is blanked before
any repository is opened, so nothing in it (hooks, filters, ``core.*`` settings) can leak into
the store.
"""

from __future__ import annotations

from rewind.errors import MissingObject, StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    import pygit2

_repositories: dict[str, pygit2.Repository] = {}


def open_repository(git_dir: str) -> pygit2.Repository:
    repository = _repositories.get(git_dir)
    if repository is None:
        import pygit2
        from pygit2.enums import ConfigLevel

        for level in (ConfigLevel.GLOBAL, ConfigLevel.XDG, ConfigLevel.SYSTEM):
            pygit2.settings.search_path[level] = ""
        try:
            repository = pygit2.Repository(git_dir)
        except pygit2.GitError as error:
            raise StoreError(
                f"the store at {git_dir} cannot be opened ({error}); run 'rewind check'."
            ) from None
        _repositories[git_dir] = repository
    return repository


def read_packed_object(git_dir: str, oid: str) -> tuple[bytes, bytes]:
    import pygit2

    repository = open_repository(git_dir)
    try:
        kind, body = repository.odb.read(oid)[0:2]
    except KeyError:
        raise MissingObject(
            f"object {oid} is missing from the store; run 'rewind check' to see what it affects."
        ) from None
    # A pack that cannot be inflated or fails its checksum; libgit2's "out of memory" is a
    # damaged header claiming a size no stored object has (files past max_file_size are not kept).
    except (pygit2.GitError, MemoryError) as error:
        raise StoreError(
            f"object {oid} in the store is corrupted ({error}); "
            "run 'rewind check' to see what it affects."
        ) from None
    names = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}
    return names[int(kind)], bytes(body)


def read_packed_size(git_dir: str, oid: str) -> int:
    """The size of a packed object, from its header (the object is not inflated)."""
    import pygit2

    try:
        return int(open_repository(git_dir).odb.read_header(oid)[1])
    except KeyError:
        raise MissingObject(
            f"object {oid} is missing from the store; run 'rewind check' to see what it affects."
        ) from None
    except (pygit2.GitError, MemoryError) as error:  # MemoryError: a damaged size
        raise StoreError(
            f"object {oid} in the store is corrupted ({error}); "
            "run 'rewind check' to see what it affects."
        ) from None


def build_pack(git_dir: str, folder: str, objects: Iterable[bytes]) -> None:
    """Writes a delta-compressed pack of ``objects`` (20-byte ids) and its index into
    ``folder`` (libgit2's PackBuilder)."""
    import pygit2

    builder = pygit2.PackBuilder(open_repository(git_dir))
    try:
        for raw in objects:
            builder.add(pygit2.Oid(raw=raw))
        builder.write(folder)
    except (pygit2.GitError, KeyError) as error:
        raise StoreError(
            f"a pack could not be written ({error}); run 'rewind check' to see what it affects."
        ) from None


def forget_repository(git_dir: str) -> None:
    """Drops the open repository, so that the next read sees the packs as they are now."""
    _repositories.pop(git_dir, None)
