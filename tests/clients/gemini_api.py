"""The Gemini API (``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` for the agent's
turns, ``:generateContent`` for the utility calls), as Gemini CLI speaks it.

Besides the turns, the client asks small models for JSON it checks against a schema it sends
(``generationConfig.responseJsonSchema``): the router's complexity score before each prompt, the
next-speaker check. Those get the least answer the schema accepts, built from the schema."""

from __future__ import annotations

import json
from typing import Any

from tests.clients.model_server import Answer, ModelServer, Request, json_answer, sse
from tests.clients.scenario import Reply

USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}


class GeminiServer(ModelServer):
    def answer(self, request: Request) -> Answer:
        path = request.path
        if request.method != "POST" or not path.startswith("/v1beta/models/"):
            return json_answer({"error": {"code": 404, "message": "not here"}}, 404)
        body = request.body if isinstance(request.body, dict) else {}
        if ":countTokens" in path:
            return json_answer({"totalTokens": 100})
        schema = (body.get("generationConfig") or {}).get("responseJsonSchema")
        reply = Reply(text=json.dumps(_filled(schema))) if schema else self._reply(body)
        if ":streamGenerateContent" in path:
            return sse([(None, _response(reply))])
        return json_answer(_response(reply))

    def _reply(self, body: dict[str, Any]) -> Reply:
        """The script's message for this request: the prompt it continues (the user content
        holding a script prompt: Gemini puts its session context before it, in the same
        content, on a session's first prompt), and how many model contents follow it. A request
        offered no tools continues no prompt: a short text."""
        contents = body.get("contents") or []
        if not body.get("tools"):
            return Reply(text="OK")
        for at in range(len(contents) - 1, -1, -1):
            content = contents[at]
            if content.get("role") != "user":
                continue
            prompt = self.script.find(_text_of(content))
            if prompt is None:
                continue
            step = sum(1 for later in contents[at + 1 :] if later.get("role") == "model")
            return prompt.reply(step)
        return Reply(text="OK")


def _text_of(content: dict[str, Any]) -> str:
    """The prompt's text: the content's last text part (the session context, when there is
    one, is a part before it)."""
    texts = [str(part["text"]) for part in content.get("parts") or [] if "text" in part]
    return texts[-1] if texts else ""


def _parts(reply: Reply) -> list[dict[str, Any]]:
    if not reply.calls:
        return [{"text": reply.text}]
    return [{"functionCall": {"name": call.tool, "args": call.arguments}} for call in reply.calls]


def _response(reply: Reply) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": _parts(reply)},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": USAGE,
        "modelVersion": "scripted",
    }


def _filled(schema: dict[str, Any]) -> Any:
    """The least value ``schema`` accepts: the first of an enum (the next-speaker check's
    ``"user"``, the person, first), the minimum of a number, an object's required keys."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: _filled(properties.get(key, {})) for key in schema.get("required") or []}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "scripted"


def tool_results(requests: list[Request]) -> list[dict[str, Any]]:
    """The tool results the client sent back to the model in its turns, in order, once each
    (a resumed session's history holds each result twice, under the same id; the router's
    requests rename the ids): ``{"name", "response", "error"}``, ``error`` the client's error
    text or None."""
    found: dict[str, dict[str, Any]] = {}
    for request in requests:
        body = request.body if isinstance(request.body, dict) else {}
        if not body.get("tools"):
            continue
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                result = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(result, dict):
                    response = result.get("response") or {}
                    found.setdefault(
                        str(result.get("id")),
                        {
                            "name": result.get("name"),
                            "response": response,
                            "error": response.get("error"),
                        },
                    )
    return list(found.values())
