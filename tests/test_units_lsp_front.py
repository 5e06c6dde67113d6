"""The front door of `orchestrate lsp` (lsp/front.py), in process: its `initialize`
answer is the one the full pygls server gives, the server's own answer to it is
dropped and everything else passes, framing read from a real pipe."""

from __future__ import annotations

import io
import json
import os
from typing import Any

import pytest
from lsprotocol import types

from orchestrator.lsp import front
from orchestrator.lsp.server import build_server

CLIENTS: list[dict[str, Any]] = [
    {},
    {"general": {"positionEncodings": ["utf-32", "utf-16"]}},
    {"general": {"positionEncodings": ["utf-8"]}},
    {"general": {"positionEncodings": ["latin-1"]}},
    {"general": {}},
]


def _pygls_answer(capabilities: dict[str, Any]) -> dict[str, Any]:
    """What the full server answers to `initialize` with these client capabilities."""
    server = build_server()
    protocol = server.protocol
    converter = protocol._converter
    params = converter.structure(
        {"processId": None, "rootUri": None, "capabilities": capabilities},
        types.InitializeParams,
    )
    steps = protocol.lsp_initialize(params)
    try:
        while True:
            handler, args, _ = next(steps)
            handler(*args)
    except StopIteration as done:
        return converter.unstructure(done.value)


@pytest.mark.parametrize("capabilities", CLIENTS)
def test_the_initialize_answer_is_the_full_servers(capabilities: dict[str, Any]) -> None:
    params = {"processId": None, "rootUri": None, "capabilities": capabilities}
    assert front.initialize_result(params) == _pygls_answer(capabilities)


def _pipe_with(data: bytes) -> int:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return read_end


def test_messages_are_read_from_the_framing_and_the_rest_is_kept() -> None:
    one = front.frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    two = front.frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    reader = front.FdReader(_pipe_with(one + two))
    raw, message = front.read_message(reader)
    assert raw == one and message is not None and message["method"] == "initialize"
    raw, message = front.read_message(reader)
    assert raw == two and message is not None and message["method"] == "initialized"
    assert front.read_message(reader) == (b"", None)


def test_a_message_that_is_not_lsp_framing_is_handed_on_unparsed() -> None:
    reader = front.FdReader(_pipe_with(b"Content-Length: x\r\n\r\n{}"))
    raw, message = front.read_message(reader)
    assert message is None and raw == b"Content-Length: x\r\n\r\n"


def test_the_servers_answer_to_initialize_is_dropped_and_the_rest_passes() -> None:
    out = io.BytesIO()
    writer = front.DropAnswer(out, 1)
    answer = front.frame({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}})
    note = front.frame({"jsonrpc": "2.0", "method": "window/logMessage", "params": {}})
    other = front.frame({"jsonrpc": "2.0", "id": 2, "result": None})
    writer.write(note[:7])  # a message may come in parts
    writer.write(note[7:] + answer[:20])
    writer.write(answer[20:])
    writer.write(other)
    assert out.getvalue() == note + other


def test_serve_answers_initialize_itself_and_hands_the_server_everything() -> None:
    init = front.frame(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "initialize",
            "params": {"capabilities": {"general": {"positionEncodings": ["utf-32"]}}},
        }
    )
    rest = front.frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    out = io.BytesIO()
    seen: list[bytes] = []

    def server(reader: Any, writer: Any) -> int:
        seen.append(reader.read())
        writer.write(front.frame({"jsonrpc": "2.0", "id": 7, "result": {}}))
        writer.write(rest)
        return 5

    assert front.serve(server, _pipe_with(init + rest), out) == 5
    assert seen == [init + rest]  # the whole conversation, initialize included
    head, _, body = out.getvalue().partition(b"\r\n\r\n")
    first = json.loads(body[: int(head.split(b":")[1])])
    assert first["id"] == 7
    assert first["result"]["capabilities"]["positionEncoding"] == "utf-32"
    assert out.getvalue().endswith(rest)  # the server's own answer is gone, the rest is not


def test_a_first_message_that_is_not_initialize_goes_to_the_server_as_is() -> None:
    other = front.frame({"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
    out = io.BytesIO()
    got: list[bytes] = []

    def server(reader: Any, writer: Any) -> int:
        got.append(reader.read())
        return 0

    assert front.serve(server, _pipe_with(other), out) == 0
    assert got == [other] and out.getvalue() == b""
