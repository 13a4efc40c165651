"""``rewind hook AGENT``: one event of an agent's hooks, mapped onto turns and tracked paths.

Each agent has an adapter module with ``handle(context) -> str | None`` (what to print on
standard output, when the agent's protocol wants an answer), named in :data:`ADAPTERS` under the
word of ``rewind hook AGENT``, and imported only when its agent's event comes. Whatever happens,
the hook exits 0
and prints nothing else: problems are written to the log of the project's store (``rewind
status`` shows where), or to ``$REWIND_HOME/hooks.log`` when no project could be found, or, when
neither can be written, to a fallback log (rewind.store.failure_log) that status and doctor read
too. Each call that found its project's store adds one line to the store's stats (how long it
took, from when the command began, and what it could not do in full:
rewind.store.hook_calls), which ``rewind stats`` reads.
"""

from __future__ import annotations

import sys
import time

from rewind.hooks.context import HookContext
from rewind.store.input_limits import read_hook_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    class Adapter(Protocol):
        """An agent's adapter module."""

        def handle(self, context: HookContext, /) -> str | None: ...


def _claude_code() -> Adapter:
    from rewind.hooks import claude_code

    return claude_code


def _codex() -> Adapter:
    from rewind.hooks import codex

    return codex


def _gemini() -> Adapter:
    from rewind.hooks import gemini

    return gemini


def _cursor() -> Adapter:
    from rewind.hooks import cursor

    return cursor


def _copilot() -> Adapter:
    from rewind.hooks import copilot

    return copilot


def _cline() -> Adapter:
    from rewind.hooks import cline

    return cline


def _windsurf() -> Adapter:
    from rewind.hooks import windsurf

    return windsurf


def _pi() -> Adapter:
    from rewind.hooks import pi

    return pi


def _qwen() -> Adapter:
    from rewind.hooks import qwen

    return qwen


def _droid() -> Adapter:
    from rewind.hooks import droid

    return droid


def _opencode() -> Adapter:
    from rewind.hooks import opencode

    return opencode


def _git_precommit() -> Adapter:
    from rewind.hooks import git_precommit

    return git_precommit


def _git_postcommit() -> Adapter:
    from rewind.hooks import git_postcommit

    return git_postcommit


def _git_postrewrite() -> Adapter:
    from rewind.hooks import git_postrewrite

    return git_postrewrite


# Each agent's adapter, by the AGENT of 'rewind hook AGENT'; "git" is the pre-commit safety net,
# "git-post-commit" and "git-post-rewrite" write commits' authorship notes.
ADAPTERS: dict[str, Callable[[], Adapter]] = {
    "claude-code": _claude_code,
    "codex": _codex,
    "gemini": _gemini,
    "cursor": _cursor,
    "copilot": _copilot,
    "cline": _cline,
    "windsurf": _windsurf,
    "pi": _pi,
    "qwen": _qwen,
    "droid": _droid,
    "opencode": _opencode,
    "kilo": _opencode,  # Kilo Code runs OpenCode's plugin
    "git": _git_precommit,
    "git-post-commit": _git_postcommit,
    "git-post-rewrite": _git_postrewrite,
}


def handle_event(
    agent: str, argument: str | None, started: float, unreadable: Exception | None = None
) -> None:
    """Handles one event; ``started`` is when the command began (time.perf_counter), taken
    by this process when it was asked to run (rewind.cli.main), never when rewind was loaded:
    a process that loaded rewind long before (a fork of one) runs a call of its own.
    ``unreadable``: why the event on standard input could not be read (logged)."""
    output = answer_event(agent, argument, started, unreadable=unreadable)
    if output:
        sys.stdout.write(output)
        sys.stdout.flush()


def answer_event(
    agent: str,
    argument: str | None,
    started: float,
    via: str = "",
    unreadable: Exception | None = None,
    on_tool_call_end: Callable[[], None] | None = None,
) -> str | None:
    """Handles one event (read from standard input when ``argument`` is None) and returns what
    the agent's protocol wants answered, if anything; never raises. ``via``: how the event
    came when not as a process of its own (``http``, ``forwarded``: the resident recorder),
    kept in the call's stats line; ``unreadable``: why the event could not be read;
    ``on_tool_call_end``: called once the event is known to be a tool call's end, before its
    after-states are recorded (its answer is then nothing)."""
    context = HookContext(agent)
    context.on_tool_call_end = on_tool_call_end
    output = None
    try:
        load = ADAPTERS.get(agent)
        if load is None:
            context.log(f"unknown agent {agent!r}; expected one of {', '.join(ADAPTERS)}")
            return None
        adapter = load()
        # An adapter whose caller sends no event (git runs its pre-commit hook with nothing on
        # standard input) says so with NEEDS_PAYLOAD = False; the others need one.
        if unreadable is not None:
            raise unreadable
        if getattr(adapter, "NEEDS_PAYLOAD", True):
            context.read_payload(argument if argument is not None else read_hook_event())
        output = adapter.handle(context)
    except Exception as error:  # a hook must never fail the agent
        context.log_failure(error)
    finally:
        context.record_call(time.perf_counter() - started, via)
    if not via:
        _keep_resident(agent, context)
    return output


def _keep_resident(agent: str, context: HookContext) -> None:
    """An event handled by a process of its own: when the agent's hooks have a resident
    recorder (rewind.resident), start it if it does not run, so the next events are handed to
    it (Claude Code's after-events are posted to it). Never raises."""
    try:
        from rewind.resident.address import port_for

        port = port_for(agent)
        if port is not None:
            from rewind.resident import reach

            reach.ensure(port, context.log)
    except Exception as error:
        context.log(f"the resident recorder could not be started: {error!r}")


__all__ = ["ADAPTERS", "answer_event", "handle_event"]
