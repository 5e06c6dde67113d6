"""Run a file's exact parser (plugins/exact_parsers.py) and say what its evidence is.

`judge` never raises: a parser that is missing, crashes, hangs past its share of the
deadline, overflows the output budget or answers something unreadable leaves the
candidate as it was, with the reason. A parser older than the language version the
project declares may refute (it accepted the file) but not confirm.

The parser runs in a private temporary folder (mode 0700) holding only a copy of the
source, under the run's deadline (and at most PARSE_SECONDS per run), with the run's
environment minus the variables that could make it run code.

`judge_all` judges a checker batch's files: those of a parser that checks many files in
one process (the table's `batch_argv`: gofmt) share one run, whose output is split per
file by the copies' paths (unguessable: a random folder and name, so no file's content
can write a line for another); every file whose part of it is not plainly that file's
verdict (an unattributed line, a crash, the deadline, an error after which the
one-file run reads otherwise) is judged alone, as `judge` does, so a verdict never
depends on which files shared a run.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from orchestrate_plugins import exact_identity, exact_inprocess, exact_versions
from orchestrate_plugins.exact_parsers import (
    PARSERS,
    ErrorLine,
    ExactParser,
    Garbage,
    parser_for,
)

from orchestrator.api import (
    Deadline,
    FileTarget,
    Purpose,
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
    the verdict follows from what the fallback's reuse identity holds (the bytes, the
    path, the parser's identity and, for a program, what `reuse_facts` gives: its path,
    stamp and version, and the language version the project declares), never from the
    deadline or a fault: an in-process parser that decided, or a program that decided
    or whose rejection the version rule turned into a candidate. An outcome holding it
    may be reused while those stay the same."""

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
    """(version text, why it failed) for `tool`: the version file next to it, or what
    `TOOL ARGS` answered, kept per binary (path and stamp) for the process and, for a
    feedback run, in the user cache (plugins/exact_identity.py), so an unchanged binary
    is asked once. A strict gate asks the binary itself (once per process)."""
    if not parser.version_args:
        return _file_version(tool, parser), None
    persist = ctx.purpose == Purpose.FEEDBACK
    kept = exact_identity.kept(tool, parser.version_args) if persist else None
    if kept is not None:
        return kept, None
    text, why = _probe(tool, parser.version_args, parser, ctx)
    if text is not None and persist:
        exact_identity.keep(tool, parser.version_args, text)
    return text, why


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
    return _read(
        parser,
        name,
        res.returncode,
        res.stdout.decode("utf-8", "replace"),
        res.stderr.decode("utf-8", "replace"),
        src,
    )


def _read(parser: ExactParser, name: str, rc: int | None, out: str, err: str, src: bytes) -> _Run:
    """What a finished run of `parser` on `src` says: its exit code and output."""
    if rc is not None and rc in parser.ok_exits:
        return _Run(accepted=True)
    hit = parser.limit(out, err)
    if hit is not None:
        # Stopped by its own limit, not by the file: valid XML 257 levels deep is not
        # a syntax error, whatever the exit code. No verdict; the candidate stays.
        return _Run(failure=f"{name} stopped at {hit}, not at an error in the file")
    if rc is None or rc not in parser.error_exits:
        return _Run(failure=f"{name} crashed or failed (exit {rc})")
    try:
        errors = parser.errors(out, err)
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


@dataclass(frozen=True)
class _Program:
    """A program parser as this run found it: the resolved tool, its version text and
    the identity its verdicts carry."""

    tool: str
    version: str | None
    ident: ToolIdentity


def _program(parser: ExactParser, ctx: RunContext) -> _Program | Verdict:
    """The program `parser` names, resolved and identified, or the candidate verdict
    of a missing or unusable one."""
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
    return _Program(tool, version, ident)


def _external(parser: ExactParser, target: FileTarget, src: bytes, ctx: RunContext) -> Verdict:
    prog = _program(parser, ctx)
    if isinstance(prog, Verdict):
        return prog
    decl = exact_versions.declared(parser.declares, ctx.project_root, target.path)
    folder = Path(tempfile.mkdtemp(prefix="orchestrate-exact-"))
    try:
        if any("{file}" in w for w in parser.argv):
            (folder / parser.copy_name).write_bytes(src)
        (folder / "empty.toml").write_bytes(b"")
        runs: list[_Run] = []
        for d in parser.dialects(target.path, decl.dialect if decl else None):
            runs.append(_run_one(prog.tool, parser, d, src, ctx, folder))
            if runs[-1].accepted:
                break  # one dialect accepting it refutes: the others need not run
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return _conclude(parser, prog, decl, runs, ctx)


def _identified(parser: ExactParser) -> bool:
    """Whether a program's decided verdict follows from what `reuse_facts` holds: not
    for a parser whose language version a companion program says (rustfmt's rustc)."""
    return parser.language_version is None


def _conclude(
    parser: ExactParser,
    prog: _Program,
    decl: exact_versions.Declared | None,
    runs: Sequence[_Run],
    ctx: RunContext,
) -> Verdict:
    """The verdict of a program's runs on one file (one per dialect tried)."""
    stable = _identified(parser)
    ident = prog.ident
    if any(r.accepted for r in runs):
        return Verdict(SyntaxEvidence.REFUTED, ident, stable=stable)
    failed = [r.failure for r in runs if r.failure]
    if failed:
        return Verdict(SyntaxEvidence.CANDIDATE, ident, reason=f"no verdict: {'; '.join(failed)}")
    # Every dialect rejected it: the one that read furthest is the file's dialect.
    errors = max((r.errors for r in runs), key=lambda e: e[0][0] if e else 0)
    if decl is not None and decl.version is not None:
        have = _language_version(prog.tool, prog.version, parser, ctx)
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
                stable=stable,
            )
    return Verdict(SyntaxEvidence.CONFIRMED, ident, errors, stable=stable)


def _in_process(parser: ExactParser, target: FileTarget, src: bytes) -> Verdict:
    ident = ToolIdentity(
        path=f"python:{parser.name}", version=exact_inprocess.identity(parser.name)
    )
    latin1 = parser.eight_bit and exact_inprocess.decode(src, True)[1]
    caveat = exact_inprocess.READ_AS_LATIN1 if latin1 else None
    try:
        errors = exact_inprocess.errors(parser.name, src, target.path, parser.eight_bit)
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
        return Verdict(SyntaxEvidence.CONFIRMED, ident, tuple(errors), stable=True, reason=caveat)
    return Verdict(SyntaxEvidence.REFUTED, ident, stable=True, reason=caveat)


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


#: One file to judge: its target, the bytes the grammar parsed, and its language.
Item = tuple[FileTarget, bytes, str | None]


def judge_all(items: Sequence[Item], ctx: RunContext) -> list[Verdict | None]:
    """`judge` of each item, in order. The files of a parser that checks many files in
    one process (`batch_argv`) share one run of it; a file it does not plainly judge
    there is judged alone. Never raises."""
    out: list[Verdict | None] = [None] * len(items)
    shared: dict[str, tuple[ExactParser, list[int]]] = {}
    for i, (target, src, language) in enumerate(items):
        parser = parser_for(language, target.path, src)
        if parser is not None and _shares(parser, target, src):
            shared.setdefault(parser.name, (parser, []))[1].append(i)
        else:
            out[i] = judge(target, src, language, ctx)
    for parser, where in shared.values():
        verdicts: list[Verdict | None] = [None] * len(where)
        if len(where) > 1 and not ctx.deadline.expired():
            try:
                verdicts = list(_batch(parser, [items[i] for i in where], ctx))
            except Exception:  # noqa: BLE001 - contained: each file is judged alone
                verdicts = [None] * len(where)
        for i, verdict in zip(where, verdicts, strict=True):
            target, src, language = items[i]
            if verdict is None:
                out[i] = judge(target, src, language, ctx)
            else:
                out[i] = replace(verdict, errors=_within(verdict.errors, src))
    return out


def shares(target: FileTarget, src: bytes, language: str | None) -> bool:
    """Whether `judge_all` may judge the file in a run it shares with others (its exact
    parser checks many files in one process)."""
    parser = parser_for(language, target.path, src)
    return parser is not None and _shares(parser, target, src)


def _shares(parser: ExactParser, target: FileTarget, src: bytes) -> bool:
    """Whether the file may share a run: its parser takes many files, has one dialect,
    judges the file's dialect and has no size limit the file passes."""
    return (
        bool(parser.batch_argv)
        and parser.command is not None
        and parser.cannot_judge(target.path, src) is None
        and parser.dialects(target.path, None) == ("",)
        and (parser.max_bytes is None or len(src) <= parser.max_bytes)
    )


def _batch(parser: ExactParser, items: Sequence[Item], ctx: RunContext) -> list[Verdict | None]:
    """One run of `parser` over every item's private copy: a verdict per file, None for
    a file to judge alone (see `_split`)."""
    prog = _program(parser, ctx)
    if isinstance(prog, Verdict):
        return [prog] * len(items)  # missing or unusable: the same for every file
    folder = Path(tempfile.mkdtemp(prefix="orchestrate-exact-"))
    try:
        prefix = f"{folder}{os.sep}{secrets.token_hex(8)}-"
        copies = [f"{prefix}{i}" for i in range(len(items))]
        for copy, (_target, src, _language) in zip(copies, items, strict=True):
            Path(copy).write_bytes(src)
        words: list[str] = []
        for w in parser.batch_argv:
            if w == "{files}":
                words.extend(copies)
            else:
                words.append(w)
        res = run_bounded(
            [prog.tool, *words],
            deadline=Deadline.after(min(PARSE_SECONDS, ctx.deadline.remaining())),
            stdin=None,
            cwd=folder,
            env=_env(ctx, parser),
            output_budget=min(ctx.output_budget, OUTPUT_BUDGET),
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if res.spawn_error or res.timed_out or res.over_budget:
        return [None] * len(items)
    parts = _split(
        prefix,
        len(copies),
        parser.batch_name,
        res.stdout.decode("utf-8", "replace"),
        res.stderr.decode("utf-8", "replace"),
    )
    rc = res.returncode
    if parts is None or rc is None or rc not in parser.ok_exits | parser.error_exits:
        return [None] * len(items)
    verdicts: list[Verdict | None] = []
    for (target, src, _language), (out, err) in zip(items, parts, strict=True):
        if rc in parser.ok_exits or not err:
            # The tool exits "accepted" only when it accepted every file, and says
            # nothing on stderr of a file it accepted: as it would alone.
            run = _Run(accepted=True)
        elif parser.batch_alone(err):
            verdicts.append(None)  # an error after which one file alone reads otherwise
            continue
        else:
            run = _read(parser, parser.name, rc, out, err, src)
        decl = exact_versions.declared(parser.declares, ctx.project_root, target.path)
        verdicts.append(_conclude(parser, prog, decl, [run], ctx))
    return verdicts


def _split(prefix: str, count: int, name: str, out: str, err: str) -> list[tuple[str, str]] | None:
    """Each copy's (stdout, stderr) lines of a shared run (the copies are `prefix`
    followed by their index), with the copy's path written as `name` (what the one-file
    run calls its source); None when some line is about no copy (a crash, a message of
    several lines, anything the tool did not say of one file)."""
    found: list[tuple[list[str], list[str]]] = [([], []) for _ in range(count)]
    for stream, text in enumerate((out, err)):
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        for line in lines:
            if not line.startswith(prefix):
                return None
            number, sep, rest = line[len(prefix) :].partition(":")
            if not (number.isascii() and number.isdigit()) or str(int(number)) != number:
                return None
            if int(number) >= count:
                return None
            found[int(number)][stream].append(name + sep + rest)
    return [("".join(f"{ln}\n" for ln in o), "".join(f"{ln}\n" for ln in e)) for o, e in found]


def reuse_facts(
    path: str, language: str | None, ctx: RunContext, memo: dict[str, str] | None = None
) -> str:
    """What a program parser's verdict on the file at `path` depends on besides its
    bytes, the path and the fallback's code: for each program parser of `language`,
    its resolved path, its `tool_stamp` and its version text (or that it is missing),
    and the language version the project declares for the file (the version rule).
    Empty when no program parser covers the language. `memo` keeps each program's
    part for one batch (a run resolves a tool once)."""
    memo = {} if memo is None else memo
    parts: list[str] = []
    for parser in PARSERS:
        if parser.command is None or language not in parser.languages:
            continue
        fact = memo.get(parser.name)
        if fact is None:
            fact = memo[parser.name] = _program_fact(parser, ctx)
        parts.append(fact)
        if parser.declares:
            decl = exact_versions.declared(parser.declares, ctx.project_root, path)
            said = "-" if decl is None else f"{decl.version}|{decl.where}|{decl.dialect}"
            parts.append(f"{parser.declares} declared: {said}")
    return "\n".join(parts)


def _program_fact(parser: ExactParser, ctx: RunContext) -> str:
    """One program parser's part of `reuse_facts`."""
    assert parser.command is not None
    tool = find_on_path(parser.command, ctx)
    if tool is None:
        return f"{parser.name}: not found"
    if not _identified(parser):
        return f"{parser.name}: {tool}, not identified"  # its verdicts are not stable
    try:
        stamp = exact_identity.stamp_digest(tool)
    except OSError:
        return f"{parser.name}: {tool}, unreadable"
    version, why = _version(tool, parser, ctx)
    text = version if why is None else f"unusable: {why}"
    digest = hashlib.sha256((text or "").encode("utf-8", "replace")).hexdigest()[:16]
    return f"{parser.name}: {tool} {stamp} {digest}"
