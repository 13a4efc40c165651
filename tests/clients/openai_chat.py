"""The OpenAI Chat Completions API (``POST /v1/chat/completions``, streamed), as the Cline CLI
speaks it through its ``openai-compatible`` provider.

The client sends the whole conversation in ``messages`` each time: ``system``, ``user``
(content a string or a list of ``text`` parts), ``assistant`` (its ``tool_calls``) and ``tool``
(one per call's result). It reads back server-sent events: ``chat.completion.chunk`` objects
whose ``choices[0].delta`` holds the text or the tool calls (each with an ``index``, an ``id``,
a name and its arguments as a JSON string), a last chunk with the ``finish_reason`` and the
``usage``, then ``data: [DONE]``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tests.clients.model_server import Answer, ModelServer, Request, json_answer, sse
from tests.clients.scenario import Reply, Script

USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


class ChatServer(ModelServer):
    def __init__(self, script: Script, model: str = "scripted-model") -> None:
        super().__init__(script)
        self.model = model  # the one model ``GET /v1/models`` lists

    def answer(self, request: Request) -> Answer:
        path = request.path.split("?")[0].rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            listed = {"id": self.model, "object": "model", "created": 0, "owned_by": "scripted"}
            return json_answer({"object": "list", "data": [listed]})
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return json_answer({"error": {"message": "not here"}}, 404)
        body = request.body
        reply, tag = self._reply(body)
        model = str(body.get("model", self.model))
        if not body.get("stream"):
            return json_answer(_completion(reply, model, tag))
        answer = sse([(None, chunk) for chunk in _chunks(reply, model, tag)])
        answer.chunks.append(b"data: [DONE]\n\n")
        return answer

    def _reply(self, body: dict[str, Any]) -> tuple[Reply, str]:
        return self.script.reply_to(body.get("messages") or [], bool(body.get("tools")))


def _id(prefix: str, tag: str, index: int = 0) -> str:
    return prefix + hashlib.sha256(f"{tag}|{index}".encode()).hexdigest()[:24]


def _tool_calls(reply: Reply, tag: str) -> list[dict[str, Any]]:
    return [
        {
            "index": index,
            "id": _id("call_", tag, index),
            "type": "function",
            "function": {"name": call.tool, "arguments": json.dumps(call.arguments)},
        }
        for index, call in enumerate(reply.calls)
    ]


def _chunks(reply: Reply, model: str, tag: str) -> list[dict[str, Any]]:
    base = {"id": _id("chatcmpl-", tag), "object": "chat.completion.chunk", "created": 0}
    base["model"] = model

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])

    said = {"tool_calls": _tool_calls(reply, tag)} if reply.calls else {"content": reply.text}
    finish = "tool_calls" if reply.calls else "stop"
    return [
        chunk({"role": "assistant", "content": ""}),
        chunk(said),
        dict(chunk({}, finish), usage=USAGE),
    ]


def _completion(reply: Reply, model: str, tag: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {key: value for key, value in call.items() if key != "index"}
            for call in _tool_calls(reply, tag)
        ]
    finish = "tool_calls" if reply.calls else "stop"
    return {
        "id": _id("chatcmpl-", tag),
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": USAGE,
    }
