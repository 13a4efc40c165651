"""Pi (``@mariozechner/pi-coding-agent``): rewind is an extension, ``rewind.js``, which Pi loads
from ``.pi/extensions/`` in the folder it starts in (``--project``) and from
``~/.pi/agent/extensions/`` (``--user``; ``$PI_CODING_AGENT_DIR`` moves ``~/.pi/agent``). It runs
``rewind hook pi`` for each event rewind needs and gives the agent rewind's MCP tools as its own
(Pi has no MCP). Pi loads a project's extensions only from the folder it starts in, never from
the ones above it: started in a subfolder, it records nothing unless installed with ``--user``.
"""

from __future__ import annotations

import os

from rewind.installers import Change, Context, Inspection, Probe, ProbeStep, Target, code_file

AGENT = "pi"
NAME = "rewind.js"
WHAT = "extension"
# The events of Pi's the extension must subscribe to.
EVENTS = ("session_start", "before_agent_start", "tool_call", "tool_result", "agent_end")
# Loads the extension with a stand-in of Pi's API; prints what it subscribed to.
LOAD_PROGRAM = """
const module = await import(process.argv[1]);
const seen = [];
module.default({ on: (name) => seen.push(name), registerTool: () => {} });
process.stdout.write(JSON.stringify(seen));
"""
SUBFOLDER_NOTE = (
    "Pi loads a project's extensions only when it starts in the project's root folder; "
    "'rewind install pi --user' records Pi started anywhere."
)


def agent_directory(context: Context) -> str:
    """Pi's own folder: ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    configured = os.environ.get("PI_CODING_AGENT_DIR", "").strip()
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(context.home, ".pi", "agent")


class PiExtension(Target):
    name = AGENT
    title = "Pi"
    scopes = ("user", "project")
    default_scope = "project"
    shared_scopes = ("project",)
    hook_agent = AGENT

    def location(self, scope: str, context: Context) -> str:
        if scope == "user":
            return os.path.join(agent_directory(context), "extensions", NAME)
        return os.path.join(context.project, ".pi", "extensions", NAME)

    def wanted(self, scope: str, context: Context) -> str:
        command = context.hook_command(AGENT, scope in self.shared_scopes)
        return code_file.module_text(AGENT, NAME, command)

    def install(self, scope: str, context: Context) -> Change:
        change = code_file.install(self.location(scope, context), self.wanted(scope, context))
        if change.changed:
            if scope == "project":
                change.notes.append(SUBFOLDER_NOTE)
            other = "user" if scope == "project" else "project"
            if code_file.inspect(
                self.location(other, context), self.wanted(other, context), AGENT, WHAT
            ).installed:
                change.notes.append(
                    f"rewind's extension is in {self.location(other, context)} too: Pi loads "
                    "both and the second does nothing; uninstall one of them."
                )
        return change

    def uninstall(self, scope: str, context: Context) -> Change:
        return code_file.uninstall(self.location(scope, context), self.wanted(scope, context))

    def inspect(self, scope: str, context: Context) -> Inspection:
        path = self.location(scope, context)
        found = code_file.inspect(path, self.wanted(scope, context), AGENT, WHAT)
        if found.installed and scope == "project":
            found.notes.append(("info", SUBFOLDER_NOTE))
        return found

    def trust(self, context: Context) -> list[tuple[str, str]]:
        """Whether the extension loads: Node.js loads each installed copy with a stand-in of
        Pi's extension API, as Pi does (Pi also reads TypeScript; rewind's is JavaScript). A
        file of that name that is not rewind's is never run: it is someone else's code."""
        findings = []
        for scope in self.scopes:
            path = self.location(scope, context)
            if self.inspect(scope, context).installed:
                findings.append(code_file.loads(path, LOAD_PROGRAM, EVENTS))
        return findings

    def probe(self, project: str, path: str) -> Probe:
        """What the extension sends for a prompt, an edit of ``path`` (before and after it is
        made) and the run's end."""

        def event(name: str, **fields: object) -> dict[str, object]:
            return {"event": name, "session_id": "rewind-doctor", "cwd": project, **fields}

        call = {
            "tool_name": "edit",
            "tool_call_id": "doctor-1",
            "tool_input": {"path": path, "edits": [{"oldText": "before", "newText": "after"}]},
        }
        return Probe(
            [
                ProbeStep(event("prompt", prompt="doctor", leaf_id="")),
                ProbeStep(event("tool_call", **call)),
                ProbeStep(event("tool_result", is_error=False, **call), write="after\n"),
                ProbeStep(event("agent_end")),
            ]
        )


TARGET = PiExtension()
