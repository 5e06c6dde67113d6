"""RuboCop fidelity: orchestrate reports what `rubocop --format json`, run in the project
the way the project runs it (cwd = the root, no `--config`), reports; nothing in the
project changes. Real RuboCop throughout; fakes only where a test says so."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from helpers import deadline_passes_at, fail_or_skip, hang_marker, new_repo, run_cli
from orchestrate_plugins.rubocop_checker import INSTALL_HINT, RubocopChecker

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.model.report import Report
from orchestrator.vocab import ScopeStatus

Row = tuple[str, int, str]
CONFIG = """\
inherit_from: config/base.yml
AllCops:
  NewCops: disable
  SuggestExtensions: false
  UseCache: true
  CacheRootDirectory: tmp/rubocop
  Exclude:
    - 'gen/**/*'
Style/StringLiterals:
  Enabled: false
Layout/LineLength:
  Max: 40
"""
BASE = """\
Style/FrozenStringLiteralComment:
  Enabled: false
Metrics/MethodLength:
  Max: 2
"""
A_RB = 'def foo\n  x = "a"\n  y = 1\n  puts "this is a very long line that exceeds forty"\nend\n'
FILES = {
    ".rubocop.yml": CONFIG,
    "config/base.yml": BASE,
    "lib/a.rb": A_RB,
    "lib/b.rb": "x=1\n",
    "lib/clean.rb": "puts 'ok'\n",
    "gen/g.rb": "x=1\n",
}


@pytest.fixture(autouse=True)
def _no_reuse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORCHESTRATE_REUSE", "0")


def _rubocop() -> str:
    import shutil

    found = shutil.which("rubocop")
    if found is None or not shutil.which("ruby"):
        fail_or_skip(f"rubocop is required for this test: {INSTALL_HINT}")
    assert found
    return found


def _repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository with `files` committed."""
    _rubocop()
    new_repo(root, files)
    subprocess.run(["git", "commit", "-qm", "shape"], cwd=root, check=True)
    return root


def _state(root: Path) -> tuple[dict[str, tuple[bytes, int]], str]:
    files = {}
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for n in names:
            p = Path(dirpath) / n
            files[p.relative_to(root).as_posix()] = (p.read_bytes(), p.stat().st_mtime_ns)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=root, capture_output=True, text=True
    ).stdout
    return files, status


def _native(root: Path, tmp: Path, *args: str, stdin: bytes | None = None) -> set[Row]:
    """`rubocop --format json` in the project root, the way the project runs it (its
    result cache redirected out of the way)."""
    env = dict(os.environ, RUBOCOP_CACHE_ROOT=str(tmp / "native-cache"))
    proc = subprocess.run(
        [_rubocop(), "--format", "json", *args],
        cwd=root,
        capture_output=True,
        input=stdin,
        env=env,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()
    data = json.loads(proc.stdout)
    return {
        (f["path"], o["location"]["start_line"], o["cop_name"])
        for f in data["files"]
        for o in f["offenses"]
    }


def _ours(report: Report) -> set[Row]:
    return {(f.path, f.line or 0, f.rule) for f in report.findings if f.checker == "rubocop"}


def _scope(report: Report, path: str, checker: str = "rubocop"):  # type: ignore[no-untyped-def]
    (scope,) = [s for s in report.scopes if s.path == path and s.checker == checker]
    return scope


def _lint(root: Path, *paths: str, env: dict[str, str] | None = None) -> Report:
    return run_lint(LintRequest(project_root=root, paths=list(paths), cwd=root, env=env))


def _plan_run(root: Path, targets: list[FileTarget], ctx: RunContext) -> dict[str, FileOutcome]:
    checker = RubocopChecker()
    plan = checker.plan(targets, ctx)
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)
    return {o.path: o for o in outs}


def _ctx(root: Path, **kw: object) -> RunContext:
    return RunContext(project_root=root, deadline=Deadline.after(60), **kw)  # type: ignore[arg-type]


def test_findings_equal_native_rubocop_and_nothing_changes(tmp_path: Path) -> None:
    """Cops enabled and disabled, an Exclude, a local inherit_from and a cache folder
    inside the project: the same (path, line, cop) as `rubocop --format json`, the
    excluded file `not_run`, and no byte, mtime or git status of the project changed."""
    root = _repo(tmp_path / "r", FILES)
    before = _state(root)
    report = _lint(root, "lib", "gen")
    assert _state(root) == before, "the run changed the project"
    assert not (root / "tmp").exists()
    native = _native(root, tmp_path)
    assert _ours(report) == native
    assert ("lib/a.rb", 1, "Metrics/MethodLength") in native  # the inherited limit
    assert ("lib/a.rb", 4, "Layout/LineLength") in native
    assert not any(rule == "Style/StringLiterals" for _, _, rule in native)
    assert _scope(report, "gen/g.rb").status == ScopeStatus.NOT_RUN
    assert "Exclude" in (_scope(report, "gen/g.rb").reason or "")
    a = _scope(report, "lib/a.rb")
    assert a.status == ScopeStatus.CHECKED
    assert a.config_files == [".rubocop.yml", "config/base.yml"]
    assert a.reason and a.reason.startswith("rubocop 1.") and "config/base.yml" in a.reason
    assert _scope(report, "lib/clean.rb").status == ScopeStatus.CHECKED
    # The parser check still runs beside it, and says it is syntax only.
    ruby = _scope(report, "lib/a.rb", "ruby")
    assert ruby.status == ScopeStatus.CHECKED and "syntax only" in (ruby.reason or "")


def test_staged_content_over_stdin_equals_native_stdin(tmp_path: Path) -> None:
    root = _repo(tmp_path / "r", FILES)
    before = _state(root)
    staged = b"def bar\n  z = 2\nend\n"
    target = FileTarget(path="lib/b.rb", abs_path=root / "lib/b.rb", content=staged)
    out = _plan_run(root, [target], _ctx(root))["lib/b.rb"]
    assert _state(root) == before
    assert out.status == ScopeStatus.CHECKED, out.reason
    got = {(f.path, f.line, f.rule) for f in out.findings}
    assert got == _native(root, tmp_path, "--stdin", "lib/b.rb", stdin=staged)
    assert ("lib/b.rb", 2, "Lint/UselessAssignment") in got
    excluded = FileTarget(path="gen/new.rb", abs_path=root / "gen/new.rb", content=b"x=1\n")
    assert _plan_run(root, [excluded], _ctx(root))["gen/new.rb"].status == ScopeStatus.NOT_RUN


def test_configured_but_absent_is_missing_with_hint(tmp_path: Path) -> None:
    root = tmp_path / "r"
    new_repo(root, {".rubocop.yml": "AllCops:\n  NewCops: disable\n", "a.rb": "x = 1\n"})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    ctx = _ctx(root, env=dict(os.environ, PATH=str(empty)))
    target = FileTarget(path="a.rb", abs_path=root / "a.rb")
    assert RubocopChecker().claims(target)
    out = _plan_run(root, [target], ctx)["a.rb"]
    assert out.status == ScopeStatus.MISSING and out.hint == INSTALL_HINT
    assert "rubocop not found" in (out.reason or "")


def test_missing_rubocop_keeps_the_parser_verdict_and_no_fallback(tmp_path: Path) -> None:
    """ruby installed, rubocop not: the file has the parser's native verdict and a
    rubocop `missing` gap, and is not handed to the grammar as well."""
    _rubocop()
    import shutil

    ruby = shutil.which("ruby")
    assert ruby
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ruby").symlink_to(ruby)
    root = tmp_path / "r"
    new_repo(root, {".rubocop.yml": "AllCops:\n  NewCops: disable\n", "a.rb": "x = 1\n"})
    report = _lint(root, "a.rb", env=dict(os.environ, PATH=str(bin_dir)))
    by_checker = {s.checker: s.status for s in report.scopes if s.path == "a.rb"}
    assert by_checker == {"ruby": ScopeStatus.CHECKED, "rubocop": ScopeStatus.MISSING}


def test_without_rubocop_yml_rubocop_does_not_apply(tmp_path: Path) -> None:
    """No `.rubocop.yml`: no RuboCop scope (not a gap), the ruby scope says that only the
    parser ran, and the coverage is complete."""
    root = _repo(tmp_path / "r", {"lib/a.rb": "x=1\n"})
    report = _lint(root, "lib/a.rb")
    assert [s.checker for s in report.scopes] == ["ruby"]
    ruby = _scope(report, "lib/a.rb", "ruby")
    assert ruby.status == ScopeStatus.CHECKED
    assert ruby.reason and ruby.reason.startswith("syntax only: the parser of ruby")
    assert report.coverage.complete
    assert RubocopChecker().probe(root).state == "available"


def test_gemfile_lock_pin_mismatch_is_said(tmp_path: Path) -> None:
    lock = "GEM\n  remote: https://rubygems.org/\n  specs:\n    rubocop (1.50.2)\n      json (~> 2.3)\n"
    files = {".rubocop.yml": "AllCops:\n  NewCops: disable\n", "Gemfile.lock": lock, "a.rb": "1\n"}
    root = _repo(tmp_path / "r", files)
    scope = _scope(_lint(root, "a.rb"), "a.rb")
    assert scope.status == ScopeStatus.CHECKED
    reason = scope.reason or ""
    assert "Gemfile.lock pins rubocop 1.50.2: rubocop " in reason and "they differ" in reason
    assert "findings may differ from the project's bundle" in reason


def test_remote_inherit_from_is_refused_before_any_fetch(tmp_path: Path) -> None:
    """RuboCop would download the URL and write `.rubocop-https---...` beside the config:
    refused (a failed check), nothing run, nothing written."""
    cfg = "inherit_from:\n  - https://example.invalid/rubocop.yml\n"
    root = _repo(tmp_path / "r", {".rubocop.yml": cfg, "a.rb": "x = 1\n"})
    before = _state(root)
    scope = _scope(_lint(root, "a.rb"), "a.rb")
    assert _state(root) == before
    assert scope.status == ScopeStatus.TOOL_ERROR
    assert "remote config" in (scope.reason or "") and scope.hint and "vendor" in scope.hint


def test_require_of_a_gem_not_installed_is_a_bounded_tool_error(tmp_path: Path) -> None:
    cfg = "require:\n  - rubocop-not-installed-anywhere\n"
    root = _repo(tmp_path / "r", {".rubocop.yml": cfg, "a.rb": "x = 1\n"})
    scope = _scope(_lint(root, "a.rb"), "a.rb")
    assert scope.status == ScopeStatus.TOOL_ERROR
    reason = scope.reason or ""
    assert "cannot load such file -- rubocop-not-installed-anywhere" in reason
    assert "feature_loader.rb" not in reason and len(reason) <= 200  # no backtrace
    assert scope.hint and "bundle install" in scope.hint


def test_require_of_a_local_file_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    files = {
        ".rubocop.yml": "require:\n  - ./cops/mine.rb\n",
        "cops/mine.rb": f"File.write({str(marker)!r}, 'x')\n",
        "a.rb": "x = 1\n",
    }
    root = _repo(tmp_path / "r", files)
    scope = _scope(_lint(root, "a.rb"), "a.rb")
    assert scope.status == ScopeStatus.TOOL_ERROR
    assert "not an installed gem" in (scope.reason or "")
    assert not marker.exists()


@pytest.mark.parametrize("options", ["-a\n", "--out report.txt\n", "--autocorrect-all\n"])
def test_options_file_asking_to_write_is_refused(tmp_path: Path, options: str) -> None:
    files = {".rubocop.yml": "AllCops:\n  NewCops: disable\n", ".rubocop": options, "a.rb": "x=1\n"}
    root = _repo(tmp_path / "r", files)
    before = _state(root)
    scope = _scope(_lint(root, "a.rb"), "a.rb")
    assert _state(root) == before
    assert scope.status == ScopeStatus.TOOL_ERROR
    assert ".rubocop" in (scope.reason or "")


def test_display_only_options_file_is_honoured(tmp_path: Path) -> None:
    files = {".rubocop.yml": "AllCops:\n  NewCops: disable\n", ".rubocop": "-D\n", "a.rb": "x=1\n"}
    root = _repo(tmp_path / "r", files)
    report = _lint(root, "a.rb")
    assert _scope(report, "a.rb").status == ScopeStatus.CHECKED
    assert _ours(report) == _native(root, tmp_path)


def _own_rubocop(root: Path, body: str | None = None) -> Path:
    """The project's own bin/rubocop: a copy of the installed RubyGems wrapper, or
    (fault injection) a fake whose `body` is the whole script."""
    own = root / "bin" / "rubocop"
    own.parent.mkdir(parents=True, exist_ok=True)
    if body is None:
        own.write_bytes(Path(_rubocop()).resolve().read_bytes())
    else:
        own.write_text(body)
    own.chmod(0o755)
    return own


def test_the_projects_own_rubocop_is_used(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    own = _own_rubocop(root)
    root = _repo(root, FILES)
    before = _state(root)
    report = _lint(root, "lib/b.rb")
    assert _state(root) == before
    scope = _scope(report, "lib/b.rb")
    assert scope.tool and scope.tool.path == str(own)
    assert "(the project's bin/rubocop)" in (scope.reason or "")
    assert _ours(report) == {r for r in _native(root, tmp_path) if r[0] == "lib/b.rb"}
    assert RubocopChecker().probe(root).tool_path == str(own)


def test_a_broken_own_rubocop_is_passed_over_and_said(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    _own_rubocop(
        root,
        "#!/bin/sh\necho 'Could not find rubocop-1.99 in locally installed gems' >&2\nexit 7\n",
    )
    root = _repo(root, FILES)
    scope = _scope(_lint(root, "lib/b.rb"), "lib/b.rb")
    assert scope.status == ScopeStatus.CHECKED
    assert scope.tool and scope.tool.path == _rubocop()
    reason = scope.reason or ""
    assert "from PATH; the project's bin/rubocop failed --version (exit 7)" in reason


def test_erb_in_a_config_is_refused(tmp_path: Path) -> None:
    """ERB could name a remote inherit_from that no static reading sees: not run."""
    cfg = "inherit_from: <%= 'base' + '.yml' %>\n"
    root = _repo(tmp_path / "r", {".rubocop.yml": cfg, "base.yml": "{}\n", "a.rb": "x = 1\n"})
    scope = _scope(_lint(root, "a.rb"), "a.rb")
    assert scope.status == ScopeStatus.TOOL_ERROR
    assert "ERB" in (scope.reason or "")


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ("touch {marker}; sleep 30", ScopeStatus.TIMED_OUT, "deadline"),
        ("echo 'Error: boom' >&2; exit 2", ScopeStatus.TOOL_ERROR, "rubocop exit 2: Error: boom"),
        ("echo 'not json'; exit 0", ScopeStatus.TOOL_ERROR, "unparsable output"),
    ],
    ids=["hang", "error", "garbage"],
)
def test_faults_follow_the_shared_ladder(
    tmp_path: Path, body: str, status: ScopeStatus, needle: str
) -> None:
    fake = tmp_path / "fake_rubocop"  # fault injection: answers --version, then `body`
    marker = hang_marker(tmp_path)  # the hanging fake says it runs: the deadline passes
    body = body.format(marker=shlex.quote(str(marker)))
    fake.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo 9.9.9; exit 0; fi\n{body}\n')
    fake.chmod(0o755)
    root = tmp_path / "r"
    new_repo(root, {".rubocop.yml": "{}\n", "a.rb": "x = 1\n"})
    ctx = RunContext(
        project_root=root, deadline=Deadline.after(2), tool_overrides={"rubocop": str(fake)}
    )
    with deadline_passes_at(marker):
        out = _plan_run(root, [FileTarget(path="a.rb", abs_path=root / "a.rb")], ctx)["a.rb"]
    assert out.status == status and out.findings == ()
    assert needle in (out.reason or ""), out.reason


def _gate(repo: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    return res.returncode, json.loads(res.stdout)


def _gate_scope(report: dict, path: str) -> dict | None:  # type: ignore[type-arg]
    found = [s for s in report["scopes"] if s["path"] == path and s["checker"] == "rubocop"]
    return found[0] if found else None


@pytest.mark.e2e
def test_commit_gate_runs_rubocop_with_the_committed_config(tmp_path: Path) -> None:
    """The gate judges the staged blob with the committed `.rubocop.yml` (in its private
    tree): the finding RuboCop reports on those bytes blocks, the work tree is untouched."""
    cfg = "AllCops:\n  NewCops: disable\n  SuggestExtensions: false\n"
    root = _repo(tmp_path / "r", {".rubocop.yml": cfg, "a.rb": "puts 1\n"})
    from helpers import stage

    stage(root, {"a.rb": "# frozen_string_literal: true\n\nx = 1\n"})
    before = _state(root)
    code, report = _gate(root)
    assert _state(root) == before
    scope = _gate_scope(report, "a.rb")
    assert scope and scope["status"] == "checked", report["scopes"]
    rules = {(f["line"], f["rule"]) for f in report["findings"] if f["checker"] == "rubocop"}
    assert rules == {(3, "Lint/UselessAssignment")}
    assert code == 1


@pytest.mark.e2e
def test_commit_gate_ignores_an_untracked_rubocop_yml(tmp_path: Path) -> None:
    root = _repo(tmp_path / "r", {"a.rb": "puts 1\n"})
    from helpers import stage

    stage(root, {"a.rb": "x = 1\n"})
    (root / ".rubocop.yml").write_text("AllCops:\n  NewCops: disable\n")  # untracked
    code, report = _gate(root)
    assert _gate_scope(report, "a.rb") is None
    assert code == 0, report["gate"]


@pytest.mark.e2e
def test_commit_gate_with_an_inherited_file_says_it_is_absent(tmp_path: Path) -> None:
    root = _repo(tmp_path / "r", FILES)
    from helpers import stage

    stage(root, {"lib/b.rb": "puts 2\n"})
    code, report = _gate(root)
    scope = _gate_scope(report, "lib/b.rb")
    assert scope is not None and scope["status"] == "tool_error"
    assert "config/base.yml is not in the strict gate's tree" in scope["reason"]
    assert code == 3, report["gate"]  # incomplete: never allowed on `ruby -c` alone


@pytest.mark.e2e
def test_commit_gate_with_a_remote_inherit_is_incomplete(tmp_path: Path) -> None:
    cfg = "inherit_from:\n  - https://example.invalid/rubocop.yml\n"
    root = _repo(tmp_path / "r", {".rubocop.yml": cfg, "a.rb": "puts 1\n"})
    from helpers import stage

    stage(root, {"a.rb": "puts 2\n"})
    code, report = _gate(root)
    scope = _gate_scope(report, "a.rb")
    assert scope is not None and scope["status"] == "tool_error"
    assert code == 3, report["gate"]


@pytest.mark.e2e
def test_the_version_probe_writes_nothing_from_the_project_root(tmp_path: Path) -> None:
    """Failed before: `rubocop --version` ran in the caller's folder and, with a config
    naming `CacheRootDirectory: .`, created `rubocop_cache/` in the project."""
    _rubocop()
    config = "AllCops:\n  CacheRootDirectory: .\n  NewCops: disable\n  SuggestExtensions: false\n"
    root = new_repo(tmp_path / "p", {".rubocop.yml": config, "a.rb": "x = 1\n"})
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    res = run_cli(["lint", "--format", "json", "--no-tasks", "--only", "rubocop"], cwd=root)
    assert res.returncode in (0, 1), res.stderr
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before
