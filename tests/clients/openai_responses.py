"""The OpenAI Responses API (``POST /v1/responses``, streamed), as the Codex CLI speaks it.

Codex sends the whole conversation in ``input`` each time: messages, the model's tool calls
(``function_call``, ``custom_tool_call``) and their outputs. It reads back server-sent events,
of which it needs only ``response.created``, one ``response.output_item.done`` per item, and
``response.completed`` (a response ``id``; the ``usage`` it shows); the stream must end after
that. A tool the client offers as ``"type": "custom"`` (a freeform tool, such as
``apply_patch`` for the models Codex knows) is called with a ``custom_tool_call`` whose
``input`` is the call's ``input`` argument; every other tool with a ``function_call`` whose
``arguments`` are the call's arguments as a JSON string.

Codex offers an MCP server's tools only through its tool search (``"type": "tool_search"``,
run by the client): the script's ``tool_search`` call is a ``tool_search_call`` (its
arguments, ``query`` and ``limit``, as an object), which Codex answers with a
``tool_search_output`` listing the tools found, grouped in namespaces (``mcp__rewind``). A
tool of a namespace is then called with a ``function_call`` naming both; the script names it
as Codex joins the two, ``mcp__rewind__rewind_log``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from tests.clients.model_server import Answer, ModelServer, Request, json_answer, sse
from tests.clients.scenario import Call, Reply

MODEL_ITEMS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "reasoning",
        "tool_search_call",
        "web_search_call",
    }
)
SEARCH = "tool_search"  # the script's name for the client's tool search
DELIMITER = "__"  # between a namespace and its tool's name, as Codex joins them


class ResponsesServer(ModelServer):
    def answer(self, request: Request) -> Answer:
        if request.method == "GET" and request.path.startswith("/v1/models"):
            return json_answer({"object": "list", "data": [], "models": []})
        if request.method != "POST" or not request.path.startswith("/v1/responses"):
            return json_answer({"error": {"message": "not here"}}, 404)
        body = request.body
        reply, tag = self._reply(body)
        items = _items(reply, tag, _offered(body))
        return sse(_events(items, str(body.get("model", "")), tag))

    def _reply(self, body: dict[str, Any]) -> tuple[Reply, str]:
        """The script's message for this request: the prompt it continues (the last user
        message holding a script prompt), and how many model responses already follow it. A
        request that continues no prompt of the script, or is offered no tools, gets a short
        text."""
        items = body.get("input") or []
        for at in range(len(items) - 1, -1, -1):
            item = items[at]
            if item.get("type", "message") != "message" or item.get("role") != "user":
                continue
            prompt = self.script.find(_text_of(item.get("content")))
            if prompt is None:
                continue
            if not body.get("tools"):
                break
            step = _responses_after(items[at + 1 :])
            return prompt.reply(step), f"{prompt.text}|{step}"
        return Reply(text="OK"), "side"


def _responses_after(items: list[dict[str, Any]]) -> int:
    """How many model responses these items hold: each is a run of the model's own items (its
    messages, its tool calls: one response may call several tools), ended by anything else
    (the tools' outputs, a message of the client's)."""
    count = 0
    inside = False
    for item in items:
        kind = item.get("type", "message")
        mine = kind in MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant")
        if mine and not inside:
            count += 1
        inside = mine
    return count


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") in ("input_text", "output_text"):
            parts.append(str(block.get("text", "")))
    return "\n".join(parts)


@dataclass(frozen=True)
class _Offered:
    """How the model calls the tools the client offers: the freeform ones (called with raw
    text), whether there is a tool search run by the client, and the tools of namespaces (by
    their joined name: the namespace and the tool's own name)."""

    custom: frozenset[str]
    search: bool
    namespaced: dict[str, tuple[str, str]]


def _offered(body: dict[str, Any]) -> _Offered:
    tools = body.get("tools") or []
    return _Offered(
        custom=frozenset(str(tool.get("name")) for tool in tools if tool.get("type") == "custom"),
        search=any(
            tool.get("type") == SEARCH and tool.get("execution") == "client" for tool in tools
        ),
        namespaced=namespaced_tools(body),
    )


def namespaced_tools(body: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The tools of the namespaces a request offers, in its tools or found by the client's tool
    search (a ``tool_search_output`` of its input), by their joined name
    (``mcp__rewind__rewind_log``): their namespace and their own name."""
    groups = list(body.get("tools") or [])
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "tool_search_output":
            groups.extend(item.get("tools") or [])
    found: dict[str, tuple[str, str]] = {}
    for group in groups:
        if isinstance(group, dict) and group.get("type") == "namespace":
            for tool in group.get("tools") or []:
                name = (str(group.get("name")), str(tool.get("name")))
                found[DELIMITER.join(name)] = name
    return found


def _id(prefix: str, tag: str, index: int = 0) -> str:
    return prefix + hashlib.sha256(f"{tag}|{index}".encode()).hexdigest()[:24]


def _call_item(call: Call, tag: str, index: int, offered: _Offered) -> dict[str, Any]:
    call_id = _id("call_", tag, index)
    if call.tool == SEARCH and offered.search:
        return {
            "type": "tool_search_call",
            "id": _id("tsc_", tag, index),
            "status": "completed",
            "call_id": call_id,
            "execution": "client",
            "arguments": call.arguments,
        }
    if call.tool in offered.custom:
        return {
            "type": "custom_tool_call",
            "id": _id("ctc_", tag, index),
            "status": "completed",
            "call_id": call_id,
            "name": call.tool,
            "input": str(call.arguments["input"]),
        }
    item = {
        "type": "function_call",
        "id": _id("fc_", tag, index),
        "status": "completed",
        "call_id": call_id,
        "name": call.tool,
        "arguments": json.dumps(call.arguments),
    }
    if call.tool in offered.namespaced:
        item["namespace"], item["name"] = offered.namespaced[call.tool]
    return item


def _items(reply: Reply, tag: str, offered: _Offered) -> list[dict[str, Any]]:
    if reply.calls:
        return [_call_item(call, tag, i, offered) for i, call in enumerate(reply.calls)]
    text = {"type": "output_text", "text": reply.text, "annotations": []}
    return [
        {
            "type": "message",
            "id": _id("msg_", tag),
            "status": "completed",
            "role": "assistant",
            "content": [text],
        }
    ]


def _events(items: list[dict[str, Any]], model: str, tag: str) -> list[tuple[str | None, Any]]:
    response = {"id": _id("resp_", tag), "object": "response", "model": model, "output": []}
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "response": response})
    ]
    for index, item in enumerate(items):
        for kind in ("response.output_item.added", "response.output_item.done"):
            events.append((kind, {"type": kind, "output_index": index, "item": item}))
    usage = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    whole = dict(response, status="completed", output=items, usage=usage)
    events.append(("response.completed", {"type": "response.completed", "response": whole}))
    return events


def tools_offered(request: Request) -> dict[str, str]:
    """The tools the client offered the model in one request: each name and its type."""
    tools = request.body.get("tools") or []
    return {str(tool.get("name")): str(tool.get("type")) for tool in tools if tool.get("name")}


def tool_outputs(requests: list[Request]) -> list[str]:
    """The output of each tool call the client sent back to the model, in order, once each."""
    found: dict[str, str] = {}
    for request in requests:
        body = request.body if isinstance(request.body, dict) else {}
        for item in body.get("input") or []:
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                found.setdefault(item["call_id"], str(item.get("output")))
    return list(found.values())
