"""Sessions fetched from a remote: brought with ``git fetch``, read like local ones, never
written.

``rewind fetch NAME`` fetches this project's namespace on the remote,
``refs/rewind/<project id>/*``, into the remote's **mirror** (rewind.store.remotes), a bare
repository of its own inside the store, as ``refs/rewind/machines/<machine>/...``: nothing a
remote sends lands among the store's own objects or refs, so a hostile or broken remote cannot
damage the local history, and forgetting the remote removes all of it. ``git fetch`` checks
every object it receives (``transfer.fsckObjects``); a fetch that grows past ``[remote]
max_fetch_mb`` is stopped and what it brought removed.

Each machine's sessions are read through a **view**: a :class:`Store` whose sessions and labels
are that machine's refs in the mirror, whose own files (index, caches) are under
``<mirror>/rewind/machines/<machine>/``, and which is read-only (its lock refuses, so every
writer refuses). Every reader of local sessions (log, show, diff, the TUI) reads a view the same
way. Paths in fetched entries are whatever the remote says: those that would leave the project
root are refused where anything is written (rewind.history.restoring.apply).
"""

from __future__ import annotations

import os
import shutil
import time

from rewind.errors import UserError
from rewind.history.remote.identity import project_id
from rewind.history.sessions import SessionSummary, list_sessions
from rewind.store import mirrors
from rewind.store.atomic import write_text_atomically
from rewind.store.config import Config, usable_id
from rewind.store.git_program import GitFailed, last_error_line, run_git, start_git, stop_git
from rewind.store.remotes import REMOTE_NAMESPACE, list_remotes, mirror_dir, remote_url
from rewind.store.repository import GIT_CONFIG, Store
from rewind.store.root import Root

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

MACHINES_PREFIX = "refs/rewind/machines/"
VIEWS_DIR = "machines"


class FetchReport:
    __slots__ = ("after", "before", "machines", "project")

    def __init__(self, project: str, before: dict[str, str], after: dict[str, str]) -> None:
        self.project = project
        self.before = before
        self.after = after
        self.machines = sorted({ref.split("/")[3] for ref in after if ref.count("/") >= 5})

    @property
    def sessions(self) -> list[str]:
        return [ref for ref in self.after if _is_session_ref(ref)]

    @property
    def changed_sessions(self) -> list[str]:
        return [ref for ref in self.sessions if self.before.get(ref) != self.after.get(ref)]

    @property
    def gone_sessions(self) -> list[str]:
        return [ref for ref in self.before if _is_session_ref(ref) and ref not in self.after]


def _is_session_ref(ref: str) -> bool:
    parts = ref.split("/")  # refs rewind machines <machine> sessions <leaf>
    return len(parts) == 6 and parts[4] == "sessions"


def fetch(store: Store, remote: str, interactive: bool = False) -> FetchReport:
    """Brings the remote's sessions of this project into its mirror (see the module's doc)."""
    url = remote_url(store, remote)
    project = project_id(store)
    mirror = ensure_mirror(store, remote)
    with mirrors.fetch_lock(mirror) as free:
        if not free:
            raise UserError(
                f"another 'rewind fetch' from {remote} is running; it brings what this one "
                "would, so there is nothing to do."
            )
        return _fetch(mirror, url, project, remote, store.config.remote.max_fetch_mb, interactive)


def _fetch(
    mirror: str, url: str, project: str, remote: str, max_mb: int, interactive: bool
) -> FetchReport:
    """:func:`fetch`, holding the mirror's fetch lock (rewind.store.mirrors)."""
    running = mirrors.running_gits(mirror)
    if running:
        raise UserError(
            f"the git of an earlier fetch from {remote}, whose rewind was killed, still runs "
            f"(pid {running[0]}); fetch again once it has ended."
        )
    mirrors.clear_leftovers(mirror)  # what a killed fetch left is never counted
    before = _mirror_refs(mirror)
    limit = max_mb * 1024 * 1024
    packs = _packs(mirror)
    _run_fetch(mirror, url, project, remote, limit, interactive)
    after = _mirror_refs(mirror)
    if after != before:
        mirrors.want_gc(mirror)  # what the remote deleted, or replaced, can go
    if _brought(mirror, packs) > limit:  # done before the growing pack was seen past it
        _undo(mirror, packs, before, after)
        raise _too_big(remote, limit)
    for machine in os.listdir(os.path.join(mirror, "rewind", VIEWS_DIR)):
        if not any(ref.startswith(f"{MACHINES_PREFIX}{machine}/") for ref in after):
            shutil.rmtree(os.path.join(mirror, "rewind", VIEWS_DIR, machine), ignore_errors=True)
    return FetchReport(project, before, after)


def ensure_mirror(store: Store, remote: str) -> str:
    mirror = mirror_dir(store, remote)
    if not os.path.exists(os.path.join(mirror, "HEAD")):
        for folder in ("objects/pack", "objects/info", "refs/heads", "rewind/" + VIEWS_DIR):
            os.makedirs(os.path.join(mirror, folder), exist_ok=True)
        write_text_atomically(os.path.join(mirror, "config"), GIT_CONFIG)
        write_text_atomically(os.path.join(mirror, "HEAD"), "ref: refs/heads/main\n")
    os.makedirs(os.path.join(mirror, "rewind", VIEWS_DIR), exist_ok=True)
    return mirror


def _run_fetch(
    mirror: str,
    url: str,
    project: str,
    remote: str,
    limit: int,
    interactive: bool,
) -> None:
    """``git fetch`` into the mirror, stopped (and its pack removed) past ``limit`` bytes, or
    when this process is interrupted."""
    process = start_git(
        mirror,
        "-c",
        "fetch.unpackLimit=1",  # always one pack, whose growth can be watched
        "fetch",
        "--prune",
        "--no-tags",
        "--no-write-fetch-head",
        "--quiet",
        url,
        f"+{REMOTE_NAMESPACE}{project}/*:{MACHINES_PREFIX}*",
        what="fetching",
        interactive=interactive,
    )
    pack_dir = os.path.join(mirror, "objects", "pack")
    assert process.stderr is not None
    try:
        mirrors.note_git(mirror, process.pid)
        too_big, errors = _watch(process, pack_dir, limit, interactive)
    except BaseException:  # Ctrl-C, or another signal Python raises for: git goes too
        stop_git(process, interactive)
        _remove_incoming(pack_dir)
        raise
    finally:
        process.stderr.close()
        mirrors.forget_git(mirror, process.pid)  # it was waited for
    if too_big:
        _remove_incoming(pack_dir)
        raise _too_big(remote, limit)
    if process.returncode != 0:
        _remove_incoming(pack_dir)  # git leaves the pack it refused (failed fsck)
        raise GitFailed(f"fetching from {remote} ({url}) failed: {last_error_line(errors)}")


def _watch(
    process: subprocess.Popen[bytes], pack_dir: str, limit: int, interactive: bool
) -> tuple[bool, bytes]:
    """Waits for git, stopping it past ``limit``: whether it was stopped, and what it said."""
    assert process.stderr is not None
    os.set_blocking(process.stderr.fileno(), False)
    errors = b""
    while process.poll() is None:
        time.sleep(0.05)
        errors += process.stderr.read() or b""
        if _incoming_size(pack_dir) > limit:
            stop_git(process, interactive)
            return True, errors
    return False, errors + (process.stderr.read() or b"")


def _too_big(remote: str, limit: int) -> UserError:
    return UserError(
        f"fetching from {remote} was stopped: it brought more than {limit >> 20} MB, the "
        "limit ([remote] max_fetch_mb in rewind.toml); raise it if the remote is trusted."
    )


def _packs(mirror: str) -> set[str]:
    return set(os.listdir(os.path.join(mirror, "objects", "pack")))


def _brought(mirror: str, packs: set[str]) -> int:
    """The size of the packs a fetch added (fetch.unpackLimit=1: it adds nothing else)."""
    folder = os.path.join(mirror, "objects", "pack")
    return sum(
        os.stat(os.path.join(folder, name)).st_size
        for name in _packs(mirror) - packs
        if name.endswith(".pack")
    )


def _undo(mirror: str, packs: set[str], before: dict[str, str], after: dict[str, str]) -> None:
    """Puts the mirror back as it was before a fetch: its refs, then without its packs."""
    commands = [f"delete {ref}\n" for ref in after if ref not in before]
    commands += [f"update {ref} {tip}\n" for ref, tip in before.items() if after.get(ref) != tip]
    if commands:
        run_git(
            mirror,
            "update-ref",
            "--stdin",
            input="".join(commands).encode(),
            what="putting the mirror's refs back",
        )
    folder = os.path.join(mirror, "objects", "pack")
    for name in _packs(mirror) - packs:
        try:
            os.unlink(os.path.join(folder, name))
        except FileNotFoundError:
            pass


def _incoming_size(pack_dir: str) -> int:
    total = 0
    try:
        for name in os.listdir(pack_dir):
            if name.startswith(mirrors.TEMPORARY):
                try:
                    total += os.stat(os.path.join(pack_dir, name)).st_size
                except FileNotFoundError:
                    pass
    except FileNotFoundError:
        pass
    return total


def _remove_incoming(pack_dir: str) -> None:
    for name in os.listdir(pack_dir):
        if name.startswith(mirrors.TEMPORARY):
            try:
                os.unlink(os.path.join(pack_dir, name))
            except FileNotFoundError:
                pass


def _mirror_refs(mirror: str) -> dict[str, str]:
    """The mirror's refs under refs/rewind/machines/ (loose or packed), each with its id."""
    view = Store(mirror, Root(b"/"), Config())
    found: dict[str, str] = {}
    for ref in view.all_ref_names(MACHINES_PREFIX):
        try:
            tip = view.read_ref(ref)
        except UserError:
            continue
        if tip:
            found[ref] = tip
    return found


# reading -------------------------------------------------------------------------------------


def machine_views(store: Store, remote: str) -> dict[str, Store]:
    """A read-only view per machine that pushed sessions of this project to ``remote``."""
    mirror = mirror_dir(store, remote)
    if not os.path.exists(os.path.join(mirror, "HEAD")):
        return {}
    machines = set()
    for ref in _mirror_refs(mirror):
        machine = ref.split("/")[3]
        if usable_id(machine):
            machines.add(machine)
    return {machine: view_of(store, remote, mirror, machine) for machine in sorted(machines)}


def view_of(store: Store, remote: str, mirror: str, machine: str) -> Store:
    view = Store(mirror, store.root, store.config)
    view.sessions_prefix = f"{MACHINES_PREFIX}{machine}/sessions/"
    view.labels_prefix = f"{MACHINES_PREFIX}{machine}/labels/"
    view.conversations_prefix = f"{MACHINES_PREFIX}{machine}/conversations/"
    view.state_root = os.path.join(mirror, "rewind", VIEWS_DIR, machine)
    view.read_only = True
    view.fetched_from = remote
    try:
        os.makedirs(os.path.join(view.state_root, "sessions"), exist_ok=True)
    except OSError:
        pass  # a read-only mirror still reads (without caches)
    return view


class FetchedSession:
    __slots__ = ("machine", "remote", "summary", "view")

    def __init__(self, remote: str, machine: str, view: Store, summary: SessionSummary) -> None:
        self.remote = remote
        self.machine = machine
        self.view = view
        self.summary = summary

    @property
    def name(self) -> str:
        return f"{self.machine}/{self.summary.head.session_id}"

    @property
    def last_active(self) -> float:
        current = self.summary.head.current
        return (current.ended or current.started) if current is not None else 0.0


def fetched_sessions(store: Store, remote: str | None = None) -> list[FetchedSession]:
    """The fetched sessions of ``remote`` (None: of every remote), least recently active
    first."""
    remotes = [remote] if remote is not None else list(list_remotes(store))
    found = []
    for name in remotes:
        for machine, view in machine_views(store, name).items():
            for summary in list_sessions(view, damaged=[]):
                found.append(FetchedSession(name, machine, view, summary))
    found.sort(key=lambda session: session.last_active)
    return found


def open_fetched(store: Store, remote: str, requested: str | None) -> tuple[Store, str]:
    """The view and the id of a fetched session: ``MACHINE/SESSION``, or ``SESSION`` when one
    machine only has it, or (None) the one most recently active."""
    remote_url(store, remote)  # a remote that does not exist is named as such
    sessions = fetched_sessions(store, remote)
    if not sessions:
        raise UserError(
            f"nothing has been fetched from {remote} for this project; "
            f"run 'rewind fetch {remote}' first."
        )
    if requested is None:
        chosen = sessions[-1]
        return chosen.view, chosen.summary.head.session_id
    matching = [s for s in sessions if requested in (s.name, s.summary.head.session_id)]
    if len(matching) > 1:
        names = ", ".join(s.name for s in matching)
        raise UserError(
            f"more than one machine pushed a session {requested!r} ({names}); "
            "name it as MACHINE/SESSION."
        )
    if not matching:
        raise UserError(
            f"{remote} has no session {requested!r} for this project; "
            f"'rewind sessions --remote {remote}' lists them."
        )
    return matching[0].view, matching[0].summary.head.session_id
