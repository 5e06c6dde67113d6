"""The warm engine's wire protocol (server/protocol.py): frames over a real socket pair,
the strict validation of requests and replies, and the private runtime folder."""

from __future__ import annotations

import os
import socket
import struct
import time
from pathlib import Path

import pytest

from orchestrator.server import protocol as p


def _pair() -> tuple[socket.socket, socket.socket]:
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


def test_a_frame_round_trips_and_a_bad_one_is_a_protocol_error() -> None:
    a, b = _pair()
    with a, b:
        p.send_frame(a, {"k": "v", "n": [1, 2]})
        assert p.recv_frame(b, 1024, time.monotonic() + 5) == {"k": "v", "n": [1, 2]}
        p.send_frame(a, {"big": "x" * 100})
        with pytest.raises(p.ProtocolError, match="over the limit"):
            p.recv_frame(b, 50, time.monotonic() + 5)
    for body in (b"[1, 2]", b"\xff\xfe", b"{not json"):
        a, b = _pair()
        with a, b:
            a.sendall(struct.pack(">I", len(body)) + body)
            with pytest.raises(p.ProtocolError):
                p.recv_frame(b, 1024, time.monotonic() + 5)


def test_a_connection_that_ends_early_or_stays_silent() -> None:
    a, b = _pair()
    with b:
        a.close()
        with pytest.raises(p.NoAnswer):
            p.recv_frame(b, 1024, time.monotonic() + 5)
    a, b = _pair()
    with b:
        a.sendall(struct.pack(">I", 10) + b"{}")
        a.close()
        with pytest.raises(p.ProtocolError, match="mid-frame"):
            p.recv_frame(b, 1024, time.monotonic() + 5)
    a, b = _pair()
    with a, b, pytest.raises(TimeoutError):
        p.recv_frame(b, 1024, time.monotonic() + 0.05)


def _hook() -> dict:
    return p.hook_request("/abs/root", ["a.py"], 5.0, {"A": "b"}, 7.0)


def test_the_requests_built_here_are_valid_and_a_changed_one_is_not() -> None:
    assert p.validate_request(_hook())["paths"] == ["a.py"]
    buf = p.validate_request(p.buffer_request("/abs", "src/a.py", b"\x00bytes", 5.0, {}, 7.0))
    assert buf["content"] == b"\x00bytes"  # decoded in place: the engine gets bytes
    assert p.validate_request({"proto": p.PROTO, "kind": "ping"})["kind"] == "ping"
    bad: list[dict] = [
        {**_hook(), "proto": 2},
        {**_hook(), "kind": "shell"},
        {**_hook(), "extra": 1},
        {**_hook(), "root": "relative"},
        {**_hook(), "paths": [1]},
        {**_hook(), "timeout": 5},
        {**_hook(), "timeout": 99999.0},
        {**_hook(), "env": {"A": 1}},
        {**_hook(), "client": {"version": "1"}},
        {**_hook(), "wait_s": True},
        {"proto": p.PROTO, "kind": "ping", "x": 1},
        p.buffer_request("/abs", "/etc/passwd", b"", 5.0, {}, 7.0),
        {**p.buffer_request("/abs", "a.py", b"", 5.0, {}, 7.0), "content": "not base64!"},
    ]
    for req in bad:
        with pytest.raises(p.ProtocolError):
            p.validate_request(req)


def test_a_reply_round_trips_and_a_malformed_one_is_refused() -> None:
    obj = p.make_reply("ok", "r" * 900, 3, b"out", b"err", {"pid": 1})
    reply = p.parse_reply(obj)
    assert reply == p.Reply("ok", "r" * p.MAX_REASON, 3, b"out", b"err", {"pid": 1})
    for change in ({"status": "fine"}, {"exit": 256}, {"exit": True}, {"info": []}, {"x": 1}):
        with pytest.raises(p.ProtocolError):
            p.parse_reply({**obj, **change})


def test_the_runtime_paths_are_named_by_the_resolved_root(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    a = p.runtime_paths(tmp_path / "r", folder=tmp_path / "rt")
    b = p.runtime_paths(tmp_path / "r" / ".." / "r", folder=tmp_path / "rt")
    assert a == b and a.socket.name == p.root_digest(tmp_path / "r") + ".sock"
    assert p.root_digest(tmp_path) != p.root_digest(tmp_path / "r")


def test_only_a_private_folder_of_this_user_is_used(tmp_path: Path) -> None:
    folder = tmp_path / "rt"
    assert not p.private_folder(folder, create=False)
    assert p.private_folder(folder, create=True)
    assert (os.stat(folder).st_mode & 0o777) == 0o700
    folder.chmod(0o750)
    with pytest.raises(p.UnsafeRuntime, match="open to other users"):
        p.private_folder(folder, create=False)
    (tmp_path / "link").symlink_to(folder)
    with pytest.raises(p.UnsafeRuntime, match="not a folder"):
        p.private_folder(tmp_path / "link", create=False)


@pytest.mark.parametrize("mode", [0o777, 0o773, 0o757])
def test_a_private_folder_another_user_could_rename_is_never_used(
    tmp_path: Path, mode: int
) -> None:
    # A parent (or any folder above) another user may write without the sticky bit
    # lets them swap our 0700 folder for theirs between the check and the use (a
    # log symlinked to one of our files): before, such a folder was accepted.
    parent = tmp_path / "common"
    parent.mkdir()
    parent.chmod(mode)
    with pytest.raises(p.UnsafeRuntime, match="can be changed by another user"):
        p.private_folder(parent / "rt", create=True)
    with pytest.raises(p.UnsafeRuntime, match="can be changed by another user"):
        p.private_folder(parent / "a" / "rt", create=True)
    parent.chmod(mode | 0o1000)  # sticky, as /tmp: others cannot rename our entries
    assert p.private_folder(parent / "rt", create=True)


def test_the_peer_of_a_socket_pair_is_this_user() -> None:
    a, b = _pair()
    with a, b:
        assert p.peer_uid(a) == os.getuid()
