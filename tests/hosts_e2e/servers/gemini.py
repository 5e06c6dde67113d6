"""The Gemini API, scripted, for the real Gemini CLI.

Turns: `{"tool_use": {"name": "write_file", "input": {...}}}` or `{"text": "..."}`.
`:generateContent` and `:streamGenerateContent` take a turn; `:countTokens` does not.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Api, Reply


class GeminiApi(Api):
    """POST .../models/<model>:(stream)generateContent takes a turn."""

    name = "gemini"

    def takes_turn(self, path: str) -> bool:
        return path.split("?")[0].endswith((":generateContent", ":streamGenerateContent"))

    def side_reply(self, method: str, path: str) -> Reply:
        if ":countTokens" in path:
            return Reply.json({"totalTokens": 1})
        return Reply.json({})

    def turn_reply(self, path: str, body: dict[str, Any], turn: dict[str, Any], n: int) -> Reply:
        if "tool_use" in turn:
            call = turn["tool_use"]
            part: dict[str, Any] = {
                "functionCall": {"name": call["name"], "args": call.get("input", {})}
            }
        else:
            part = {"text": turn.get("text", "done")}
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 1,
                "candidatesTokenCount": 1,
                "totalTokenCount": 2,
            },
            "modelVersion": "scripted",
        }
        if "alt=sse" in path:
            return Reply(200, "text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode())
        return Reply.json(chunk)
