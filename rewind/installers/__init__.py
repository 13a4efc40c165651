"""Install targets: what ``rewind install AGENT`` and ``rewind uninstall AGENT`` write, and what
``rewind doctor`` checks.

Each target is an object of a subclass of :class:`Target`, named in
:data:`rewind.installers.registry.TARGETS` under the word people type after ``rewind install``.
The agents' targets (``claude-code``, ``codex``, ``gemini``, ``cursor``, ``copilot``) each live
in a module of this package and edit a JSON settings file through
:class:`rewind.installers.json_settings.JsonHooksTarget`, which also serves any other agent whose
hooks live in a JSON file (give it the paths per scope and a function from the hook command to
the block).

Adding a target
---------------

Put a module in this package (``rewind/installers/git_hook.py``, say) whose ``TARGET`` is the
target::

    from rewind.installers import Change, Context, Target

    class GitHook(Target):
        name = "git-hook"                    # rewind install git-hook
        title = "git pre-commit hook"        # used in messages
        scopes = ("project",)                # which of --user/--project/--local it accepts
        default_scope = "project"            # used when none is given

        def location(self, scope: str, context: Context) -> str:
            return os.path.join(context.project, ".git", "hooks", "pre-commit")

        def install(self, scope: str, context: Context) -> Change:
            ...  # write the file, using context.hook_command("git")
            return Change(path, created=True, items=[("added", "pre-commit")])

        def uninstall(self, scope: str, context: Context) -> Change:
            ...

    TARGET = GitHook()

then name it in :data:`rewind.installers.registry.TARGETS`, through a function that imports the
module when its target is wanted, and in the parser's
``rewind.commands.parsing.setup_commands.INSTALL_TARGETS``: the new word appears in ``rewind
install --help`` and ``rewind uninstall --help`` (then run scripts/cli_reference.py, which
writes docs/cli.md's help blocks anew). A target defined outside this package is registered by
calling :func:`rewind.installers.registry.register`.

The contract:

- ``install`` and ``uninstall`` return a :class:`Change` saying exactly what they changed; the
  commands print ``NAME: created|updated PATH``, then one ``  ACTION   WHAT`` line per item and
  one line per note. A ``Change`` with no ``items`` and ``created`` false means nothing changed
  (``install`` prints "already installed in PATH", ``uninstall`` "no rewind hooks in PATH").
  Both must be idempotent, and raise :class:`rewind.errors.UserError` (one sentence saying what
  to do) without writing anything when they cannot do their job.
- ``inspect`` (optional) describes what is installed at one scope for ``rewind doctor``, as an
  :class:`Inspection` (``installed`` non-empty, or ``active_otherwise``, counts as installed;
  ``notes`` are extra findings with their level); the default, ``None``, leaves the scope out.
- ``trust`` (optional) says, for ``rewind doctor``, whether the agent will run the installed
  hooks in this project (agents skip hooks in folders or of files nobody has trusted yet), as
  (level, text) findings; the default, none.
- ``probe`` (optional), with ``hook_agent`` set, gives the events ``rewind doctor`` sends through
  the installed hook command (else ``rewind hook HOOK_AGENT``) in a throwaway project, as a
  :class:`Probe`; doctor then expects ``rewind log --json`` there to show a turn holding the
  probe file. The default, ``None``, skips that check.
- ``context.hook_command(agent, shared)`` is the command a hook should run: ``rewind hook AGENT``
  from PATH in a file meant to be committed (a scope in ``shared_scopes``: it must work on every
  teammate's machine, so it names no path of this one), else this interpreter without its site
  processing on this package's ``__main__.py`` (``PYTHON -S .../rewind/__main__.py``: the same
  as ``rewind``, less a few milliseconds per event; rewind/__main__.py), or failing that the
  absolute path of the ``rewind`` being run (quoted for a shell when needed, ``rewind`` when
  there is none), then ``hook AGENT``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rewind.errors import UserError
from rewind.store.root import find_root

if TYPE_CHECKING:
    from rewind.installers.mcp_registration import McpRegistration

SCOPES = ("user", "project", "local")


@dataclass(frozen=True)
class Context:
    """Where an install happens: the project root, the home directory, and the ``rewind`` that
    hooks should run (a shell word). ``hook_runner``, when set, runs rewind for a hook of this
    machine in its place: this interpreter without its site processing, on this package's
    ``__main__.py`` (rewind/__main__.py), a few milliseconds less per event."""

    project: str
    home: str
    rewind: str
    hook_runner: str = ""

    @classmethod
    def current(cls) -> Context:
        project = os.fsdecode(find_root(os.getcwdb()))
        rewind = shlex.quote(rewind_executable() or "rewind")
        return cls(project, os.path.expanduser("~"), rewind, hook_runner())

    def hook_command(self, agent: str, shared: bool = False) -> str:
        """The command a hook runs; ``shared``: for a file meant to be committed."""
        if shared:
            return f"rewind hook {agent}"
        return f"{self.hook_runner or self.rewind} hook {agent}"


# How a hook command runs this package without the interpreter's site processing.
RUNNER_FLAG = "-S"
RUNNER_SCRIPT = "__main__.py"


def hook_runner() -> str:
    """``PYTHON -S PACKAGE/__main__.py`` for this interpreter and this package (quoted for a
    shell), or "" when either cannot be named."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, RUNNER_SCRIPT)
    script = os.path.normpath(script)
    python = sys.executable
    if not (python and os.path.isabs(python) and os.path.isfile(script)):
        return ""
    return f"{shlex.quote(python)} {RUNNER_FLAG} {shlex.quote(script)}"


def rewind_executable() -> str | None:
    """The absolute path of the ``rewind`` console script running now, if one can be found."""
    candidates = []
    if os.path.basename(sys.argv[0]) == "rewind":
        candidates.append(os.path.abspath(sys.argv[0]))
    candidates.append(os.path.join(os.path.dirname(sys.executable), "rewind"))
    on_path = shutil.which("rewind")
    if on_path:
        candidates.append(os.path.abspath(on_path))
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass
class Change:
    """What an install or uninstall did to one file: ``items`` are (action, what) pairs such as
    ``("added", "PreToolUse")``, in the order they happened."""

    path: str
    created: bool = False
    items: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.created or bool(self.items)


@dataclass
class Inspection:
    """What ``rewind doctor`` found at one scope of a target."""

    path: str
    exists: bool
    installed: list[str] = field(default_factory=list)  # events that run a rewind hook
    missing: list[str] = field(default_factory=list)  # events rewind installs, not there
    different: list[str] = field(default_factory=list)  # there, but not as install writes them
    commands: list[str] = field(default_factory=list)  # the distinct rewind hook commands
    problem: str = ""  # why the file could not be read, if it could not
    # Other findings, as (level, text): level is "ok", "info", "warn" or "fail".
    notes: list[tuple[str, str]] = field(default_factory=list)
    # Whether rewind runs for the agent by other means this file enables (a plugin, notify).
    active_otherwise: bool = False


@dataclass
class ProbeStep:
    """One event sent to the hook: ``write``, when set, is written to the probe file first
    (the edit the agent makes between its before and after events)."""

    payload: dict[str, object]
    write: str | None = None
    # Extra environment of this event alone (Copilot's hooks name their event in it), and its
    # name in doctor's messages when the payload does not carry one.
    environment: dict[str, str] = field(default_factory=dict)
    event: str = ""


@dataclass
class Probe:
    """What ``rewind doctor`` sends through ``rewind hook AGENT``, with extra environment."""

    steps: list[ProbeStep]
    environment: dict[str, str] = field(default_factory=dict)


class Target:
    """An install target; see the module's documentation."""

    name = ""
    title = ""
    scopes: tuple[str, ...] = ("user", "project")
    default_scope = "project"
    # Scopes whose file is meant to be committed: their hooks run 'rewind' from PATH.
    shared_scopes: tuple[str, ...] = ()
    hook_agent = ""  # the AGENT of the 'rewind hook AGENT' its hooks run, for doctor's probe
    # Whether its hooks, installed at several scopes, still run rewind once per event (a plugin
    # that serves each event once): doctor then does not warn of the scopes.
    once_per_event = False
    # Where the agent reads MCP servers (rewind install NAME --mcp); None: nowhere rewind knows.
    mcp: McpRegistration | None = None

    def location(self, scope: str, context: Context) -> str:
        raise NotImplementedError

    def install(self, scope: str, context: Context) -> Change:
        raise NotImplementedError

    def uninstall(self, scope: str, context: Context) -> Change:
        raise NotImplementedError

    def inspect(self, scope: str, context: Context) -> Inspection | None:
        return None

    def trust(self, context: Context) -> list[tuple[str, str]]:
        """Whether the agent runs the installed hooks in ``context.project``, as (level, text)
        findings (level "ok", "info", "warn" or "fail")."""
        return []

    def probe(self, project: str, path: str) -> Probe | None:
        """The events to send through ``rewind hook {hook_agent}`` for an edit of ``path``
        (which holds ``before\\n``; the edit makes it ``after\\n``) in ``project``."""
        return None

    def check_scope(self, scope: str | None) -> str:
        """``scope``, or the default when None; a scope the target lacks is a user error."""
        chosen = scope or self.default_scope
        if chosen not in self.scopes:
            accepted = " or ".join(f"--{name}" for name in self.scopes)
            raise UserError(f"{self.name} has no --{chosen} settings; use {accepted}.")
        return chosen

    def private_scope(self) -> str | None:
        """The scope that installs for this machine only (its own path of rewind), if any:
        the project's private file when the target has one, else the user's."""
        for scope in ("local", "user"):
            if scope in self.scopes and scope not in self.shared_scopes:
                return scope
        return None


def path_advice(target: Target) -> str:
    """What to do when the ``rewind`` a hook runs from PATH is not there (a clause)."""
    advice = "put rewind on PATH (pipx install rewind-files)"
    private = target.private_scope()
    if private:
        advice += f", or run 'rewind install {target.name} --{private}' to use this machine's path"
    return advice
