"""Hook payloads of every agent, built from the documented shapes (see docs/integrations/).

Each agent class turns the same abstract steps (a prompt, a file edit, a shell command, the end
of a turn) into the events that agent sends, in the order it sends them. ``None`` as an event
means "the agent sends nothing here" (Cursor has no hook before a file edit).
"""

from __future__ import annotations

import itertools
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


AGENTS = (ClaudeCode, Codex, Gemini, Cursor)
