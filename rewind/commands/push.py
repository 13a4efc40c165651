"""``rewind push [REMOTE]``: send sessions to a git remote (rewind.history.remote.push)."""

from __future__ import annotations

import sys

from rewind.actions.records import FORMAT, entry_key_json
from rewind.actions.stores import open_current_store
from rewind.commands.output.asking import asked_yes
from rewind.commands.output.json_output import print_json
from rewind.errors import UserError
from rewind.history.entry import first_line
from rewind.history.remote.backup import note_backup, run_backup
from rewind.history.remote.push import (
    PushPlan,
    SessionPush,
    plan_push,
    private_paths,
    push,
    unsent_entries,
)
from rewind.history.remote.redaction import Found
from rewind.history.remote.remote_setup import confirm, needs_confirmation
from rewind.history.remote.shared_conversation import redactions
from rewind.history.sessions import resolve_session
from rewind.store.remotes import list_remotes
from rewind.store.repository import Store


def run(
    *,
    remote_name: str | None,
    session: str | None,
    all_sessions: bool,
    dry_run: bool,
    yes: bool,
    as_json: bool,
    background: bool = False,
) -> int:
    store = open_current_store()
    if background:
        return run_backup(store)
    remote = chosen_remote(store, remote_name)
    sessions = None if all_sessions else [resolve_session(store, session)]
    plan = plan_push(store, remote, sessions)
    if dry_run:
        unsent_entries(store, remote, plan)
        _print_dry_run(store, plan, as_json)
        return 0
    if plan.sessions:
        _confirm_project_remote(store, plan, yes)
    try:
        result = push(store, plan, interactive=sys.stdin.isatty())
    except UserError as error:
        if all_sessions and remote == store.config.remote.backup:
            note_backup(store, remote, str(error))
        raise
    if all_sessions and remote == store.config.remote.backup:
        refused = f"{remote} refused session {result.rejected[0][0]}" if result.rejected else ""
        note_backup(store, remote, refused)
    notes, notes_error = _push_notes(store, plan) if store.config.attribution_notes else ("", "")
    if as_json:
        print_json(
            {
                **_where(plan),
                "pushed": result.sessions,
                "up_to_date": plan.up_to_date,
                "rejected": [{"session": s, "why": why} for s, why in result.rejected],
                "held_back": [
                    {"path": store.root.display(path), "why": why}
                    for path, why in sorted(result.held_back.items())
                ],
                "notes": {"pushed": bool(notes), "error": notes_error or None},
            }
        )
    else:
        _print_result(plan, result.sessions, result.rejected)
        _print_unjudged(store, result.unjudged)
        if notes:
            print(notes)
    if notes_error:
        print(f"rewind: {notes_error}", file=sys.stderr)
    return 1 if result.rejected else 0


def _push_notes(store: Store, plan: PushPlan) -> tuple[str, str]:
    """The authorship notes go where the sessions went ([attribution] notes = true): what was
    done, and why they could not go (a warning: the sessions went, and a remote that refuses
    notes must not fail every push)."""
    from rewind.history.attribution.notes_sync import SyncFailed, push_notes

    try:
        sent = push_notes(store.root.path, plan.remote, plan.url, sys.stdin.isatty())
    except SyncFailed as error:
        return "", (
            f"{error}; the sessions were pushed, the authorship notes were not "
            "('[attribution] notes = false' in rewind.toml stops sending them)."
        )
    return (f"authorship notes (refs/notes/ai) pushed to {plan.remote}" if sent else ""), ""


def _print_unjudged(store: Store, unjudged: dict[bytes, str]) -> None:
    """The files held back only because git would not judge them: the user did not ask for
    it, so the push says so (the others are held back as the settings and .gitignore say)."""
    for path, why in sorted(unjudged.items()):
        print(f"{store.root.display(path)}: not shared ({why})")


def chosen_remote(store: Store, requested: str | None) -> str:
    if requested:
        return requested
    if store.config.remote.backup:
        return store.config.remote.backup
    remotes = list(list_remotes(store))
    if len(remotes) == 1:
        return remotes[0]
    if not remotes:
        raise UserError("there is no remote yet; add one with 'rewind remote add NAME URL'.")
    raise UserError(f"name the remote: this project has {', '.join(remotes)}.")


def _confirm_project_remote(store: Store, plan: PushPlan, yes: bool) -> None:
    own = needs_confirmation(store, plan.remote, plan.url)
    if own is None:
        return
    question = (
        f"{plan.remote} is the project's own remote {own!r} ({plan.url}): everyone who can read "
        "the code will be able to read these sessions, their prompts and the files they changed."
    )
    if not yes:
        if not sys.stdin.isatty():
            raise UserError(
                f"{question[:-1]}; run 'rewind push {plan.remote} --yes' once to confirm."
            )
        if not asked_yes(f"{question} Push anyway?"):
            raise UserError("nothing was pushed.")
    confirm(store, plan.remote)


# What a push that shares a session's conversation says it sends.
SHARED_CONVERSATION = (
    "with its kept conversation: every prompt, reply and tool result, with the private files' "
    "contents and the secrets found redacted ([conversation] share)"
)


def _conversation_fate(pending: SessionPush) -> str | None:
    """What a push does with the session's kept conversation: "sent", "deleted" (shared
    before, not now) or None."""
    if pending.conversation is not None:
        return "sent"
    return "deleted" if pending.sent_conversation else None


def _print_result(plan: PushPlan, pushed: list[str], rejected: list[tuple[str, str]]) -> None:
    where = f"{plan.remote} ({plan.url})"
    if pushed:
        names = ", ".join(pushed)
        print(f"pushed {len(pushed)} session(s) to {where}: {names}")
        sent = [p for p in plan.sessions if p.conversation and p.head.session_id in pushed]
        if sent:
            print(f"{len(sent)} of them {SHARED_CONVERSATION}")
    for session, why in rejected:
        print(f"rewind: {plan.remote} refused session {session}: {why}", file=sys.stderr)
    if plan.up_to_date and not pushed and not rejected:
        print(f"{where} is up to date.")
    elif plan.up_to_date:
        print(f"{len(plan.up_to_date)} session(s) already up to date.")
    elif not pushed and not rejected and not plan.held_open:
        print(f"nothing to push to {where}: no session has a closed entry yet.")
    held = [p.head for p in plan.sessions if p.open_turn and p.head.session_id in pushed]
    for head in held + plan.held_open:
        assert head.current is not None
        print(
            f"session {head.session_id}: turn {head.current.number} is still open and goes "
            "with the next push once it ends."
        )


def _where(plan: PushPlan) -> dict[str, object]:
    """What both of push's JSON objects start with: where the sessions go, and as what."""
    return {
        "format": FORMAT,
        "remote": plan.remote,
        "url": plan.url,
        "project": plan.project,
        "machine": plan.machine,
    }


def _redacted_line(found: Found) -> str:
    """What the dry run says a conversation's redaction takes out (never the secret itself)."""
    if not found:
        return "  nothing in it found to redact"
    parts = [f"{name} ({count})" for name, count in sorted(found.files.items())]
    parts += [f"{kind} ({count})" for kind, count in sorted(found.secrets.items())]
    return f"  redacted from it: {', '.join(parts)}"


def _print_dry_run(store: Store, plan: PushPlan, as_json: bool) -> None:
    private = private_paths(plan)
    sent = {p.leaf: p.head for p in plan.sessions if p.conversation is not None}
    redacted = redactions(store, plan.policy, sent)
    if as_json:
        print_json(
            {
                **_where(plan),
                "sessions": [
                    {
                        "session": p.head.session_id,
                        "open_turn_held": p.open_turn,
                        "labels": sorted(p.labels),
                        "conversation": _conversation_fate(p),
                        "redacted": (redacted[p.leaf].to_json() if p.leaf in redacted else None),
                        "entries": [
                            {
                                **entry_key_json(entry),
                                "number": entry.number,  # the name format 1 first used
                                "kind": entry.kind,
                                "prompt": entry.prompt,
                                "files": [
                                    {
                                        "path": store.root.display(change.path),
                                        "shared": change.path not in private,
                                        "why_not": private.get(change.path),
                                    }
                                    for change in entry.files
                                ],
                            }
                            for entry, _ in p.entries
                        ],
                    }
                    for p in plan.sessions
                ],
                "up_to_date": plan.up_to_date,
            }
        )
        return
    print(
        f"would push to {plan.remote} ({plan.url}) as machine {plan.machine} of project "
        f"{plan.project}:"
    )
    if not plan.sessions:
        print("  nothing: the remote is up to date." if plan.up_to_date else "  nothing.")
    for head in plan.held_open:
        assert head.current is not None
        print(f"session {head.session_id}: turn {head.current.number} is still open, not sent")
    for pending in plan.sessions:
        count = len(pending.entries)
        print(f"session {pending.head.session_id}: {count} entr{'y' if count == 1 else 'ies'}")
        for entry, _ in pending.entries:
            print(f"  {entry.kind} {entry.number}  {first_line(entry.prompt, 60)}")
            for change in entry.files:
                shown = store.root.display(change.path)
                why = private.get(change.path)
                print(f"      {shown}" + (f"  (not shared: {why})" if why else ""))
        if pending.open_turn:
            print("  (the open turn is not sent until it ends)")
        fate = _conversation_fate(pending)
        if fate == "sent":
            print(f"  {SHARED_CONVERSATION}")
            print(_redacted_line(redacted[pending.leaf]))
        elif fate == "deleted":
            print("  its conversation, shared before, is deleted from the remote")
    if plan.up_to_date:
        print(f"already up to date: {', '.join(plan.up_to_date)}")
