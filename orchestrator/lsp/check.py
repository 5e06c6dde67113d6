"""One check of one editor buffer through the lint use case."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.core.engine import LintRequest
from orchestrator.model.report import Report
from orchestrator.safetext import printable
from orchestrator.usecases.lint import FEEDBACK_TIMEOUT_S, NO_TASKS, lint, with_overlay
from orchestrator.vocab import Purpose


@dataclass(frozen=True)
class BufferCheck:
    """The report of one buffer check, or why there is none (`fault`, our own words)."""

    report: Report | None
    fault: str = ""


def request_for(root: Path, rel: str) -> LintRequest:
    """The request `orchestrate lint --feedback REL` makes from `root` (CG-12: the
    editor asks what the command line asks)."""
    return LintRequest(
        project_root=root,
        paths=(rel,),
        entry="feedback",
        purpose=Purpose.FEEDBACK,
        timeout=FEEDBACK_TIMEOUT_S,
        cwd=root,
        paths_named=True,
    )


def check_buffer(root: Path, rel: str, text: str | None) -> BufferCheck:
    """Lint `rel` under `root`, judging `text` (the buffer) instead of the disk when
    given. Records no task and writes nothing in the project. Never raises: a fault
    of the run (a bad configuration, an internal error) is returned as `fault`."""
    req = request_for(root, rel)
    try:
        if text is not None:
            req = with_overlay(req, {rel: text.encode("utf-8", "surrogateescape")})
        return BufferCheck(lint(req, NO_TASKS).report)
    except Exception as exc:  # noqa: BLE001 - the editor keeps its server whatever a run does
        return BufferCheck(None, printable(f"{type(exc).__name__}: {exc}")[:400])
