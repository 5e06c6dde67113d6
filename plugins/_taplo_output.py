"""Read `taplo fmt --check`'s report into findings (the taplo recipe's reader).

taplo prints to stderr, as log lines (under `RUST_LOG=warn`, which the recipe pins) and
codespan diagnostics that span lines, which no recipe reader reads:

    ERROR the file is not properly formatted path="/abs/a.toml"
    error: invalid TOML
      ┌─ /abs/b.toml:2:3
      │ ... (context lines)
    ERROR operation failed error=some files were not properly formatted

One finding `not-formatted` per file taplo would reformat (taplo names no position:
the finding has no line), one per diagnostic at its position (rule: its title, as a
slug: `invalid-toml`), and the closing `operation failed` line says nothing more. Any
other log line (`WARN invalid configuration file ...`: taplo goes on with its
defaults) is `Unparsable`: the files are `tool_error`, never `checked` under rules
nobody chose; so is an exit 1 without any finding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from orchestrator.api import (
    FileTarget,
    Finding,
    ProcResult,
    Severity,
    Unparsable,
    fingerprint,
    local_path,
    one_line,
)

NAME = "taplo"
UNFORMATTED_RULE = "not-formatted"
_UNFORMATTED = re.compile(r'^ERROR the file is not properly formatted path="(?P<path>[^"]+)"$')
_CLOSING = re.compile(r"^ERROR operation failed error=")
_LOG = re.compile(r"^\s*(?:ERROR|WARN|INFO|DEBUG|TRACE)\b")
_TITLE = re.compile(r"^(?P<level>error|warning): (?P<message>.+)$")
_WHERE = re.compile(r"^\s*┌─ (?P<path>.+):(?P<line>\d+):(?P<column>\d+)$")


def _finding(path: str, rule: str, message: str, line: int | None, column: int | None) -> Finding:
    text = one_line(message, 300)
    return Finding(
        checker=NAME,
        rule=rule,
        severity=Severity.ERROR,
        tool_severity="error",
        path=path,
        line=line,
        column=column,
        message=text,
        blocking=True,
        fingerprint=fingerprint(NAME, rule, path, text),
    )


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or NAME


def taplo_findings(res: ProcResult, root: Path) -> dict[str, list[Finding]]:
    """The findings per project-relative path in one `taplo fmt --check` run's stderr
    (module docstring); raises `Unparsable` for a report it does not know."""
    try:
        text = res.stderr.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unparsable("output that is not UTF-8") from exc
    found: dict[str, list[Finding]] = {}
    title: str | None = None
    for raw in text.splitlines():
        if m := _UNFORMATTED.match(raw):
            path = local_path(m["path"], root)
            found.setdefault(path, []).append(
                _finding(path, UNFORMATTED_RULE, "the file is not properly formatted", None, None)
            )
        elif _CLOSING.match(raw):
            continue
        elif _LOG.match(raw):
            raise Unparsable(f"taplo reported: {one_line(raw, 160)}")
        elif m := _TITLE.match(raw):
            title = m["message"]
        elif (m := _WHERE.match(raw)) and title is not None:
            path = local_path(m["path"], root)
            found.setdefault(path, []).append(
                _finding(path, _slug(title), title, int(m["line"]), int(m["column"]))
            )
            title = None
    if res.returncode != 0 and not found:
        raise Unparsable(f"exit {res.returncode} without any finding")
    return found


def project_root(targets: Sequence[FileTarget]) -> Path:
    """The project root of a batch: where each target's `abs_path` holds its `path`."""
    t = targets[0]
    abs_posix = t.abs_path.as_posix()
    return Path(abs_posix[: -len(t.path) - 1]) if abs_posix.endswith("/" + t.path) else Path.cwd()
