"""One check of one editor buffer: by the project's warm engine when one runs
(server/client.buffer_lint), else in this process (usecases/editor.check_content).

Both ways run `check_content` on the same request and the same bytes (CG-12); the
engine's answer comes back through the one codec (server/codec.py).
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.deadline import FEEDBACK_DEADLINE_S
from orchestrator.safetext import printable
from orchestrator.usecases.editor import MAX_FAULT, BufferCheck, check_content, fault_text


def check_buffer(root: Path, rel: str, text: str | None) -> BufferCheck:
    """Lint `rel` under `root`, judging `text` (the buffer) instead of the disk when
    given: by the project's running warm engine when it answers well, else in this
    process (`cold_reason` says why). The same request and bytes either way; never
    starts an engine, never raises."""
    if text is None:
        return check_content(root, rel, None)
    try:
        content = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:  # a lone surrogate the editor sent
        return BufferCheck(None, fault_text(exc))
    from orchestrator.server.client import buffer_lint

    answer = buffer_lint(root, rel, content, FEEDBACK_DEADLINE_S)
    if answer.check is not None:
        return answer.check
    cold = check_content(root, rel, content)
    return BufferCheck(cold.report, cold.fault, cold_reason=printable(answer.reason)[:MAX_FAULT])
