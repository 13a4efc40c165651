"""Sending sessions to a remote with git's own transport (``git push``).

On the remote, this machine's sessions of this project are refs under
``refs/rewind/<project id>/<machine id>/`` (rewind.history.remote.identity): ``sessions/<session>``
(its newest closed entry) and ``labels/<session>/<label>``, so that they never collide with the
remote's branches or tags, and one remote holds several projects and several machines. Only
closed entries are sent: the open turn's commit is replaced as it goes, and its records are in
its journal, not in a commit, until it ends. What is sent is each entry as exported
(rewind.history.remote.export: private contents held back); git sends only the objects the remote
does not have, so a push after one more turn sends that turn.

With ``[conversation] share`` naming the remote, the conversation kept with each session
(rewind.history.kept_conversation) goes too, as ``conversations/<session>``: its chain of commits
with private contents and secrets redacted (rewind.history.remote.shared_conversation; forced:
retention and the redaction rewrite it), and deleted from the remote once sharing stops.

What was pushed is kept as refs, ``refs/rewind/pushed/<remote>/``, and in
``<store>/rewind/pushed/<remote>.json`` (which local tip each session's push stands for): a
session whose tip and labels are what was last pushed is not sent again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from rewind.errors import StoreError, UserError
from rewind.history import commits
from rewind.history.entry import Entry
from rewind.history.index.queries import EntryIndex
from rewind.history.remote.export import Exporter
from rewind.history.remote.identity import machine_id, project_id
from rewind.history.remote.privacy import SharingPolicy
from rewind.history.remote.shared_conversation import ConversationExporter
from rewind.history.session import SessionHead, load_head, ref_leaf
from rewind.history.sessions import read_entries_with_commits
from rewind.store.atomic import write_text_atomically
from rewind.store.fastjson import dumps, load_object
from rewind.store.git_program import run_git
from rewind.store.remotes import (
    PUSHED_REF_PREFIX,
    REMOTE_NAMESPACE,
    push_state_path,
    remote_url,
)
from rewind.store.repository import DamagedRef, Store

# Refspecs per git process: command lines stay far below every system's limit.
REFSPECS_PER_PUSH = 500


class SessionPush:
    """One session as a push would send it."""

    __slots__ = (
        "conversation",
        "entries",
        "head",
        "labels",
        "leaf",
        "open_turn",
        "sent_conversation",
        "sent_labels",
        "sent_tip",
        "tip",
    )

    def __init__(self, head: SessionHead, tip: str, open_turn: bool) -> None:
        self.head = head
        self.leaf = ref_leaf(head.session_id)
        self.tip = tip  # the newest closed entry's commit
        self.open_turn = open_turn  # the newest entry is an open turn, which is not sent
        self.labels: dict[str, str] = {}  # label -> the commit it labels
        self.sent_labels: dict[str, str] = {}  # what the last push sent (label -> export)
        self.sent_tip: str | None = None  # the local tip the remote has, as exported now
        self.entries: list[tuple[Entry, str]] = []  # entries not sent yet, with their commits
        # The kept conversation's tip to send (None: not shared, or nothing kept), and whether
        # the remote has one from an earlier push (deleted there when none is sent now).
        self.conversation: str | None = None
        self.sent_conversation = False


class PushPlan:
    __slots__ = (
        "held_open",
        "machine",
        "policy",
        "project",
        "remote",
        "sessions",
        "shares_conversation",
        "up_to_date",
        "url",
    )

    def __init__(
        self, remote: str, url: str, project: str, machine: str, policy: SharingPolicy
    ) -> None:
        self.remote = remote
        self.url = url
        self.project = project
        self.machine = machine
        self.policy = policy  # what stays here; its key names what each session was sent as
        self.sessions: list[SessionPush] = []  # what has something to send
        self.up_to_date: list[str] = []  # sessions already on the remote as they are
        self.held_open: list[SessionHead] = []  # sessions with nothing but an open turn
        self.shares_conversation = False  # [conversation] share names this remote

    @property
    def namespace(self) -> str:
        return f"{REMOTE_NAMESPACE}{self.project}/{self.machine}/"


def plan_push(store: Store, remote: str, sessions: list[str] | None) -> PushPlan:
    """What pushing ``sessions`` (None: every session) to ``remote`` would send."""
    policy = SharingPolicy(store)
    plan = PushPlan(remote, remote_url(store, remote), project_id(store), machine_id(), policy)
    plan.shares_conversation = store.config.shares_conversation_with(remote)
    pushed = load_state(store, remote)
    state = _sent_as_now(pushed, policy)
    if sessions is None:
        heads = _changed_sessions(store, state, plan)
    else:
        heads = [_existing(store, session_id) for session_id in sessions]
    for head in heads:
        current = head.current
        if current is None or head.tip is None:
            continue
        open_turn = current.is_open
        tip = head.parent if open_turn else head.tip
        if tip is None:
            plan.held_open.append(head)  # only an open turn so far: nothing closed to send
            continue
        pending = SessionPush(head, tip, open_turn)
        pending.labels = _labels(store, pending.leaf)
        sent_labels = pushed.get(pending.leaf, {}).get("labels", {})
        pending.sent_labels = sent_labels if isinstance(sent_labels, dict) else {}
        pending.conversation = _conversation(store, pending.leaf, plan.shares_conversation)
        pending.sent_conversation = bool(pushed.get(pending.leaf, {}).get("conversation"))
        sent = state.get(pending.leaf, {})
        sent_tip = sent.get("local")
        pending.sent_tip = sent_tip if isinstance(sent_tip, str) else None
        if (
            sent_tip == tip
            and sent.get("local_labels", {}) == pending.labels
            and sent.get("conversation") == pending.conversation
        ):
            plan.up_to_date.append(head.session_id)
            continue
        plan.sessions.append(pending)
    return plan


def _sent_as_now(
    pushed: dict[str, dict[str, object]], policy: SharingPolicy
) -> dict[str, dict[str, object]]:
    """What was pushed under the sharing policy's current key (its settings, and git's answers
    about the paths its exports depend on: one 'git check-ignore'). A session pushed under
    another key is sent again, exported as the current one holds its files back."""
    key = policy.key
    return {leaf: sent for leaf, sent in pushed.items() if sent.get("policy") == key}


def _changed_sessions(
    store: Store, state: dict[str, dict[str, object]], plan: PushPlan
) -> list[SessionHead]:
    """The sessions whose ref or labels moved since they were last pushed; the others go to
    ``plan.up_to_date`` at the cost of reading their refs (a backup after each turn must not
    read every session of a store that has many). A damaged ref is left out: 'rewind check'
    names it."""
    heads = []
    for ref in store.ref_names(store.sessions_prefix):
        try:
            tip = store.read_ref(ref)
        except DamagedRef:
            continue
        if tip is None:
            continue
        leaf = ref[len(store.sessions_prefix) :]
        sent = state.get(leaf, {})
        session = sent.get("session")
        if (
            sent.get("ref") == tip
            and sent.get("local_labels", {}) == _labels(store, leaf)
            and sent.get("conversation") == _conversation(store, leaf, plan.shares_conversation)
        ):
            plan.up_to_date.append(session if isinstance(session, str) else leaf)
            continue
        if not isinstance(session, str):
            session = leaf if not leaf.startswith("x-") else _session_in(store, tip, leaf)
        try:
            head = load_head(store, session)
        except StoreError as error:  # its newest entry is damaged: the others still go
            store.log_problem(f"session {session} was not pushed: {error}")
            continue
        if head.current is not None:
            heads.append(head)
    return heads


def _session_in(store: Store, tip: str, leaf: str) -> str:
    """The id of the session a hashed ref leaf stands for, read from its newest entry."""
    try:
        return commits.read_entry(store, tip)[0].session
    except StoreError:
        return leaf


def _labels(store: Store, leaf: str) -> dict[str, str]:
    """The session's labels ('rewind label'), each with the commit it labels."""
    prefix = f"{store.labels_prefix}{leaf}/"
    found = {}
    for ref in store.ref_names(prefix):
        commit = store.read_ref(ref)
        if commit:
            found[ref[len(prefix) :]] = commit
    return found


def _conversation(store: Store, leaf: str, shared: bool) -> str | None:
    """The tip of the session's kept conversation when it is shared, else None."""
    if not shared:
        return None
    try:
        return store.read_ref(store.conversations_prefix + leaf)
    except DamagedRef:
        return None  # 'rewind check' names it; the session's entries still go


def _existing(store: Store, session_id: str) -> SessionHead:
    head = load_head(store, session_id)
    if head.current is None:
        raise UserError(f"there is no session {session_id!r}; 'rewind sessions' lists them.")
    return head


def unsent_entries(store: Store, remote: str, plan: PushPlan) -> None:
    """Fills each session's :attr:`SessionPush.entries` with the closed entries the remote
    does not have yet (for ``push --dry-run``): every one when the session is sent again
    under another sharing policy."""
    state = _sent_as_now(load_state(store, remote), plan.policy)
    for pending in plan.sessions:
        pairs = read_entries_with_commits(store, pending.head)
        if pending.open_turn:
            pairs = pairs[:-1]
        last_sent = state.get(pending.leaf, {}).get("local")
        commits = [commit for _, commit in pairs]
        start = commits.index(last_sent) + 1 if last_sent in commits else 0
        pending.entries = pairs[start:]


def private_paths(plan: PushPlan) -> dict[bytes, str]:
    """The paths of the unsent entries whose contents stay here, each with why."""
    paths = {change.path for p in plan.sessions for entry, _ in p.entries for change in entry.files}
    return plan.policy.private(paths)


class PushResult:
    __slots__ = ("entries", "held_back", "rejected", "sessions", "unjudged")

    def __init__(self) -> None:
        self.sessions: list[str] = []  # sent
        self.rejected: list[tuple[str, str]] = []  # session, why
        self.entries = 0
        # The paths whose contents the entries this push sends hold back, with why; and among
        # them, the ones held back only because git would not judge them.
        self.held_back: dict[bytes, str] = {}
        self.unjudged: dict[bytes, str] = {}


def push(
    store: Store, plan: PushPlan, interactive: bool = False, timeout: float | None = None
) -> PushResult:
    """Sends the plan's sessions; what the remote refused is in the result, not raised. A git
    push that runs past ``timeout`` seconds is ended and raises GitFailed."""
    result = PushResult()
    if not plan.sessions:
        return result
    exporter = Exporter(store, plan.policy)
    conversations = ConversationExporter(store, plan.policy)
    shared: dict[str, str] = {}  # the redacted chain sent, by session ref leaf
    refspecs: list[tuple[SessionPush, str, str, str]] = []  # session, what, source, remote ref
    exported_labels: dict[str, dict[str, str]] = {}
    exported_tips: dict[str, str] = {}
    with EntryIndex(store) as index:
        chains = {p.leaf: _chain(index, p, exporter.knows) for p in plan.sessions}
        sending = {path for p in plan.sessions for path in _paths_sent(index, p)}
    for pending in plan.sessions:
        exported = exporter.export(pending.tip, chains[pending.leaf])
        exported_tips[pending.leaf] = exported
        target = f"{plan.namespace}sessions/{pending.leaf}"
        refspecs.append((pending, "session", exported, target))
        labels: dict[str, str] = {}
        for name, commit in pending.labels.items():
            labels[name] = exporter.export(commit)
            refspecs.append((pending, "label", labels[name], _label_ref(plan, pending, name)))
        for name in pending.sent_labels:
            if name not in labels:  # removed here since it was pushed
                refspecs.append((pending, "label", "", _label_ref(plan, pending, name)))
        exported_labels[pending.leaf] = labels
        target = f"{plan.namespace}conversations/{pending.leaf}"
        if pending.conversation is not None:
            tip = conversations.export(pending.head).tip
            if tip is not None:
                shared[pending.leaf] = tip
                refspecs.append((pending, "conversation", tip, target))
        elif pending.sent_conversation:  # no longer shared, or no longer kept
            refspecs.append((pending, "conversation", "", target))
    exporter.close()
    result.held_back = plan.policy.private(sending)
    unjudged = plan.policy.unjudged
    result.unjudged = {path: why for path, why in result.held_back.items() if path in unjudged}
    refused = _run_push(store, plan, refspecs, interactive, timeout)
    # After the push (what the map names is reachable from the refs written below), git's
    # answers first: an export is never kept without the answers it depends on.
    plan.policy.save()
    exporter.save()
    conversations.save()
    state = load_state(store, plan.remote)
    for pending in plan.sessions:
        why = refused.get(pending.leaf)
        if why is not None:
            result.rejected.append((pending.head.session_id, why))
            continue
        labels = exported_labels[pending.leaf]
        _remember(store, plan, pending, exported_tips[pending.leaf], labels)
        _remember_conversation(store, plan, pending, shared.get(pending.leaf))
        state[pending.leaf] = {
            "session": pending.head.session_id,
            "ref": pending.head.tip,  # the session's ref then: unchanged, it needs no push
            "local": pending.tip,
            "local_labels": pending.labels,
            "labels": labels,
            "conversation": pending.conversation,
            "policy": plan.policy.key,
        }
        result.sessions.append(pending.head.session_id)
    save_state(store, plan.remote, state)
    return result


def _chain(
    index: EntryIndex, pending: SessionPush, known: Callable[[str], bool]
) -> list[tuple[str, list[bytes] | None]]:
    """The session's history up to the tip sent, from the index, back to the newest entry
    already exported (see Exporter.export)."""
    current = pending.head.current
    assert current is not None
    newest = current.number - 1 if pending.open_turn else current.number
    try:
        return index.chain(pending.head, newest, known)
    except StoreError:
        return []  # walked through the objects instead


def _paths_sent(index: EntryIndex, pending: SessionPush) -> set[bytes]:
    """The paths of the entries the remote does not have yet (from the index; none when it
    cannot say): what the push tells of holding back."""
    chain = _chain(index, pending, lambda commit: commit == pending.sent_tip)
    if chain and chain[0][0] == pending.sent_tip:
        chain = chain[1:]  # the remote has it
    return {path for _, paths in chain for path in paths or ()}


def _label_ref(plan: PushPlan, pending: SessionPush, name: str) -> str:
    return f"{plan.namespace}labels/{pending.leaf}/{name}"


def _run_push(
    store: Store,
    plan: PushPlan,
    refspecs: list[tuple[SessionPush, str, str, str]],
    interactive: bool,
    timeout: float | None,
) -> dict[str, str]:
    """Runs ``git push``; returns the sessions (by ref leaf) the remote refused, with why."""
    refused: dict[str, str] = {}
    by_target = {target: pending for pending, _, _, target in refspecs}
    for start in range(0, len(refspecs), REFSPECS_PER_PUSH):
        chunk = refspecs[start : start + REFSPECS_PER_PUSH]
        specs = [
            f"+{source}:{target}" if source else f":{target}" for _, _, source, target in chunk
        ]
        completed = run_git(
            store.git_dir,
            "push",
            "--porcelain",
            "--no-verify",
            "--quiet",
            plan.remote,
            *specs,
            what=f"pushing to {plan.remote}",
            interactive=interactive,
            timeout=timeout,
            check=False,
        )
        results = _porcelain(completed.stdout)
        if completed.returncode != 0 and not results:
            from rewind.store.git_program import GitFailed, last_error_line

            raise GitFailed(
                f"pushing to {plan.remote} ({plan.url}) failed: {last_error_line(completed.stderr)}"
            )
        for target, (flag, summary) in results.items():
            pending = by_target.get(target)
            if pending is not None and flag == "!":
                refused[pending.leaf] = summary
        for _, _, _, target in chunk:
            if target not in results and completed.returncode != 0:
                refused.setdefault(by_target[target].leaf, "the remote did not answer for it")
    return refused


def _porcelain(output: bytes) -> dict[str, tuple[str, str]]:
    """``git push --porcelain``: ``<flag>\\t<from>:<to>\\t<summary>`` per ref."""
    found: dict[str, tuple[str, str]] = {}
    for line in output.decode("utf-8", "replace").splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and len(fields[0]) == 1:
            target = fields[1].rpartition(":")[2]
            found[target] = (fields[0], fields[2])
    return found


def _remember(
    store: Store, plan: PushPlan, pending: SessionPush, exported: str, labels: dict[str, str]
) -> None:
    """Keeps what was sent as refs of the store (gc keeps what they reach)."""
    base = f"{PUSHED_REF_PREFIX}{plan.remote}/"
    store.write_ref(f"{base}sessions/{pending.leaf}", exported)
    folder = f"{base}labels/{pending.leaf}/"
    for ref in store.ref_names(folder):
        if ref[len(folder) :] not in labels:
            store.delete_ref(ref)
    for name, commit in labels.items():
        store.write_ref(folder + name, commit)


def _remember_conversation(
    store: Store, plan: PushPlan, pending: SessionPush, sent: str | None
) -> None:
    """Keeps the redacted chain sent as a ref of the store (gc keeps it, and the next push
    redacts only what is new), or drops the one sent before."""
    ref = f"{PUSHED_REF_PREFIX}{plan.remote}/conversations/{pending.leaf}"
    if sent is not None:
        store.write_ref(ref, sent)
    elif store.read_ref(ref) is not None:
        store.delete_ref(ref)


def load_state(store: Store, remote: str) -> dict[str, dict[str, object]]:
    """What the last pushes to ``remote`` sent, by session ref leaf."""
    try:
        with open(push_state_path(store, remote), encoding="utf-8") as handle:
            sessions = load_object(handle.read()).get("sessions", {})
    except (OSError, ValueError, RecursionError):
        return {}
    return (
        {k: v for k, v in sessions.items() if isinstance(v, dict)}
        if isinstance(sessions, dict)
        else {}
    )


def save_state(store: Store, remote: str, sessions: dict[str, dict[str, object]]) -> None:
    path = push_state_path(store, remote)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_text_atomically(path, dumps({"format": 1, "pushed": time.time(), "sessions": sessions}))
