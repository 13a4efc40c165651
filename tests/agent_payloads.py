"""Hook payloads of every agent, built from the documented shapes (see docs/integrations/).

Each agent class turns the same abstract steps (a prompt, a file edit, a shell command, the end
of a turn) into the events that agent sends, in the order it sends them. ``None`` as an event
means "the agent sends nothing here" (a Cursor without tool hooks has no hook before a file
edit); a list, several events one after the other (CursorToolHooks: postToolUse, then
afterFileEdit).
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
    name = "codex"

    def __init__(self, root: Path, session: str = "0199a213-81c0-7800-8aa1-bbab2a035a53") -> None:
        self.root = root
        self.session = session
        self.turn = 0

    def _common(self, event: str) -> Payload:
        return {
            "session_id": self.session,
            "turn_id": f"turn-{self.turn}",
            "cwd": str(self.root),
            "hook_event_name": event,
            "model": "gpt-5-codex",
            "transcript_path": None,
        }

    def session_start(self) -> Payload:
        return {**self._common("SessionStart"), "source": "startup"}

    def prompt(self, text: str) -> Payload:
        self.turn += 1
        return {**self._common("UserPromptSubmit"), "prompt": text}

    def patch(self, body: str) -> tuple[Payload | None, Payload]:
        patch = f"*** Begin Patch\n{body}\n*** End Patch\n"
        return self._tool("apply_patch", {"command": patch}, {"output": "Done!"})

    def edit(self, path: str, old: str, new: str) -> tuple[Payload | None, Payload]:
        return self.patch(f"*** Update File: {path}\n@@\n-{old}\n+{new}")

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        lines = "\n".join("+" + line for line in content.splitlines())
        return self.patch(f"*** Add File: {path}\n{lines}")

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        return self._tool(
            "shell",
            {"command": ["bash", "-lc", command], "workdir": str(self.root)},
            {"output": "", "exit_code": 0},
        )

    def _tool(
        self, tool: str, tool_input: Payload, response: Payload
    ) -> tuple[Payload | None, Payload]:
        identity = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": call_id()}
        return (
            {**self._common("PreToolUse"), **identity},
            {**self._common("PostToolUse"), **identity, "tool_response": response},
        )

    def end(self) -> Payload:
        return {**self._common("Stop"), "stop_hook_active": False}

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
            "replace", {"file_path": str(self.root / path), "old_string": old, "new_string": new}
        )

    def write(self, path: str, content: str) -> tuple[Payload | None, Payload]:
        return self._tool("write_file", {"file_path": str(self.root / path), "content": content})

    def shell(self, command: str) -> tuple[Payload | None, Payload]:
        return self._tool("run_shell_command", {"command": command, "description": "run"})

    def _tool(self, tool: str, tool_input: Payload) -> tuple[Payload | None, Payload]:
        identity = {"tool_name": tool, "tool_input": tool_input}
        return (
            {**self._common("BeforeTool"), **identity},
            {
                **self._common("AfterTool"),
                **identity,
                "tool_response": {"llmContent": "ok", "returnDisplay": "ok"},
            },
        )

    def end(self) -> Payload:
        return {**self._common("AfterAgent"), "prompt_response": "Done."}


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


AGENTS = (ClaudeCode, Codex, Gemini, Cursor)
