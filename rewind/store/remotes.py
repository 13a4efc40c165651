"""The remotes a store pushes to and fetches from, kept in the store's own git config.

``rewind remote add NAME URL`` writes ``remote.NAME.url`` into ``<store>/config`` (git's own
syntax, so ``git --git-dir=<store> remote -v`` lists them too). What rewind keeps of each
remote besides (docs/remote.md):

- ``<store>/rewind/remotes/<NAME>/``: the **mirror**, a bare repository holding what
  ``rewind fetch`` brought, each machine's sessions under ``refs/rewind/machines/<machine>/``;
  rewind's files for reading them (index, caches) under its ``rewind/machines/<machine>/``;
- ``refs/rewind/pushed/<NAME>/``: what was last pushed, as the commits sent (which keeps
  them from gc), and ``<store>/rewind/pushed/<NAME>.json``, which local entries they stand for.
"""

from __future__ import annotations

import os
import shutil

from rewind.errors import UserError
from rewind.store.git_program import run_git
from rewind.store.repository import Store

PUSHED_REF_PREFIX = "refs/rewind/pushed/"
MIRRORS_DIR = "remotes"
PUSH_STATES_DIR = "pushed"
# The namespace of every project on a remote: refs/rewind/<project>/<machine>/sessions/<id>.
REMOTE_NAMESPACE = "refs/rewind/"
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def check_name(name: str) -> str:
    if not (0 < len(name) <= 40 and name[0].isalnum() and set(name) <= _NAME_CHARACTERS):
        raise UserError(
            f"{name!r} cannot name a remote; use letters, digits, '-' and '_', like backup."
        )
    return name


# The store's remote settings as last read, by config file: (its mtime and size, key -> value).
_read: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}


def _settings(store: Store) -> dict[str, str]:
    """Every ``remote.*`` key of the store's config, read with one git process per change of
    the file (a push asks for several)."""
    path = os.path.join(store.git_dir, "config")
    try:
        info = os.stat(path)
        signature = (info.st_mtime_ns, info.st_size)
    except FileNotFoundError:
        signature = (0, 0)
    known = _read.get(path)
    if known is not None and known[0] == signature:
        return known[1]
    listed = run_git(
        None,
        "config",
        "--file",
        path,
        "--get-regexp",
        r"^remote\.",
        what="reading the store's remotes",
        check=False,
    )
    found: dict[str, str] = {}
    for line in listed.stdout.decode("utf-8", "surrogateescape").splitlines():
        key, _, value = line.partition(" ")
        found[key] = value
    _read[path] = (signature, found)
    return found


def list_remotes(store: Store) -> dict[str, str]:
    """Every remote of the store, by name: its URL."""
    found: dict[str, str] = {}
    for key, url in _settings(store).items():
        if not key.endswith(".url"):
            continue
        name = key[len("remote.") : -len(".url")]
        if name and set(name) <= _NAME_CHARACTERS:
            found[name] = url
    return dict(sorted(found.items()))


def remote_url(store: Store, name: str) -> str:
    remotes = list_remotes(store)
    if name not in remotes:
        known = ", ".join(remotes) if remotes else "none yet"
        raise UserError(
            f"there is no remote {name!r} (remotes: {known}); add it with "
            f"'rewind remote add {name} URL'."
        )
    return remotes[name]


def set_remote(store: Store, name: str, url: str) -> None:
    _config(store, "remote." + check_name(name) + ".url", url)


def remove_remote(store: Store, name: str) -> None:
    """Forgets the remote: its settings, what was fetched from it, what says what was pushed."""
    remote_url(store, name)
    run_git(
        None,
        "config",
        "--file",
        os.path.join(store.git_dir, "config"),
        "--remove-section",
        f"remote.{name}",
        what="removing the remote",
    )
    for ref in store.all_ref_names(f"{PUSHED_REF_PREFIX}{name}/"):
        store.delete_ref(ref)
    shutil.rmtree(os.path.join(store.git_dir, PUSHED_REF_PREFIX, name), ignore_errors=True)
    shutil.rmtree(mirror_dir(store, name), ignore_errors=True)
    try:
        os.unlink(push_state_path(store, name))
    except FileNotFoundError:
        pass


def setting(store: Store, name: str, key: str) -> str:
    """``remote.NAME.KEY`` (git config lower-cases the key), or ""."""
    return _settings(store).get(f"remote.{name}.{key.lower()}", "")


def set_setting(store: Store, name: str, key: str, value: str) -> None:
    _config(store, f"remote.{name}.{key}", value)


def _config(store: Store, key: str, value: str) -> None:
    run_git(
        None,
        "config",
        "--file",
        os.path.join(store.git_dir, "config"),
        key,
        value,
        what="writing the store's remotes",
    )


def mirror_dir(store: Store, name: str) -> str:
    return store.state_path(MIRRORS_DIR, name)


def push_state_path(store: Store, name: str) -> str:
    return store.state_path(PUSH_STATES_DIR, name + ".json")
