"""The stat facts a tool's identity is re-validated by (a cached version, a kept result).

A tool is reached through its path, maybe through symbolic links, maybe through a
wrapper script that runs another program: each of those can change while the path's
own stat stays the same (a `node_modules/.bin` link swapped, a shim's target
upgraded, an installer that fixes every file's mtime). `tool_stamp` covers them all.
"""

from __future__ import annotations

import os
import re

#: What a cached tool version is valid for: the stat facts of the tool's path, of each
#: symbolic link on the way to the program, of the program, and of the absolute paths
#: a script names in its head (its interpreter, the program a wrapper runs).
ToolStamp = tuple[tuple[str, tuple[int, ...] | None], ...]
_SCRIPT_HEAD = 4096
_NAMED_PATH = re.compile(rb"(?<![\w.~:/-])/[\w.+@%,=-][\w.+@%:,=/-]*")
_MAX_NAMED = 16
_MAX_LINKS = 40


def facts(st: os.stat_result) -> tuple[int, ...]:
    """Device, inode, size, mtime and ctime (ns): what changes when a file is replaced."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def tool_stamp(path: str) -> ToolStamp:
    """The stat facts a tool's identity is re-validated by (see `ToolStamp`): a link
    swapped, a program replaced (a new inode or ctime, even when an installer keeps
    the mtime) or a wrapper's target changed all give another stamp. OSError when the
    tool's path cannot be read."""
    rows: list[tuple[str, tuple[int, ...] | None]] = []
    hop = path
    for _ in range(_MAX_LINKS):
        rows.append((hop, facts(os.lstat(hop))))
        if not os.path.islink(hop):
            break
        hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
    # The program itself, through every link (those of the folders on the way too).
    rows.append((os.path.realpath(path), facts(os.stat(path))))
    with open(hop, "rb") as fh:
        head = fh.read(_SCRIPT_HEAD)
    if head.startswith(b"#!"):
        for raw in list(dict.fromkeys(_NAMED_PATH.findall(head)))[:_MAX_NAMED]:
            named = os.fsdecode(raw)
            try:
                rows.append((named, facts(os.stat(named))))
            except OSError:
                rows.append((named, None))  # absent now: its arrival changes the stamp
    return tuple(rows)


__all__ = ["ToolStamp", "facts", "tool_stamp"]
