"""What the warm engine serves besides a CLI run: use-case calls, their results sent
through the one codec (server/codec.py).

`server/engine.py` is handed these by the `server run` command (cli/server.py); each
is the very call the cold path makes in-process, so warm and cold answers are one
code path (CG-12).
"""

from __future__ import annotations

from pathlib import Path


def hook_lint(root: Path, paths: list[str], timeout: float) -> bytes:
    """A host hook's edit-feedback lint (usecases/agent.lint_here), as the hook would
    run it, its result encoded."""
    from orchestrator.server.codec import encode_lint_result
    from orchestrator.usecases.agent import lint_here

    return encode_lint_result(lint_here(root, paths, timeout))


def buffer_lint(root: Path, rel: str, content: bytes, timeout: float) -> bytes:
    """An editor buffer's check (usecases/editor.check_content), as the language
    server would run it, its result encoded."""
    from orchestrator.server.codec import encode_buffer_check
    from orchestrator.usecases.editor import check_content

    return encode_buffer_check(check_content(root, rel, content, timeout))


__all__ = ["buffer_lint", "hook_lint"]
