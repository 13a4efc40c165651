"""Hook payloads of every agent, built from the documented shapes (see docs/integrations/).

Each agent class turns the same abstract steps (a prompt, a file edit, a shell command, the end
of a turn) into the events that agent sends, in the order it sends them. ``None`` as an event
means "the agent sends nothing here" (a Cursor without tool hooks has no hook before a file
edit); a list, several events one after the other (CursorToolHooks: postToolUse, then
afterFileEdit).
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from pathlib import Path

Payload = dict[str, object]

_ids = itertools.count(1)


def call_id() -> str:
    return f"call_{next(_ids):04d}"


class ClaudeCode:
    name = "claude-code"

    def __init__(self, root: Path, session: str = "00893aaf-19fa-41d2-8238-13269b9b3ca0") -> None:
        self.root = root
        self.session = session

    def _common(self, event: str) -> Payload:
        return {
            "session_id": self.session,
            "transcript_path": f"/home/u/.claude/projects/p/{self.session}.jsonl",
            "cwd": str(self.root),
            "permission_mode": "default",
            "hook_event_name": event,
        }

    def session_start(self) -> Payload:
        return {**self._common("SessionStart"), "source": "startup"}

    def prompt(self, text: str) -> Payload:
        return {**self._common("UserPromptSubmit"), "prompt": text}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        """Built before the edit runs, as Claude Code 2.1.332's Edit answers: no ``type``, the
        whole old text as ``originalFile`` ("" for a file the edit creates)."""
        tool_input = {
            "file_path": str(self.root / path),
            "old_string": old,
            "new_string": new,
            "replace_all": False,
        }
        response: Payload = {
            "filePath": str(self.root / path),
            "oldString": old,
            "newString": new,
            "originalFile": self._text_now(path) or "",
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": False,
        }
        return self._tool("Edit", tool_input, response)

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        """Built before the write runs, as Claude Code 2.1.332's Write answers: ``type`` says
        create or update, ``originalFile`` is the old text (null for a new file, and for an
        old text over 10 MiB)."""
        tool_input: Payload = {"file_path": str(self.root / path), "content": content}
        original = self._text_now(path)
        response: Payload = {
            "type": "create" if original is None else "update",
            "filePath": str(self.root / path),
            "content": content,
            "structuredPatch": [],
            "originalFile": original,
        }
        return self._tool("Write", tool_input, response)

    def _text_now(self, path: str) -> str | None:
        try:
            return (self.root / path).read_text()
        except (FileNotFoundError, UnicodeDecodeError):
            return None

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        return self._tool(
            "Bash",
            {"command": command, "description": "run"},
            {"stdout": "", "stderr": "", "interrupted": False},
        )

    def powershell(self, command: str) -> tuple[Payload | None, Payload]:
        """Claude Code 2.1.332's PowerShell tool (Windows, or CLAUDE_CODE_USE_POWERSHELL_TOOL=1):
        the input of Bash, the command in PowerShell."""
        return self._tool(
            "PowerShell",
            {"command": command, "description": "run", "timeout": 120000},
            {"stdout": "", "stderr": "", "interrupted": False},
        )

    def failed(self, after: Payload, error: str) -> Payload:
        """The PostToolUseFailure Claude Code 2.1.332 sends instead of ``after`` when the tool
        call fails: ``error`` and ``is_interrupt``, no ``tool_response``."""
        failure = {key: value for key, value in after.items() if key != "tool_response"}
        return {
            **failure,
            "hook_event_name": "PostToolUseFailure",
            "error": error,
            "is_interrupt": False,
        }

    def _tool(
        self, tool: str, tool_input: Payload, response: Payload
    ) -> tuple[Payload | None, Payload]:
        identity = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": call_id()}
        before = {**self._common("PreToolUse"), **identity}
        after = {
            **self._common("PostToolUse"),
            **identity,
            "tool_response": response,
            "duration_ms": 12,
        }
        return before, after

    def end(self) -> Payload:
        return {**self._common("Stop"), "stop_hook_active": False}

    def session_end(self, reason: str = "other") -> Payload:
        """Claude Code's SessionEnd: the session's fields and ``reason`` (one of "clear",
        "logout", "prompt_input_exit", "other")."""
        return {**self._common("SessionEnd"), "reason": reason}


class Codex:
    """Codex CLI 0.171.0, as its embedded hook schemas say (``additionalProperties: false``):
    every shell tool is ``Bash`` with ``{"command": "<string>"}`` (no ``workdir``),
    ``apply_patch`` is ``{"command": PATCH}``, Bash's ``tool_response`` is the output as a
    string, and SessionEnd carries only ``reason`` besides the session's fields."""

    name = "codex"

    def __init__(self, root: Path, session: str = "0199a213-81c0-7800-8aa1-bbab2a035a53") -> None:
        self.root = root
        self.session = session
        self.turn = 0

    def _session(self, event: str) -> Payload:
        return {
            "session_id": self.session,
            "transcript_path": None,
            "cwd": str(self.root),
            "hook_event_name": event,
        }

    def _common(self, event: str) -> Payload:
        return {
            **self._session(event),
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "turn_id": f"turn-{self.turn}",
        }

    def session_start(self) -> Payload:
        return {**self._common("SessionStart"), "source": "startup"}

    def prompt(self, text: str) -> Payload:
        self.turn += 1
        return {**self._common("UserPromptSubmit"), "prompt": text}

    def patch(self, body: str) -> tuple[Payload | None, Payload]:
        patch = f"*** Begin Patch\n{body}\n*** End Patch\n"
        return self._tool("apply_patch", {"command": patch}, "Success. Updated the following files")

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self.patch(f"*** Update File: {path}\n@@\n-{old}\n+{new}")

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        lines = "\n".join("+" + line for line in content.splitlines())
        return self.patch(f"*** Add File: {path}\n{lines}")

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        return self._tool("Bash", {"command": command}, "")

    def intercepted_patch(self, command: str) -> Payload:
        """A patch sent through the shell tool (``apply_patch <<'PATCH' ... PATCH``), as Codex
        0.171.0 tells a model its catalog does not know to send one (it then offers no
        apply_patch tool). Codex intercepts the command and applies the patch itself: its hooks
        see this PreToolUse of ``Bash`` and no PostToolUse."""
        before, _ = self.shell(command)
        assert before is not None
        return before

    def _tool(
        self, tool: str, tool_input: Payload, response: object
    ) -> tuple[Payload | None, Payload]:
        identity = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": call_id()}
        return (
            {**self._common("PreToolUse"), **identity},
            {**self._common("PostToolUse"), **identity, "tool_response": response},
        )

    def end(self) -> Payload:
        return {
            **self._common("Stop"),
            "stop_hook_active": False,
            "last_assistant_message": "Done.",
        }

    def session_end(self) -> Payload:
        return {**self._session("SessionEnd"), "reason": "other"}

    def notify(self, prompt: str) -> Payload:
        return {
            "type": "agent-turn-complete",
            "thread-id": self.session,
            "turn-id": f"turn-{self.turn}",
            "cwd": str(self.root),
            "input-messages": [prompt],
            "last-assistant-message": "Done.",
        }


class Gemini:
    """Gemini CLI 0.61.0 (``createBaseInput`` and the tools' parameters in its core bundle): no
    tool-call id; ``run_shell_command`` runs in ``dir_path`` (relative to the project root);
    ``replace`` needs an ``instruction``."""

    name = "gemini"

    def __init__(self, root: Path, session: str = "c5a1f2e0-gemini-session") -> None:
        self.root = root
        self.session = session

    def _common(self, event: str) -> Payload:
        return {
            "session_id": self.session,
            "transcript_path": "/home/u/.gemini/tmp/chat.json",
            "cwd": str(self.root),
            "hook_event_name": event,
            "timestamp": "2026-11-30T10:00:00.000Z",
        }

    def session_start(self) -> Payload:
        return {**self._common("SessionStart"), "source": "startup"}

    def prompt(self, text: str) -> Payload:
        return {**self._common("BeforeAgent"), "prompt": text}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._tool(
            "replace",
            {
                "file_path": str(self.root / path),
                "instruction": "edit",
                "old_string": old,
                "new_string": new,
            },
        )

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("write_file", {"file_path": str(self.root / path), "content": content})

    def shell(self, command: str, dir_path: str | None = None) -> tuple[Payload | None, Payload]:
        tool_input: Payload = {"command": command, "description": "run"}
        if dir_path is not None:
            tool_input["dir_path"] = dir_path
        return self._tool("run_shell_command", tool_input)

    def _tool(self, tool: str, tool_input: Payload) -> tuple[Payload | None, Payload]:
        identity = {"tool_name": tool, "tool_input": tool_input}
        return (
            {**self._common("BeforeTool"), **identity},
            {
                **self._common("AfterTool"),
                **identity,
                "tool_response": {"llmContent": "ok", "returnDisplay": "ok", "error": None},
            },
        )

    def end(self) -> Payload:
        return {
            **self._common("AfterAgent"),
            "prompt": "",
            "prompt_response": "Done.",
            "stop_hook_active": False,
        }


class Cursor:
    name = "cursor"

    def __init__(self, root: Path, session: str = "668320d2-2fd8-4888-b33c-2a466fec86e7") -> None:
        self.root = root
        self.session = session
        self.generation = 0

    def _common(self, event: str) -> Payload:
        return {
            "conversation_id": self.session,
            "generation_id": f"gen-{self.generation}",
            "hook_event_name": event,
            "workspace_roots": [str(self.root)],
        }

    def session_start(self) -> Payload | None:
        return None

    def prompt(self, text: str) -> Payload:
        self.generation += 1
        return {**self._common("beforeSubmitPrompt"), "prompt": text, "attachments": []}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return None, {
            **self._common("afterFileEdit"),
            "file_path": str(self.root / path),
            "edits": [{"old_string": old, "new_string": new}],
        }

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return None, {
            **self._common("afterFileEdit"),
            "file_path": str(self.root / path),
            "edits": [{"old_string": "", "new_string": content}],
        }

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        payload = {"command": command, "cwd": str(self.root)}
        return (
            {**self._common("beforeShellExecution"), **payload},
            {**self._common("afterShellExecution"), **payload, "output": ""},
        )

    def end(self) -> Payload:
        return {**self._common("stop"), "status": "completed"}


class CursorToolHooks(Cursor):
    """Cursor with its tool hooks (cursor.com/docs/hooks.md, the stored copy read 2026-12-01:
    ``preToolUse``/``postToolUse``/``postToolUseFailure`` with ``tool_name``, ``tool_input``,
    ``tool_use_id`` and ``cwd``, ``postToolUse`` adding ``tool_output`` and ``duration``; tool
    matchers ``Write``, ``Delete``, ``Shell``...). Its ``Write`` and ``Delete`` tools are
    followed, as before, by ``afterFileEdit`` for an edit; a shell command still comes as
    ``beforeShellExecution``/``afterShellExecution`` (rewind's hooks match only Write|Delete).
    The path key of ``Delete`` is not in the page: ``path_key`` says which one to send.
    """

    def __init__(
        self,
        root: Path,
        session: str = "668320d2-2fd8-4888-b33c-2a466fec86e7",
        path_key: str = "file_path",
    ) -> None:
        super().__init__(root, session)
        self.path_key = path_key

    def _tool(self, tool: str, tool_input: Payload) -> tuple[Payload, Payload]:
        identity = {
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": call_id(),
            "cwd": str(self.root),
        }
        return (
            {**self._common("preToolUse"), **identity},
            {**self._common("postToolUse"), **identity, "tool_output": "{}", "duration": 12},
        )

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, list[Payload]]:  # type: ignore[override]
        _, after_edit = super().edit(path, old, new)
        text = self._text_now(path) or ""
        before, after = self._tool(
            "Write", {"file_path": str(self.root / path), "contents": text.replace(old, new, 1)}
        )
        return before, [after, after_edit]

    def write(self, path: str, content: str) -> tuple[Payload | None, list[Payload]]:  # type: ignore[override]
        _, after_edit = super().write(path, content)
        before, after = self._tool(
            "Write", {"file_path": str(self.root / path), "contents": content}
        )
        return before, [after, after_edit]

    def delete(self, path: str) -> tuple[Payload, Payload]:
        return self._tool("Delete", {self.path_key: str(self.root / path)})

    def _text_now(self, path: str) -> str | None:
        try:
            return (self.root / path).read_text()
        except (FileNotFoundError, UnicodeDecodeError):
            return None


def each(after: Payload | list[Payload] | None) -> list[Payload | None]:
    """The events an agent sends after a tool ran (Cursor with tool hooks sends two)."""
    return list(after) if isinstance(after, list) else [after]


class Cline:
    """Cline CLI 3.0.65 (@cline/core 0.0.86), as read from its bundled code: ``hookName`` is the
    internal event name, ``tool_call``/``tool_result`` carry the call id and the input as given,
    ``preToolUse``/``postToolUse`` the same with every value a string; the file tool is
    ``editor``, the shell tool ``run_commands``. The session is ``sessionContext.rootSessionId``;
    ``taskId`` is the agent's conversation, new in each process that runs the session
    (:meth:`resumed`), as a real run shows."""

    name = "cline"
    version = "3.0.65"

    def __init__(self, root: Path, session: str = "1764496800100_dJaH7_cli") -> None:
        self.root = root
        self.session = session
        self.conversation = "conv_1764496800123_z75xaei"
        self.agent = "agent_1764496800120_57dv1c"
        self.parent: str | None = None  # a subagent's: the agent that started it
        self.iteration = 0

    def resumed(self) -> None:
        """The session loaded again in a new process: a new conversation and agent."""
        self.conversation = "conv_1764496900456_e1vg7tz"
        self.agent = "agent_1764496900450_xi7fki"

    def _common(self, event: str) -> Payload:
        return {
            "clineVersion": self.version,
            "hookName": event,
            "timestamp": "2026-11-30T10:00:00.000Z",
            "taskId": self.conversation,
            "sessionContext": {"rootSessionId": self.session},
            "workspaceRoots": [str(self.root)],
            "userId": "u",
            "agent_id": self.agent,
            "parent_agent_id": self.parent,
        }

    def session_start(self) -> Payload:
        return {**self._common("agent_start"), "taskStart": {"taskMetadata": {}}}

    def prompt(self, text: str) -> Payload:
        return {
            **self._common("prompt_submit"),
            "userPromptSubmit": {"prompt": text, "attachments": []},
        }

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._tool(
            "editor", {"path": str(self.root / path), "old_text": old, "new_text": new}
        )

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        """``editor`` without ``old_text`` creates the missing file with ``new_text``."""
        return self._tool("editor", {"path": str(self.root / path), "new_text": content})

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        return self._tool("run_commands", {"commands": [command]})

    def _tool(self, tool: str, tool_input: Payload) -> tuple[Payload, Payload]:
        self.iteration += 1
        call: Payload = {"id": call_id(), "name": tool, "input": tool_input}
        parameters = {
            key: value if isinstance(value, str) else json.dumps(value)
            for key, value in tool_input.items()
        }
        before = {
            **self._common("tool_call"),
            "iteration": self.iteration,
            "tool_call": call,
            "preToolUse": {"toolName": tool, "parameters": parameters},
        }
        after = {
            **self._common("tool_result"),
            "iteration": self.iteration,
            "tool_result": {
                **call,
                "output": "ok",
                "durationMs": 3,
                "startedAt": "2026-11-30T10:00:00.000Z",
                "endedAt": "2026-11-30T10:00:00.003Z",
            },
            "postToolUse": {
                "toolName": tool,
                "parameters": parameters,
                "result": "ok",
                "success": True,
                "executionTimeMs": 3,
            },
        }
        return before, after

    def end(self) -> Payload:
        return {
            **self._common("agent_end"),
            "iteration": self.iteration,
            "turn": {"outputText": "Done.", "status": "completed"},
            "taskComplete": {"taskMetadata": {}},
        }


class ClineExtension:
    """The Cline VS Code extension, as its source sends hooks (cline/cline on GitHub,
    src/core/hooks/hook-factory.ts; the package was not read): ``hookName`` is the file name,
    the tool only in ``preToolUse``/``postToolUse`` with string parameters and no call id,
    paths relative to the workspace; tools ``write_to_file``, ``replace_in_file``,
    ``execute_command``. TaskStart carries the task's first prompt as ``initialTask``."""

    name = "cline"

    def __init__(self, root: Path, session: str = "1764496800123") -> None:
        self.root = root
        self.session = session
        self.started = False

    def _common(self, event: str) -> Payload:
        return {
            "clineVersion": "3.38.0",
            "hookName": event,
            "timestamp": "1764496800123",
            "taskId": self.session,
            "workspaceRoots": [str(self.root)],
            "userId": "u",
        }

    def session_start(self) -> Payload | None:
        return None

    def prompt(self, text: str) -> Payload:
        if not self.started:
            self.started = True
            metadata = {"taskId": self.session, "ulid": "01KB", "initialTask": text}
            return {**self._common("TaskStart"), "taskStart": {"taskMetadata": metadata}}
        return {**self._common("UserPromptSubmit"), "userPromptSubmit": {"prompt": text}}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        diff = f"------- SEARCH\n{old}\n=======\n{new}\n+++++++ REPLACE"
        return self._tool("replace_in_file", {"path": path, "diff": diff})

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("write_to_file", {"path": path, "content": content})

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        return self._tool("execute_command", {"command": command, "requires_approval": "false"})

    def _tool(self, tool: str, parameters: Payload) -> tuple[Payload | None, Payload]:
        before = {
            **self._common("PreToolUse"),
            "preToolUse": {"toolName": tool, "parameters": parameters},
        }
        summary = {"toolName": tool, "parameters": parameters}
        result = {"result": "ok", "success": True, "executionTimeMs": "4"}
        return before, {**self._common("PostToolUse"), "postToolUse": {**summary, **result}}

    def end(self) -> Payload:
        metadata = {"taskId": self.session, "ulid": "01KB", "result": "Done."}
        return {**self._common("TaskComplete"), "taskComplete": {"taskMetadata": metadata}}


class Windsurf:
    """Windsurf's Cascade hooks, from its documentation (no client package to read):
    docs.windsurf.com/windsurf/cascade/hooks, read 2026-11-30. ``trajectory_id`` is the
    conversation, ``execution_id`` the turn; the hook runs in the workspace root."""

    name = "windsurf"

    def __init__(self, root: Path, session: str = "8d0c6a4e-traj-windsurf") -> None:
        self.root = root
        self.session = session
        self.turn = 0

    def _common(self, event: str, tool_info: Payload) -> Payload:
        return {
            "agent_action_name": event,
            "trajectory_id": self.session,
            "execution_id": f"exec-{self.turn}",
            "timestamp": "2026-11-30T10:00:00.000000Z",
            "tool_info": tool_info,
        }

    def session_start(self) -> Payload | None:
        return None

    def prompt(self, text: str) -> Payload:
        self.turn += 1
        return self._common("pre_user_prompt", {"user_prompt": text})

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._write(path, [{"old_string": old, "new_string": new}])

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._write(path, [{"old_string": "", "new_string": content}])

    def _write(self, path: str, edits: list[Payload]) -> tuple[Payload | None, Payload]:
        info: Payload = {"file_path": str(self.root / path), "edits": edits}
        return self._common("pre_write_code", info), self._common("post_write_code", info)

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        info: Payload = {"command_line": command, "cwd": str(self.root)}
        return self._common("pre_run_command", info), self._common("post_run_command", info)

    def end(self) -> Payload:
        return self._common("post_cascade_response", {"response": "### Planner Response\n\nDone."})


class Copilot:
    """GitHub Copilot CLI 1.0.102 (``@github/copilot``), camelCase events: the payloads name no
    event (rewind's hooks file puts it in REWIND_COPILOT_EVENT) and carry no tool-call id.
    ``toolArgs`` is sent as a JSON string (``string_args``, as the CLI's docs show it) or as an
    object (as the SDK's types have it); ``apply_patch`` is a freeform tool: its arguments are
    the raw patch text. Tools and arguments as read from the client's embedded schemas."""

    name = "copilot"

    def __init__(
        self,
        root: Path,
        session: str | None = "b4c7e1f2-9a3d-4e5f-8c6b-copilot-cli",
        string_args: bool = True,
    ) -> None:
        self.root = root
        self.session = session
        self.string_args = string_args
        self.clock = 1767225600000

    def _common(self) -> Payload:
        self.clock += 1000
        common: Payload = {"sessionId": self.session} if self.session else {}
        return {**common, "timestamp": self.clock, "cwd": str(self.root)}

    def session_start(self) -> Payload:
        return {**self._common(), "source": "new", "initialPrompt": ""}

    def prompt(self, text: str) -> Payload:
        return {**self._common(), "prompt": text}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._tool("edit", {"path": str(self.root / path), "old_str": old, "new_str": new})

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("create", {"path": str(self.root / path), "file_text": content})

    def editor(
        self, command: str, path: str, **arguments: object
    ) -> tuple[Payload | None, Payload]:
        return self._tool(
            "str_replace_editor", {"command": command, "path": str(self.root / path), **arguments}
        )

    def patch(self, body: str) -> tuple[Payload | None, Payload]:
        return self._tool("apply_patch", f"*** Begin Patch\n{body}\n*** End Patch\n")

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        arguments = {"command": command, "description": "run", "mode": "sync", "initial_wait": 30}
        return self._tool("bash", arguments)

    def write_shell(self, text: str) -> tuple[Payload | None, Payload]:
        return self._tool("write_bash", {"shellId": "1", "input": text, "delay": 5})

    def _tool(self, tool: str, arguments: object) -> tuple[Payload | None, Payload]:
        raw = isinstance(arguments, str)
        args = arguments if raw or not self.string_args else json.dumps(arguments)
        before = {**self._common(), "toolName": tool, "toolArgs": args}
        result = {"resultType": "success", "textResultForLlm": "done"}
        return before, {**self._common(), "toolName": tool, "toolArgs": args, "toolResult": result}

    def failed(self, after: Payload) -> Payload:
        """The postToolUseFailure of a call whose postToolUse would have been ``after``."""
        failure = {key: value for key, value in after.items() if key != "toolResult"}
        return {**failure, "error": "old_str was not found in the file"}

    def end(self) -> Payload:
        path = f"/home/u/.copilot/session-state/{self.session}/events.jsonl"
        return {**self._common(), "transcriptPath": path, "stopReason": "end_turn"}

    def session_end(self) -> Payload:
        return {**self._common(), "reason": "complete"}


class Pi:
    """rewind's Pi extension (hooks/pi/rewind.js) on Pi 0.73.1: rewind's own small events,
    each with Pi's session id, session file and cwd; paths as the model gives them, relative
    to the cwd."""

    name = "pi"

    def __init__(self, root: Path, session: str = "019ae0f1-5c2d-7a8e-9b1f-3c4d5e6f7a8b") -> None:
        self.root = root
        self.session = session
        self.calls = 0

    def _common(self, event: str) -> Payload:
        return {
            "event": event,
            "session_id": self.session,
            "session_file": "/home/u/.pi/agent/sessions/--project--/s.jsonl",
            "cwd": str(self.root),
        }

    def session_start(self) -> Payload:
        return {**self._common("session_start"), "reason": "startup"}

    def prompt(self, text: str) -> Payload:
        return {**self._common("prompt"), "prompt": text, "leaf_id": "", "script": ""}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._tool("edit", {"path": path, "edits": [{"oldText": old, "newText": new}]})

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("write", {"path": f"@{path}", "content": content})

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        return self._tool("bash", {"command": command})

    def _tool(self, tool: str, tool_input: Payload) -> tuple[Payload, Payload]:
        self.calls += 1
        call = {"tool_name": tool, "tool_call_id": f"toolu_pi{self.calls:04d}"}
        return (
            {**self._common("tool_call"), **call, "tool_input": tool_input},
            {**self._common("tool_result"), **call, "tool_input": tool_input, "is_error": False},
        )

    def end(self) -> Payload:
        return self._common("agent_end")


class Qwen:
    """Qwen Code 0.24.4, as it ran against a scripted model: Claude Code's events and fields,
    Gemini CLI's tool names; ``tool_use_id`` pairs a tool's events; UserPromptSubmit again
    before each request that sends a tool's results back (``prompt`` empty, no
    ``submitted_prompt``)."""

    name = "qwen"

    def __init__(self, root: Path, session: str = "d62494c0-68ef-4785-9ace-d11e5509c770") -> None:
        self.root = root
        self.session = session
        self.prompts = 0

    def _common(self, event: str) -> Payload:
        return {
            "session_id": self.session,
            "transcript_path": f"/home/u/.qwen/projects/p/chats/{self.session}.jsonl",
            "cwd": str(self.root),
            "hook_event_name": event,
            "timestamp": "2026-12-07T05:45:18.683Z",
            "permission_mode": "yolo",
            "prompt_id": f"{self.session}########{self.prompts}",
        }

    def session_start(self) -> Payload:
        return {**self._common("SessionStart"), "source": "startup", "model": "qwen3-coder"}

    def prompt(self, text: str) -> Payload:
        self.prompts += 1
        return {**self._common("UserPromptSubmit"), "prompt": text, "submitted_prompt": text}

    def tool_results_sent(self) -> Payload:
        """The UserPromptSubmit of the request that sends a tool's results back."""
        return {**self._common("UserPromptSubmit"), "prompt": ""}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._tool(
            "edit", {"file_path": str(self.root / path), "old_string": old, "new_string": new}
        )

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("write_file", {"file_path": str(self.root / path), "content": content})

    def shell(self, command: str, directory: str | None = None) -> tuple[Payload | None, Payload]:
        tool_input: Payload = {"command": command, "description": "run"}
        if directory is not None:
            tool_input["directory"] = directory
        return self._tool("run_shell_command", tool_input)

    def _tool(self, tool: str, tool_input: Payload) -> tuple[Payload | None, Payload]:
        identity = {"tool_name": tool, "tool_input": tool_input}
        identity["tool_use_id"] = f"toolu_{next(_ids)}"
        identity["tool_call_id"] = call_id()
        return (
            {**self._common("PreToolUse"), **identity},
            {**self._common("PostToolUse"), **identity, "tool_response": {"llmContent": "ok"}},
        )

    def failed(self, after: Payload, error: str) -> Payload:
        """The PostToolUseFailure Qwen sends instead of ``after`` (a command that exits
        non-zero is one)."""
        failure = {key: value for key, value in after.items() if key != "tool_response"}
        return {**failure, "hook_event_name": "PostToolUseFailure", "error": error}

    def end(self) -> Payload:
        return {
            **self._common("Stop"),
            "stop_hook_active": False,
            "last_assistant_message": "Done.",
        }

    def session_end(self) -> Payload:
        return {**self._common("SessionEnd"), "reason": "prompt_input_exit"}


class Droid:
    """Droid 0.225.2 as ``droid exec`` ran against a scripted model: Claude Code's events and
    fields, Droid's tool names, no tool-call id, no UserPromptSubmit and a Stop with no reply.
    The prompt and the reply are in the session's transcript, which this writes as Droid does
    (beside the project, never in it), with the lines Droid adds around them."""

    name = "droid"

    def __init__(self, root: Path, session: str = "8cf9bce8-e0ab-4490-8b03-f85f2048abf2") -> None:
        self.root = root
        self.session = session
        self.transcript = root.parent / "factory-sessions" / f"{session}.jsonl"

    def _common(self, event: str) -> Payload:
        return {
            "session_id": self.session,
            "transcript_path": str(self.transcript),
            "cwd": str(self.root),
            "permission_mode": "auto-high",
            "hook_event_name": event,
        }

    def _message(self, role: str, content: list[Payload], **more: object) -> None:
        """Appends a message line to the transcript, stamped now (in milliseconds, UTC)."""
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        record = {
            "type": "message",
            "id": more.pop("id", f"m-{next(_ids)}"),
            "timestamp": stamp.replace("+00:00", "Z"),
            "message": {"role": role, "content": content, **more},
        }
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        with open(self.transcript, "a") as stream:
            stream.write(json.dumps(record, separators=(",", ":")) + "\n")

    def session_start(self) -> Payload:
        self._message("user", [], visibility="user_only", hookEventName="SessionStart")
        return {**self._common("SessionStart"), "source": "startup"}

    def prompt(self, text: str) -> None:
        """``droid exec PROMPT``: the prompt goes into the transcript, after the context Droid
        adds; no event."""
        reminder: list[Payload] = [
            {"type": "text", "text": "<system-reminder>\nTools</system-reminder>"}
        ]
        self._message("user", reminder, id=f"context-{next(_ids)}")
        self._message("user", [{"type": "text", "text": text}], interactionMode="auto")

    def typed(self, text: str) -> Payload:
        """A prompt typed in Droid's terminal UI, which sends UserPromptSubmit."""
        self._message("user", [{"type": "text", "text": text}], interactionMode="auto")
        return {**self._common("UserPromptSubmit"), "prompt": text}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._tool(
            "Edit", {"file_path": str(self.root / path), "old_str": old, "new_str": new}
        )

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("Create", {"file_path": str(self.root / path), "content": content})

    def patch(self, body: str) -> tuple[Payload | None, Payload]:
        return self._tool("ApplyPatch", {"input": body})

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        tool_input: Payload = {"command": command, "riskLevel": "low", "riskLevelReason": "edits"}
        return self._tool("Execute", tool_input)

    def _tool(self, tool: str, tool_input: Payload) -> tuple[Payload | None, Payload]:
        identity = {"tool_name": tool, "tool_input": tool_input}
        return (
            {**self._common("PreToolUse"), **identity},
            {**self._common("PostToolUse"), **identity, "tool_response": '{"success":true}'},
        )

    def end(self, reply: str = "Done.") -> Payload:
        self._message("assistant", [{"type": "text", "text": reply}], modelId="custom:m")
        self._message("user", [], visibility="user_only", hookEventName="Stop")
        return {
            **self._common("Stop"),
            "stop_hook_active": False,
            "message_id": f"m-{next(_ids)}",
            "tool_execution_count": 1,
        }

    def session_end(self) -> Payload:
        return {**self._common("SessionEnd"), "reason": "other"}


class OpenCode:
    """OpenCode 1.18.33 through rewind's plugin (hooks/opencode/rewind.js), which sends events of
    its own making: ``event`` (the plugin hook's name), OpenCode's ``session_id``, the
    instance's ``cwd`` and ``worktree``; a prompt's text as OpenCode has it (``opencode run``
    quotes an argument holding a space) and its user message's id; a tool call's name, id and
    arguments as OpenCode's tools take them (``write``/``edit`` by ``filePath``, relative or
    absolute; ``apply_patch`` by ``patchText``; ``bash`` by ``command``, in ``workdir``)."""

    name = "opencode"

    def __init__(self, root: Path, session: str = "ses_24ee2a0030ffeHaOM7OknygHmKq") -> None:
        self.root = root
        self.session = session
        self.messages = itertools.count(1)
        self.message = ""  # the last prompt's user message

    def _common(self, event: str) -> Payload:
        return {
            "event": event,
            "session_id": self.session,
            "cwd": str(self.root),
            "worktree": str(self.root),
        }

    def session_start(self) -> Payload | None:
        return None  # the plugin sends nothing when a session starts

    def prompt(self, text: str, quoted: bool = False) -> Payload:
        """``quoted``: as ``opencode run "TEXT"`` sends it."""
        sent = '"' + text.replace('"', '\\"') + '"' if quoted else text
        self.message = f"msg_24ee2a0030{next(self.messages):04d}ZYS10Lu3IWqBM9"
        return {**self._common("chat.message"), "prompt": sent, "message_id": self.message}

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self._tool("edit", {"filePath": path, "oldString": old, "newString": new})

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("write", {"filePath": str(self.root / path), "content": content})

    def patch(self, body: str) -> tuple[Payload | None, Payload]:
        return self._tool("apply_patch", {"patchText": f"*** Begin Patch\n{body}\n*** End Patch"})

    def shell(self, command: str, workdir: str | None = None) -> tuple[Payload | None, Payload]:
        arguments: Payload = {"command": command, "description": "run"}
        if workdir is not None:
            arguments["workdir"] = workdir
        return self._tool("bash", arguments)

    def _tool(self, tool: str, arguments: Payload) -> tuple[Payload, Payload]:
        identity = {
            "tool_name": tool,
            "tool_call_id": "toolu_" + call_id(),
            "tool_input": arguments,
        }
        return (
            {**self._common("tool.execute.before"), **identity},
            {**self._common("tool.execute.after"), **identity},
        )

    def end(self) -> Payload:
        """The run's end, naming the prompt whose run it ends."""
        return {**self._common("session.idle"), "message_id": self.message}


AGENTS = (
    ClaudeCode,
    Codex,
    Gemini,
    Cursor,
    Copilot,
    Cline,
    ClineExtension,
    Windsurf,
    Pi,
    Qwen,
    Droid,
    OpenCode,
)
