"""Run a file's exact parser (plugins/exact_parsers.py) and say what its evidence is.

`judge` never raises: a parser that is missing, crashes, hangs past its share of the
deadline, overflows the output budget or answers something unreadable leaves the
candidate as it was, with the reason. A parser older than the language version the
project declares may refute (it accepted the file) but not confirm.

The parser runs in a private temporary folder (mode 0700) holding only a copy of the
source, under the run's deadline (and at most PARSE_SECONDS per run), with the run's
environment minus the variables that could make it run code.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from orchestrate_plugins import exact_inprocess, exact_versions
from orchestrate_plugins.exact_parsers import ErrorLine, ExactParser, Garbage, parser_for

from orchestrator.api import (
    Deadline,
    FileTarget,
    RunContext,
    SyntaxEvidence,
    ToolIdentity,
    find_on_path,
    one_line,
    probe_version,
    run_bounded,
)

#: The most one parser run may take (less when the run's deadline comes sooner).
PARSE_SECONDS = 10.0
#: The most output one parser run may give.
OUTPUT_BUDGET = 1024 * 1024
#: Variables every exact parser loses (besides the entry's own `scrub`).
SCRUB_ALWAYS = ("BASH_ENV", "ENV", "NODE_OPTIONS", "PHPRC", "PHP_INI_SCAN_DIR")


@dataclass(frozen=True)
class Verdict:
    """The exact tier's word on one file.

    `evidence` is CONFIRMED (every dialect rejected it: `errors` holds where), REFUTED
    (the parser accepted it), or CANDIDATE (no verdict: `reason` says why). `stable`:
    the verdict follows from the bytes, the path and the parser's identity alone (an
    in-process parser that decided: no program, no declared language version, no
    deadline), so an outcome holding it may be reused while those stay the same."""

    evidence: SyntaxEvidence
    parser: ToolIdentity | None = None
    errors: tuple[ErrorLine, ...] = ()
    reason: str | None = None
    stable: bool = False

    @property
    def label(self) -> str:
        """`<name> <version>` of the parser, for messages."""
        if self.parser is None:
            return "no exact parser"
        return self.parser.version or self.parser.path or "?"


def _file_version(tool: str, parser: ExactParser) -> str | None:
    """The first line of the version file next to the (resolved) tool, or None."""
    if not parser.version_file:
        return None
    base = Path(os.path.realpath(tool)).parent
    try:
        text = (base / parser.version_file).read_text("utf-8", "replace")[:256]
    except OSError:
        return None
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line or None


def _probe(
    tool: str, args: tuple[str, ...], parser: ExactParser, ctx: RunContext
) -> tuple[str | None, str | None]:
    """(first line of `tool ARGS`, why it failed), run in a private folder with the
    parser's environment (a rustup proxy reads no project toolchain file)."""
    with tempfile.TemporaryDirectory(prefix="orchestrate-exact-") as folder:
        probe = probe_version(
            tool, ctx.deadline, args, cap=PARSE_SECONDS, cwd=Path(folder), env=_env(ctx, parser)
        )
    if probe.version is None:
        return None, f"{Path(tool).name} {' '.join(args)} failed ({probe.detail})"
    return probe.version, None


def _version(tool: str, parser: ExactParser, ctx: RunContext) -> tuple[str | None, str | None]:
    """(version text, why it failed) for `tool`; a text is cached per (path, mtime)."""
    if not parser.version_args:
        return _file_version(tool, parser), None
    return _probe(tool, parser.version_args, parser, ctx)


def _language_version(
    tool: str, version: str | None, parser: ExactParser, ctx: RunContext
) -> str | None:
    """The language version the parser implements: its own version, or what the
    companion next to it says (`rustc --version` beside rustfmt); None when unknown."""
    if parser.language_version is None:
        return version
    name, *args = parser.language_version
    companion = Path(tool).parent / name
    if not (companion.is_file() and os.access(companion, os.X_OK)):
        return None
    return _probe(str(companion), tuple(args), parser, ctx)[0]


def _number(parser: ExactParser, text: str | None) -> str:
    """The version number in a version text (`GNU bash, version 5.2.15(1)` -> `5.2.15`)."""
    m = re.search(parser.version_pattern, text or "")
    if m:
        return m.group(1)
    return one_line(text, 60) if text else "version unknown"


def _env(ctx: RunContext, parser: ExactParser) -> dict[str, str]:
    base = dict(ctx.env) if ctx.env is not None else dict(os.environ)
    drop = set(SCRUB_ALWAYS) | set(parser.scrub)
    env = {k: v for k, v in base.items() if k not in drop}
    env["LC_ALL"] = "C"
    return env


@dataclass(frozen=True)
class _Run:
    accepted: bool = False
    errors: tuple[ErrorLine, ...] = ()
    failure: str | None = None


def _argv(tool: str, parser: ExactParser, dialect: str, folder: Path) -> list[str]:
    words = []
    for w in parser.argv:
        w = w.replace("{dialect}", dialect)
        w = w.replace("{file}", str(folder / parser.copy_name))
        w = w.replace("{config}", str(folder / "empty.toml"))
        words.append(w)
    return [tool, *words]


def _run_one(
    tool: str, parser: ExactParser, dialect: str, src: bytes, ctx: RunContext, folder: Path
) -> _Run:
    uses_file = any("{file}" in w for w in parser.argv)
    limit = Deadline.after(min(PARSE_SECONDS, ctx.deadline.remaining()))
    res = run_bounded(
        _argv(tool, parser, dialect, folder),
        deadline=limit,
        stdin=None if uses_file else src,
        cwd=folder,
        env=_env(ctx, parser),
        output_budget=min(ctx.output_budget, OUTPUT_BUDGET),
    )
    name = f"{parser.name}" + (f" ({dialect})" if dialect else "")
    if res.spawn_error:
        return _Run(failure=f"{name} could not start ({one_line(res.spawn_error, 80)})")
    if res.timed_out:
        return _Run(failure=f"{name} gave no verdict within {limit_seconds(ctx)} s")
    if res.over_budget:
        return _Run(failure=f"{name} output over budget")
    rc = res.returncode
    if rc is not None and rc in parser.ok_exits:
        return _Run(accepted=True)
    hit = parser.limit(res.stdout.decode("utf-8", "replace"), res.stderr.decode("utf-8", "replace"))
    if hit is not None:
        # Stopped by its own limit, not by the file: valid XML 257 levels deep is not
        # a syntax error, whatever the exit code. No verdict; the candidate stays.
        return _Run(failure=f"{name} stopped at {hit}, not at an error in the file")
    if rc is None or rc not in parser.error_exits:
        return _Run(failure=f"{name} crashed or failed (exit {rc})")
    try:
        errors = parser.errors(
            res.stdout.decode("utf-8", "replace"), res.stderr.decode("utf-8", "replace")
        )
    except Garbage as exc:
        return _Run(failure=f"{name} exit {rc} without a located error ({exc})")
    kept = tuple(e for e in errors if not parser.discounted(e, src))
    if not kept:
        # The parser's text quotes the source (an entity name): it stays out of reasons.
        return _Run(failure=f"{name}: its errors depend on what it does not read")
    return _Run(errors=kept)


def limit_seconds(ctx: RunContext) -> int:
    """The per-run limit as whole seconds, for messages."""
    return int(min(PARSE_SECONDS, max(0.0, ctx.deadline.remaining())) + 0.5)


def _external(parser: ExactParser, target: FileTarget, src: bytes, ctx: RunContext) -> Verdict:
    assert parser.command is not None
    tool = find_on_path(parser.command, ctx)
    if tool is None:
        hint = f" (Debian: apt-get install {parser.package})" if parser.package else ""
        return Verdict(
            SyntaxEvidence.CANDIDATE,
            reason=f"no exact parser: {parser.command} not found{hint}",
        )
    version, why = _version(tool, parser, ctx)
    ident = ToolIdentity(path=tool, version=f"{parser.name} {_number(parser, version)}")
    if why:
        return Verdict(SyntaxEvidence.CANDIDATE, ident, reason=f"exact parser unusable: {why}")
    decl = exact_versions.declared(parser.declares, ctx.project_root, target.path)
    folder = Path(tempfile.mkdtemp(prefix="orchestrate-exact-"))
    try:
        if any("{file}" in w for w in parser.argv):
            (folder / parser.copy_name).write_bytes(src)
        (folder / "empty.toml").write_bytes(b"")
        runs: list[_Run] = []
        for d in parser.dialects(target.path, decl.dialect if decl else None):
            runs.append(_run_one(tool, parser, d, src, ctx, folder))
            if runs[-1].accepted:
                break  # one dialect accepting it refutes: the others need not run
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if any(r.accepted for r in runs):
        return Verdict(SyntaxEvidence.REFUTED, ident)
    failed = [r.failure for r in runs if r.failure]
    if failed:
        return Verdict(SyntaxEvidence.CANDIDATE, ident, reason=f"no verdict: {'; '.join(failed)}")
    # Every dialect rejected it: the one that read furthest is the file's dialect.
    errors = max((r.errors for r in runs), key=lambda e: e[0][0] if e else 0)
    if decl is not None and decl.version is not None:
        have = _language_version(tool, version, parser, ctx)
        too_old = exact_versions.older(have, decl.version)
        what = None
        if too_old is None:
            what = "not known to be as new as"
        elif too_old:
            what = "older than"
        elif parser.removes_syntax and exact_versions.other_major(have, decl.version):
            what = "of another major version than"
        if what:
            return Verdict(
                SyntaxEvidence.CANDIDATE,
                ident,
                errors,
                reason=f"{ident.version} rejects it but is {what} the version {decl.version} "
                f"declared in {decl.where}: it may refute, not confirm",
            )
    return Verdict(SyntaxEvidence.CONFIRMED, ident, errors)


def _in_process(parser: ExactParser, target: FileTarget, src: bytes) -> Verdict:
    ident = ToolIdentity(
        path=f"python:{parser.name}", version=exact_inprocess.identity(parser.name)
    )
    try:
        errors = exact_inprocess.errors(parser.name, src, target.path)
    except exact_inprocess.Lenient as exc:
        return Verdict(SyntaxEvidence.REFUTED, ident, reason=str(exc), stable=True)
    except exact_inprocess.TooDeep as exc:
        # The parser's own limit (Python's recursion, libyaml's depth), not the file's.
        return Verdict(
            SyntaxEvidence.CANDIDATE, ident, reason=f"no verdict: {exc}, not an error in the file"
        )
    except Exception as exc:  # noqa: BLE001 - a parser fault is no verdict, never a crash
        return Verdict(
            SyntaxEvidence.CANDIDATE,
            ident,
            reason=f"no verdict: {parser.name} failed ({type(exc).__name__})",
        )
    if errors:
        return Verdict(SyntaxEvidence.CONFIRMED, ident, tuple(errors), stable=True)
    return Verdict(SyntaxEvidence.REFUTED, ident, stable=True)


def _within(errors: tuple[ErrorLine, ...], src: bytes) -> tuple[ErrorLine, ...]:
    """`errors` at lines `src` has: an error a parser puts past the last line (the end
    of the stream) points at the last line, without a column."""
    last = max(1, src.count(b"\n") + (0 if src.endswith(b"\n") else 1))
    return tuple(
        (max(1, line), col, msg) if 1 <= line <= last else (min(max(1, line), last), None, msg)
        for line, col, msg in errors
    )


def judge(target: FileTarget, src: bytes, language: str | None, ctx: RunContext) -> Verdict | None:
    """The exact parser's verdict on `src` (the bytes the grammar parsed), or None when no
    exact parser covers the file; its errors point at lines the file has. Never raises."""
    verdict = _judge(target, src, language, ctx)
    if verdict is None or not verdict.errors:
        return verdict
    return replace(verdict, errors=_within(verdict.errors, src))


def _judge(target: FileTarget, src: bytes, language: str | None, ctx: RunContext) -> Verdict | None:
    parser = parser_for(language, target.path, src)
    if parser is None:
        return None
    dialect = parser.cannot_judge(target.path, src)
    if dialect and not parser.judges_if_accepted:
        return Verdict(SyntaxEvidence.CANDIDATE, reason=f"no exact verdict: {dialect}")
    verdict = _run_parser(parser, target, src, ctx)
    if dialect and verdict.evidence == SyntaxEvidence.CONFIRMED:
        # A template may parse once rendered: its rejection is no evidence.
        return Verdict(SyntaxEvidence.CANDIDATE, reason=f"no exact verdict: {dialect}")
    return verdict


def _run_parser(parser: ExactParser, target: FileTarget, src: bytes, ctx: RunContext) -> Verdict:
    if ctx.deadline.expired():
        return Verdict(SyntaxEvidence.CANDIDATE, reason="no verdict: deadline reached")
    if parser.max_bytes is not None and len(src) > parser.max_bytes:
        return Verdict(
            SyntaxEvidence.CANDIDATE,
            reason=f"no verdict: {parser.name} reads at most {parser.max_bytes // 1024} KiB "
            "in process (it cannot be stopped at the deadline)",
        )
    try:
        if parser.command is None:
            return _in_process(parser, target, src)
        return _external(parser, target, src, ctx)
    except Exception as exc:  # noqa: BLE001 - contained: the candidate stays as it was
        return Verdict(
            SyntaxEvidence.CANDIDATE,
            reason=one_line(f"no verdict: {parser.name}: {type(exc).__name__}: {exc}"),
        )
