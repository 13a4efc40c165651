"""A scripted session as data: for each prompt, the model's messages, one per request the
client makes for it, each a list of tool calls (which the client runs for real, then sends their
results back) or, last, a final text.

The servers answer from this alone, whatever the client sends: the position in the script is
read off the request itself (which prompt it continues, how many model messages follow that
prompt), so a resumed session, a retry or a second client process find their place again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Call:
    """One tool call: the client's own tool name and its arguments."""

    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Tools:
    """One client's tool calls, as its model makes them (each client's module has its own):
    ``write(path, content)`` makes a file, ``edit(path, old, new)`` replaces a text in one,
    ``read(path)`` reads one, ``shell(command)`` runs a command line. Paths are the project's,
    relative."""

    write: Callable[[str, str], Call]
    edit: Callable[[str, str, str], Call]
    read: Callable[[str], Call]
    shell: Callable[[str], Call]
    # The client edits a file only once this process has read it (Qwen Code): each edit's
    # message reads the file first.
    read_first: bool = False

    def editing(self, path: str, old: str, new: str) -> tuple[Call, ...]:
        """The calls of one edit's message: the edit, after a read where the client wants one."""
        edit = self.edit(path, old, new)
        return (self.read(path), edit) if self.read_first else (edit,)


@dataclass(frozen=True)
class Reply:
    """One model message: tool calls, or (when there are none) the final text of the turn."""

    calls: tuple[Call, ...] = ()
    text: str = ""


def calls(*each: Call) -> Reply:
    return Reply(calls=tuple(each))


def done(text: str = "Done.") -> Reply:
    return Reply(text=text)


@dataclass(frozen=True)
class Prompt:
    """One prompt the person types, and the model's messages that answer it."""

    text: str
    replies: tuple[Reply, ...] = field(default_factory=lambda: (done(),))

    def reply(self, step: int) -> Reply:
        """The model's ``step``-th message for this prompt (the final text once past the end,
        so that a client that retries never runs a tool twice)."""
        if step < len(self.replies):
            return self.replies[step]
        return done()


@dataclass
class Script:
    """The prompts of one or more sessions; a prompt's text names it, so each must be unique."""

    prompts: list[Prompt]

    def find(self, text: str) -> Prompt | None:
        """The prompt whose text ``text`` is or holds (clients wrap a prompt in context)."""
        for prompt in self.prompts:
            if prompt.text == text.strip():
                return prompt
        for prompt in self.prompts:
            if prompt.text in text:
                return prompt
        return None

    def reply_to(self, messages: list[Any], offered_tools: bool) -> tuple[Reply, str]:
        """The model's message for a request in the chat shape (``messages`` of ``role`` and
        ``content``, as the Anthropic Messages and OpenAI Chat Completions APIs have them): the
        prompt it continues (the last user message holding a script prompt) and how many model
        messages already follow it; with a tag naming that place. A request that continues no
        prompt of the script (a title, a topic check), or is offered no tools, gets a short
        text."""
        for at in range(len(messages) - 1, -1, -1):
            message = messages[at]
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            prompt = self.find(text_of(message.get("content")))
            if prompt is None:
                continue
            if not offered_tools:
                break
            step = sum(
                1
                for later in messages[at + 1 :]
                if isinstance(later, dict) and later.get("role") == "assistant"
            )
            return prompt.reply(step), f"{prompt.text}|{step}"
        return Reply(text="OK"), "side"

    def at(self, root: Path) -> Script:
        """The script with ``{root}`` in its arguments' strings made the project's path (the
        clients' file tools take absolute paths)."""
        return Script(
            [
                replace(prompt, replies=tuple(_at(r, root) for r in prompt.replies))
                for prompt in self.prompts
            ]
        )


def text_of(content: Any) -> str:
    """The text of a chat message's content: a string, or the text of its ``text`` parts."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "\n".join(parts)


def _at(reply: Reply, root: Path) -> Reply:
    return replace(
        reply,
        calls=tuple(
            Call(call.tool, {key: _placed(value, root) for key, value in call.arguments.items()})
            for call in reply.calls
        ),
    )


def _placed(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{root}", str(root))
    if isinstance(value, list):
        return [_placed(item, root) for item in value]
    if isinstance(value, dict):
        return {key: _placed(item, root) for key, item in value.items()}
    return value
