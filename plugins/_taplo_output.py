"""Read `taplo fmt --check --diff`'s report into findings (the taplo recipe's reader).

taplo's log lines (stderr, under `RUST_LOG=warn`, which the recipe pins) are written by
a logger that loses its last lines when taplo exits right after them: run 40 times over
30 unformatted files, 5 runs lacked one or two `the file is not properly formatted`
lines. So the files it would reformat are read from stdout, where `--diff` writes one
patch per file, never lost (`diff a//abs/a.toml b//abs/a.toml`, `--- a//abs/a.toml`,
`+++ b//abs/a.toml`, then hunks whose context lines are the file's own: a multi-line
string may forge a header, which names another file, a result for a file not asked
about: `tool_error`, never a finding hidden; a log naming more files not formatted
than the patches is `Unparsable` too), and the syntax errors from its codespan
diagnostics (stderr, written as they come), which span lines:

    error: invalid TOML
      ┌─ /abs/b.toml:2:3
      │ ... (context lines)
    ERROR operation failed error=some files were not properly formatted

One finding `not-formatted` per file taplo would reformat (taplo names no position:
the finding has no line), one per diagnostic at its position (rule: its title, as a
slug: `invalid-toml`); the log's own `not properly formatted` and closing lines say
nothing more. Any other log line (`WARN invalid configuration file ...`: taplo goes on
with its defaults) is `Unparsable`: the files are `tool_error`, never `checked` under
rules nobody chose; so is an exit 1 without any finding.
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
_UNFORMATTED = re.compile(r"^ERROR (?:\S+: )?the file is not properly formatted path=")
_PATCH = re.compile(r"^diff a/(?P<path>.+) b/(?P=path)$")
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


def taplo_findings(
    res: ProcResult, root: Path, targets: Sequence[FileTarget] = ()
) -> dict[str, list[Finding]]:
    """The findings per project-relative path in one `taplo fmt --check --diff` run's
    stdout and stderr (module docstring); raises `Unparsable` for a report it does not
    know, and for a batch with a file name holding a line break (its patch header
    spans lines: no header of it could be told from a forged one)."""
    if any("\n" in t.path or "\r" in t.path for t in targets):
        raise Unparsable("a file name holding a line break: taplo's patch for it is not read")
    try:
        patches = res.stdout.decode("utf-8")
        text = res.stderr.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unparsable("output that is not UTF-8") from exc
    found: dict[str, list[Finding]] = {}
    lines = patches.splitlines()
    for at, raw in enumerate(lines):
        # A patch's header is three lines; its hunks' context lines are the file's own.
        m = _PATCH.match(raw)
        if m and lines[at + 1 : at + 3] == [f"--- a/{m['path']}", f"+++ b/{m['path']}"]:
            path = local_path(m["path"], root)
            found.setdefault(path, []).append(
                _finding(path, UNFORMATTED_RULE, "the file is not properly formatted", None, None)
            )
    # Its log may lose lines, never invent one: a log naming more files not formatted
    # than the patches do means a patch was not read (a file name holding a line
    # break splits its header): `Unparsable`, never that file's finding dropped.
    logged = {raw for raw in text.splitlines() if _UNFORMATTED.match(raw)}
    if len(logged) > len(found):
        raise Unparsable(
            f"taplo's log names {len(logged)} files not formatted, its patches {len(found)}"
        )
    title: str | None = None
    for raw in text.splitlines():
        if _UNFORMATTED.match(raw) or _CLOSING.match(raw):
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
