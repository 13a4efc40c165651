"""Naming a remote: URLs as people type them, and whether a remote is the project's own.

A remote's URL is anything git understands. A local path is made absolute (git would read it
from wherever it runs), and the name of one of the project's own git remotes (``origin``)
stands for its URL. Pushing sessions to the project's own remote makes them readable by
everyone who can read the code: rewind asks once before it does (docs/remote.md).
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.store.git_program import run_git
from rewind.store.remotes import check_name, list_remotes, set_remote, set_setting, setting
from rewind.store.repository import Store

CONFIRMED = "rewindconfirmed"


def add_remote(store: Store, name: str, url: str) -> str:
    """Adds the remote; returns the URL stored."""
    check_name(name)
    if name in list_remotes(store):
        raise UserError(
            f"there is a remote {name!r} already; 'rewind remote remove {name}' first, or "
            "choose another name."
        )
    stored = resolve_url(store.root.path, url)
    set_remote(store, name, stored)
    return stored


def resolve_url(root: bytes, url: str) -> str:
    if not url.strip():
        raise UserError("the URL is empty; give a path, or a file://, ssh:// or https:// URL.")
    own = project_remotes(root)
    if url in own:
        return own[url]
    if "://" in url or _is_scp_like(url):
        return url
    return os.path.abspath(os.path.expanduser(url))


def _is_scp_like(url: str) -> bool:
    """``[user@]host:path``, git's short form of ssh (a colon before any slash)."""
    colon = url.find(":")
    slash = url.find("/")
    return colon > 0 and (slash == -1 or colon < slash)


def project_remotes(root: bytes) -> dict[str, str]:
    """The project repository's own remotes, by name (none outside a repository)."""
    if not os.path.lexists(os.path.join(root, b".git")):
        return {}
    listed = run_git(
        None,
        "-C",
        os.fsdecode(root),
        "config",
        "--get-regexp",
        r"^remote\..*\.url$",
        what="reading the project's remotes",
        check=False,
    )
    found = {}
    for line in listed.stdout.decode("utf-8", "surrogateescape").splitlines():
        key, _, value = line.partition(" ")
        found[key[len("remote.") : -len(".url")]] = value
    return found


def project_remote_named(store: Store, url: str) -> str | None:
    """The name of the project's own remote ``url`` is, if it is one."""
    wanted = _normal(url)
    for name, own in project_remotes(store.root.path).items():
        if _normal(own) == wanted:
            return name
    return None


def _normal(url: str) -> str:
    text = url.strip().rstrip("/")
    text = text[: -len(".git")] if text.endswith(".git") else text
    if "://" not in text and not _is_scp_like(text):
        text = os.path.realpath(os.path.expanduser(text))
    return text


def needs_confirmation(store: Store, name: str, url: str) -> str | None:
    """The project remote's name when pushing to ``name`` must be confirmed first."""
    if setting(store, name, CONFIRMED) == "true":
        return None
    return project_remote_named(store, url)


def confirm(store: Store, name: str) -> None:
    set_setting(store, name, CONFIRMED, "true")


def check_reachable(store: Store, name: str, timeout: float = 30.0) -> None:
    """Raises :class:`GitFailed` unless the remote answers (``git ls-remote``, which lists
    nothing: it asks for a ref no one has)."""
    run_git(
        store.git_dir,
        "ls-remote",
        name,
        "refs/rewind/-/none",
        what=f"reaching {name}",
        timeout=timeout,
    )
