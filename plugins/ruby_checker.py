"""Ruby: native syntax evidence from the Ruby parser (`ruby -c`), line positions only.

`ruby -c` checks only its first file, so each file gets its own process with the
source on stdin (`ruby --disable=gems -c -`). The source is compiled, never run; gems
are not loaded and RUBYOPT / RUBYLIB / BUNDLE_GEMFILE / GEM_* are scrubbed. The tool is
an explicit absolute path or the first absolute PATH entry holding `ruby`.

Findings carry the line only (Ruby reports no column). The outcome says that only the
parser ran (syntax, no lint rules: RuboCop is the lint checker where a project
configures it), which Ruby version's parser produced the evidence, and when the project pins another version
(`.ruby-version`, `.tool-versions`), that they differ. A selected file whose check
times out or crashes stays `timed_out` / `tool_error`: it never falls back to the
grammar. Only a missing Ruby hands the files to the fallback tier.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from orchestrate_plugins._common import is_ruby_file

from orchestrator.api import (
    Batch,
    CheckerPlan,
    Deadline,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    ProcResult,
    ReuseIdentity,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    Unparsable,
    cached_version,
    digest_files,
    find_on_path,
    fingerprint,
    hookimpl,
    one_line,
    outcome_for_all,
    outcome_from,
    probe_version,
    run_bounded,
    settled_plan,
)

NAME = "ruby"
SCRUBBED = (
    "RUBYOPT",
    "RUBYLIB",
    "BUNDLE_GEMFILE",
    "BUNDLE_BIN_PATH",
    "GEM_HOME",
    "GEM_PATH",
    "RUBYGEMS_GEMDEPS",
)
INSTALL_HINT = "install ruby (Debian: apt-get install ruby)"
MAX_MESSAGE = 300
_DIAG = re.compile(r"^-:(\d+):\s?(.*)$")
_VERSION = re.compile(r"ruby (\d+(?:\.\d+)*)")


def find_ruby(ctx: RunContext) -> str | None:
    """The explicit absolute tool path, else the first ABSOLUTE PATH entry with `ruby`."""
    return find_on_path(NAME, ctx)


#: The files that pin a project's Ruby version, nearest first within one folder.
PIN_FILES = (".ruby-version", ".tool-versions")


def pinned_version(root: Path, rel_path: str) -> tuple[str, str] | None:
    """(version, file) the project pins nearest to the file, or None."""
    folder = (root / rel_path).parent
    while folder.is_relative_to(root):
        for name in PIN_FILES:
            try:
                text = (folder / name).read_text("utf-8", "replace")[:4096]
            except OSError:
                continue
            for line in text.splitlines():
                words = line.split()
                if name == ".tool-versions":
                    words = words[1:] if words[:1] == ["ruby"] else []
                if words:
                    version = words[0].removeprefix("ruby-")
                    return version, (folder / name).relative_to(root).as_posix()
        if folder == root:
            break
        folder = folder.parent
    return None


def pin_candidates(root: Path, rel_path: str) -> set[Path]:
    """Every place a version pin for the file may live (`pinned_version` reads the
    nearest of them), present or not: the file's folder and each one above it to `root`."""
    out: set[Path] = set()
    folder = (root / rel_path).parent
    while folder.is_relative_to(root):
        out.update(folder / name for name in PIN_FILES)
        if folder == root:
            break
        folder = folder.parent
    return out


def _differs(pinned: str, actual: str | None) -> bool:
    """True unless every dotted part of the pin matches the running version's."""
    if actual is None:
        return True
    want, have = pinned.split("."), actual.split(".")
    return want != have[: len(want)]


class RubyChecker:
    """Line-only native syntax evidence for Ruby from `ruby -c`."""

    name = NAME
    tier = Tier.NATIVE
    languages = frozenset({"ruby"})
    #: Files a strict gate materialises from the judged surface (the version pins).
    config_names = PIN_FILES
    #: Columns count Unicode code points.
    column_unit = "codepoint"

    def probe(self, root: Path) -> Probe:
        """The Ruby on the absolute PATH; Ruby has no lint config (runs on defaults)."""
        tool = find_ruby(RunContext(project_root=root, deadline=Deadline.after(0)))
        return Probe(
            found=tool is not None,
            tool_path=tool,
            version=cached_version(tool),
            hint=None if tool else INSTALL_HINT,
        )

    def claims(self, target: FileTarget) -> bool:
        return is_ruby_file(target)

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        if not targets:
            return CheckerPlan()
        tool = find_ruby(ctx)
        if tool is None:
            return settled_plan(
                self,
                targets,
                ScopeStatus.MISSING,
                "ruby not found (explicit path or an absolute PATH entry)",
                hint=INSTALL_HINT,
                falls_back=True,
            )
        probe = probe_version(tool, ctx.deadline)
        ident = ToolIdentity(path=tool, version=probe.version)
        if probe.version is None:
            status = ScopeStatus.TIMED_OUT if probe.timed_out else ScopeStatus.TOOL_ERROR
            reason = f"ruby --version failed ({probe.detail}): the tool cannot run"
            if probe.timed_out:
                reason = "ruby --version did not answer before the run's deadline"
            return CheckerPlan(
                settled=tuple(outcome_for_all(self, targets, status, reason, tool=ident))
            )
        return CheckerPlan(batches=(Batch(tuple(targets), ident, label="ruby -c"),))

    def reuse_identity(self, batch: Batch, ctx: RunContext) -> ReuseIdentity:
        """The batch's identity for reuse: the tool, and every version pin that may
        govern one of its files (a pin changes the note a checked file carries)."""
        pins = set().union(*(pin_candidates(ctx.project_root, t.path) for t in batch.targets))
        return ReuseIdentity(tool=batch.data, config_digest=digest_files(pins), rules="ruby -c")

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        ident: ToolIdentity = batch.data
        base = dict(ctx.env) if ctx.env is not None else dict(os.environ)
        env = {k: v for k, v in base.items() if k not in SCRUBBED}
        workers = max(1, min(ctx.jobs, len(batch.targets)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda t: self._one(t, ident, env, ctx), batch.targets))

    def _one(
        self, t: FileTarget, ident: ToolIdentity, env: dict[str, str], ctx: RunContext
    ) -> FileOutcome:
        m = _VERSION.search(ident.version or "")
        version = m.group(1) if m else None
        note = (
            f"syntax only: the parser of ruby {version or '?'} ran (ruby -c, source on stdin),"
            " no lint rules"
        )
        pin = pinned_version(ctx.project_root, t.path)
        hint = None
        if pin is not None and _differs(pin[0], version):
            note += f"; the project pins ruby {pin[0]} in {pin[1]}: they differ"
            hint = f"confirm with ruby {pin[0]} (the project's pinned version)"
        base: dict[str, Any] = {
            "path": t.path,
            "checker": NAME,
            "tool": ident,
            "language": t.language,
            "config_files": (pin[1],) if pin else (),
        }
        try:
            source = t.read_bytes()
        except OSError as exc:
            reason = f"cannot read file: {exc.strerror}"
            return FileOutcome(status=ScopeStatus.TOOL_ERROR, reason=reason, **base)
        res = run_bounded(
            [str(ident.path), "--disable=gems", "-c", "-"],
            deadline=ctx.deadline,
            stdin=source,
            cwd=ctx.project_root,
            env=env,
            output_budget=min(ctx.output_budget, 1024 * 1024),
        )
        common = {k: v for k, v in base.items() if k not in ("path", "checker", "language")}
        (outcome,) = outcome_from(
            res,
            [t],
            checker=NAME,
            label="ruby -c",
            parse=lambda r: [self._parsed(t, source, r, base, note, hint)],
            **common,
        )
        return outcome

    def _parsed(
        self,
        t: FileTarget,
        source: bytes,
        res: ProcResult,
        base: dict[str, Any],
        note: str,
        hint: str | None,
    ) -> FileOutcome:
        """`ruby -c`: exit 0 with "Syntax OK", or exit 1 with at least one error line."""
        findings = self._findings(t, source, res.stderr)
        errors = [f for f in findings if f.severity == Severity.ERROR]
        sane = (res.returncode == 0 and b"Syntax OK" in res.stdout) or (
            res.returncode == 1 and errors
        )
        if not sane:
            raise Unparsable(one_line(res.stderr) or "no diagnostics")
        return FileOutcome(
            status=ScopeStatus.CHECKED,
            reason=note,
            hint=hint,
            findings=tuple(findings),
            coherent=True,
            exit_code=res.returncode,
            duration_ms=res.duration_ms,
            **base,
        )

    def _findings(self, t: FileTarget, source: bytes, stderr: bytes) -> list[Finding]:
        lines = source.decode("utf-8", "replace").splitlines()
        out: list[Finding] = []
        for raw in stderr.decode("utf-8", "replace").splitlines():
            m = _DIAG.match(raw)
            if m is None:
                continue  # code excerpts and caret lines
            line, text = int(m.group(1)), m.group(2)
            warning = text.startswith("warning:")
            rule = "ruby/warning" if warning else "ruby/syntax"
            anchor = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            out.append(
                Finding(
                    checker=NAME,
                    rule=rule,
                    severity=Severity.WARNING if warning else Severity.ERROR,
                    path=t.path,
                    line=max(1, line),
                    # Ruby gives no column: none is invented.
                    column=None,
                    message=one_line(text, MAX_MESSAGE),
                    blocking=not warning,
                    fingerprint=fingerprint(NAME, rule, t.path, anchor),
                )
            )
        return out


@hookimpl
def orchestrate_checkers() -> list[Any]:
    return [RubyChecker()]
