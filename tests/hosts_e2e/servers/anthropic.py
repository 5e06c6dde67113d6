"""The Anthropic Messages API, scripted, for the real Claude Code CLI.

Turns: `{"tool_use": {"name": "Write", "input": {...}}}` or `{"text": "..."}`. Claude
Code streams (`"stream": true`), so the answer is the Messages SSE sequence; token
counting is answered without taking a turn.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Api, Reply, sse

_USAGE = {"input_tokens": 1, "output_tokens": 1}


class AnthropicApi(Api):
    """POST /v1/messages takes a turn; everything else is a side answer."""

    name = "anthropic"

    def takes_turn(self, path: str) -> bool:
        return path.split("?")[0].endswith("/v1/messages")

    def side_reply(self, method: str, path: str) -> Reply:
        if "count_tokens" in path:
            return Reply.json({"input_tokens": 1})
        error = {"type": "not_found_error", "message": "not scripted"}
        return Reply.json({"type": "error", "error": error}, status=404)

    def turn_reply(self, path: str, body: dict[str, Any], turn: dict[str, Any], n: int) -> Reply:
        model = str(body.get("model", "scripted"))
        if "tool_use" in turn:
            call = turn["tool_use"]
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_{n:04d}",
                "name": call["name"],
                "input": call.get("input", {}),
            }
            stop = "tool_use"
        else:
            block = {"type": "text", "text": turn.get("text", "done")}
            stop = "end_turn"
        head = {"id": f"msg_{n:04d}", "type": "message", "role": "assistant", "model": model}
        if not body.get("stream"):
            msg = dict(head, content=[block], stop_reason=stop, stop_sequence=None, usage=_USAGE)
            return Reply.json(msg)
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = dict(block, text="")
            delta = {"type": "text_delta", "text": block["text"]}
        message = dict(head, content=[], stop_reason=None, stop_sequence=None, usage=_USAGE)
        events = [
            sse("message_start", {"type": "message_start", "message": message}),
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": start},
            ),
            sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            sse("message_stop", {"type": "message_stop"}),
        ]
        return Reply(200, "text/event-stream", b"".join(events))
