"""The Anthropic Messages API (``POST /v1/messages``, streamed), as Claude Code speaks it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tests.clients.model_server import Answer, ModelServer, Request, json_answer, sse
from tests.clients.scenario import Reply


class AnthropicServer(ModelServer):
    def answer(self, request: Request) -> Answer:
        if request.method != "POST" or not request.path.startswith("/v1/messages"):
            return json_answer({"type": "error", "error": {"message": "not here"}}, 404)
        body = request.body
        if "count_tokens" in request.path:
            return json_answer({"input_tokens": 100})
        reply, tag = self._reply(body)
        model = body.get("model", "claude")
        if body.get("stream"):
            return sse(_events(reply, model, tag))
        return json_answer(_message(reply, model, tag))

    def _reply(self, body: dict[str, Any]) -> tuple[Reply, str]:
        return self.script.reply_to(body.get("messages") or [], bool(body.get("tools")))


def _tool_id(tag: str, index: int) -> str:
    return "toolu_" + hashlib.sha256(f"{tag}|{index}".encode()).hexdigest()[:24]


def _blocks(reply: Reply, tag: str) -> list[dict[str, Any]]:
    if not reply.calls:
        return [{"type": "text", "text": reply.text}]
    return [
        {"type": "tool_use", "id": _tool_id(tag, i), "name": call.tool, "input": call.arguments}
        for i, call in enumerate(reply.calls)
    ]


def _message(reply: Reply, model: str, tag: str) -> dict[str, Any]:
    return {
        "id": "msg_" + hashlib.sha256(tag.encode()).hexdigest()[:24],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _blocks(reply, tag),
        "stop_reason": "tool_use" if reply.calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 20},
    }


def _events(reply: Reply, model: str, tag: str) -> list[tuple[str | None, Any]]:
    whole = _message(reply, model, tag)
    start = dict(whole, content=[], stop_reason=None)
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            empty, delta = dict(block, text=""), {"type": "text_delta", "text": block["text"]}
        else:
            empty = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": empty},
            )
        )
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = {"stop_reason": whole["stop_reason"], "stop_sequence": None}
    events.append(
        ("message_delta", {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 20}})
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def tool_results(requests: list[Request]) -> list[dict[str, Any]]:
    """The tool results the client sent back to the model, in order, once each."""
    found: dict[str, dict[str, Any]] = {}
    for request in requests:
        body = request.body if isinstance(request.body, dict) else {}
        for message in body.get("messages") or []:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.setdefault(block["tool_use_id"], block)
    return list(found.values())
