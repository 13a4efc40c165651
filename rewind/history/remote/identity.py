"""Who is pushing what: the project's id, which survives a clone, and this machine's id.

A store is named after the project's path, which differs from machine to machine; on a remote,
sessions are kept under ``refs/rewind/<project id>/<machine id>/`` instead (docs/remote.md):

- the **project id** is ``project_id`` in ``rewind.toml`` when it is set, else ``git-`` and the
  first 16 hex digits of the project repository's root commit (the one its first-parent
  history starts from), which every full clone shares. A shallow clone does not know its root
  commit, and a folder outside git has none: both are asked to set ``project_id``. The id is
  kept in the store once found, so that git is asked once.
- the **machine id** is ``$REWIND_MACHINE`` when it is set (a CI job can name itself), else
  the host's name and six random hex digits, chosen once and kept in ``$REWIND_HOME``.
"""

from __future__ import annotations

import os
import socket

from rewind.errors import UserError
from rewind.store.atomic import write_text_atomically
from rewind.store.config import CONFIG_NAME, usable_id
from rewind.store.git_program import run_git
from rewind.store.home import rewind_home
from rewind.store.repository import Store

PROJECT_ID_FILE = "project-id"
MACHINE_ID_FILE = "machine-id"


def project_id(store: Store) -> str:
    """The project's id on remotes (see the module's doc)."""
    if store.config.project_id:
        return store.config.project_id
    path = store.state_path(PROJECT_ID_FILE)
    known = _kept_id(path)
    if known is not None:
        return known
    found = "git-" + root_commit(store.root.path)[:16]
    try:
        write_text_atomically(path, found + "\n")
    except OSError:
        pass  # only a cache
    return found


def _kept_id(path: str) -> str | None:
    """The id kept in the file ``path``, unless there is none or it is not usable."""
    try:
        with open(path, encoding="ascii") as handle:
            known = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return known if usable_id(known) else None


def root_commit(root: bytes) -> str:
    """The root commit of the first-parent history of the repository at ``root``."""
    shown = os.fsdecode(root)
    advice = (
        f"set project_id in {CONFIG_NAME} (for example project_id = "
        f'"{suggested_project_id(root)}") and commit it, so that every clone shares it'
    )
    if not os.path.lexists(os.path.join(root, b".git")):
        raise UserError(
            f"{shown} is not a git repository, so it has no id a clone would share; {advice}."
        )
    where = os.fsdecode(root)
    shallow = run_git(
        None,
        "-C",
        where,
        "rev-parse",
        "--is-shallow-repository",
        what="reading the project's repository",
        timeout=60,
    )
    if shallow.stdout.strip() == b"true":
        raise UserError(
            f"{shown} is a shallow clone, which does not know its first commit; {advice}."
        )
    listed = run_git(
        None,
        "-C",
        where,
        "rev-list",
        "--first-parent",
        "--max-parents=0",
        "HEAD",
        what="finding the project's first commit",
        timeout=120,
        check=False,
    )
    roots = listed.stdout.decode("ascii", "replace").split()
    if listed.returncode != 0 or not roots:
        raise UserError(
            f"{shown} has no commit yet, so it has no id a clone would share; {advice}."
        )
    return roots[-1]


def suggested_project_id(root: bytes) -> str:
    name = os.path.basename(root.rstrip(b"/")).decode("utf-8", "replace") or "project"
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-")[:40]
    return f"{safe or 'project'}-{os.urandom(3).hex()}"


def machine_id() -> str:
    """This machine's id on remotes (see the module's doc)."""
    configured = os.environ.get("REWIND_MACHINE", "").strip()
    if configured:
        if not usable_id(configured):
            raise UserError(
                f"REWIND_MACHINE={configured!r} cannot name a machine on a remote; use letters, "
                "digits, '-', '_' and '.', like ci-runner-7."
            )
        return configured
    path = os.path.join(rewind_home(), MACHINE_ID_FILE)
    known = _kept_id(path)
    if known is not None:
        return known
    host = socket.gethostname().split(".")[0]
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in host).strip("-")[:32]
    chosen = f"{safe or 'machine'}-{os.urandom(3).hex()}"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_text_atomically(path, chosen + "\n")
    return chosen
