"""The OpenAI Responses API, scripted, for the real Codex CLI.

Turns: `{"tool_use": {"name": "exec_command", "input": {"cmd": "..."}}}` or
`{"text": "..."}`. Codex streams; the answer is created -> item added -> item done ->
completed. GET (model lists) is answered with an empty list.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Api, Reply, sse

_USAGE = {
    "input_tokens": 1,
    "output_tokens": 1,
    "total_tokens": 2,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}


class OpenAIResponsesApi(Api):
    """POST /v1/responses takes a turn."""

    name = "openai-responses"

    def takes_turn(self, path: str) -> bool:
        return path.split("?")[0].endswith("/responses")

    def side_reply(self, method: str, path: str) -> Reply:
        if "models" in path:
            return Reply.json({"object": "list", "data": []})
        return Reply.json({})

    def turn_reply(self, path: str, body: dict[str, Any], turn: dict[str, Any], n: int) -> Reply:
        if "tool_use" in turn:
            call = turn["tool_use"]
            done: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": call["name"],
                "arguments": json.dumps(call.get("input", {})),
                "status": "completed",
            }
            added = dict(done, arguments="", status="in_progress")
        else:
            text = {"type": "output_text", "text": turn.get("text", "done"), "annotations": []}
            done = {
                "type": "message",
                "id": f"msg_{n}",
                "role": "assistant",
                "status": "completed",
                "content": [text],
            }
            added = dict(done, content=[], status="in_progress")
        resp = {
            "id": f"resp_{n}",
            "object": "response",
            "status": "completed",
            "model": "scripted",
            "output": [done],
            "usage": _USAGE,
        }
        events = [
            {"type": "response.created", "response": dict(resp, status="in_progress", output=[])},
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            {"type": "response.completed", "response": resp},
        ]
        stream = b"".join(sse(e["type"], dict(e, sequence_number=i)) for i, e in enumerate(events))
        return Reply(200, "text/event-stream", stream)
