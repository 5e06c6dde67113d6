"""The Ruby checker against the real `ruby`; fakes only for fault injection."""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from helpers import deadline_passes_at, hang_marker, require_tool
from orchestrate_plugins.ruby_checker import RubyChecker, find_ruby

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.vocab import ScopeStatus, Severity

HINT = "install ruby (Debian: apt-get install ruby)"
MISSING_END = "def greet(name)\n  if name\n    puts name\n"


def _ruby() -> str:
    return require_tool("ruby", HINT)


def _ctx(root: Path, timeout: float = 30, **kw: object) -> RunContext:
    return RunContext(project_root=root, deadline=Deadline.after(timeout), **kw)  # type: ignore[arg-type]


def _check(
    root: Path, files: Mapping[str, str | bytes], ctx: RunContext | None = None
) -> dict[str, FileOutcome]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode() if isinstance(text, str) else text)
    return _run(root, list(files), ctx)


def _run(root: Path, paths: Sequence[str], ctx: RunContext | None = None) -> dict[str, FileOutcome]:
    checker, ctx = RubyChecker(), ctx or _ctx(root)
    plan = checker.plan([FileTarget(path=p, abs_path=root / p) for p in paths], ctx)
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)
    return {o.path: o for o in outs}


def _fake(path: Path, body: str) -> str:
    """A fake ruby (fault injection): answers --version, then does `body`."""
    path.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "ruby 9.9.9 (fake)"; exit 0; fi\n' + body + "\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_missing_end_is_a_line_only_finding(tmp_path: Path) -> None:
    _ruby()
    outs = _check(tmp_path, {"lib/bad.rb": MISSING_END, "lib/good.rb": "puts 1\n"})
    bad = outs["lib/bad.rb"]
    assert bad.status == ScopeStatus.CHECKED and bad.coherent and not bad.falls_back
    (f,) = bad.findings
    assert f.rule == "ruby/syntax" and f.severity == Severity.ERROR and f.blocking
    assert f.line == 3 and f.column is None and f.end_column is None
    assert f.message and "\n" not in f.message
    good = outs["lib/good.rb"]
    assert good.status == ScopeStatus.CHECKED and good.findings == ()
    assert good.tool and good.tool.path and os.path.isabs(good.tool.path)
    assert good.tool.version and good.tool.version.startswith("ruby ")
    assert good.reason and "the parser of ruby" in good.reason


def test_claims_ruby_files() -> None:
    c = RubyChecker()
    for path in ("a.rb", "tasks/x.rake", "g.gemspec", "Gemfile", "Rakefile", "config.ru"):
        assert c.claims(FileTarget(path=path, abs_path=Path(path)))
    assert not c.claims(FileTarget(path="a.py", abs_path=Path("a.py")))


def test_each_file_is_checked_on_its_own(tmp_path: Path) -> None:
    # `ruby -c a b` would only check `a`: every file must get its own verdict.
    _ruby()
    files = {f"f{i}.rb": ("puts 1\n" if i % 2 else MISSING_END) for i in range(6)}
    outs = _check(tmp_path, files, _ctx(tmp_path, jobs=3))
    for i in range(6):
        assert bool(outs[f"f{i}.rb"].findings) == (i % 2 == 0)


def test_pinned_version_difference_is_said(tmp_path: Path) -> None:
    _ruby()
    outs = _check(tmp_path, {".ruby-version": "ruby-2.7.8\n", "a.rb": "puts 1\n"})
    out = outs["a.rb"]
    assert out.reason and "2.7.8" in out.reason and "differ" in out.reason
    assert out.config_files == (".ruby-version",)
    assert out.hint and "2.7.8" in out.hint


def test_matching_pin_is_not_called_different(tmp_path: Path) -> None:
    _ruby()
    first = _check(tmp_path, {"a.rb": "puts 1\n"})["a.rb"]
    assert first.tool and first.tool.version
    major_minor = ".".join(first.tool.version.split()[1].split(".")[:2])
    out = _check(tmp_path, {".ruby-version": major_minor + "\n", "a.rb": "puts 1\n"})["a.rb"]
    assert out.reason and "differ" not in out.reason and out.hint is None


def test_never_executes_source(tmp_path: Path) -> None:
    _ruby()
    marker = tmp_path / "marker"
    source = (
        f"BEGIN {{ File.write({str(marker)!r}, 'begin') }}\n"
        f"File.write({str(marker)!r}, 'body')\n"
        f"`touch {marker}`\n"
    )
    out = _check(tmp_path, {"x.rb": source})["x.rb"]
    assert out.status == ScopeStatus.CHECKED and out.findings == ()
    assert not marker.exists()


@pytest.mark.parametrize("rubyopt", ["-w", "--jit-bogus"])
def test_ruby_environment_is_scrubbed(tmp_path: Path, rubyopt: str) -> None:
    # Honoured, RUBYOPT=-w would add a warning and a bad RUBYOPT would make ruby fail.
    _ruby()
    env = dict(os.environ, RUBYOPT=rubyopt, RUBYLIB=str(tmp_path), BUNDLE_GEMFILE="/nope")
    out = _check(tmp_path, {"x.rb": "x = 1\n"}, _ctx(tmp_path, env=env))["x.rb"]
    assert out.status == ScopeStatus.CHECKED and out.findings == ()


def test_staged_content_is_judged_not_the_disk_file(tmp_path: Path) -> None:
    _ruby()
    (tmp_path / "a.rb").write_text("puts 1\n")
    staged = FileTarget(path="a.rb", abs_path=tmp_path / "a.rb", content=MISSING_END.encode())
    checker, ctx = RubyChecker(), _ctx(tmp_path)
    (batch,) = checker.plan([staged], ctx).batches
    (out,) = checker.run(batch, ctx)
    assert [f.line for f in out.findings] == [3]


def test_missing_ruby_falls_back(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    out = _check(tmp_path, {"a.rb": "puts 1\n"}, _ctx(tmp_path, env=env))["a.rb"]
    assert out.status == ScopeStatus.MISSING and out.falls_back
    assert out.hint == HINT


def test_relative_path_entry_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rel").mkdir()
    _fake(tmp_path / "rel" / "ruby", "echo 'Syntax OK'")
    monkeypatch.chdir(tmp_path)
    env = dict(os.environ, PATH=os.pathsep.join(["rel", ".", str(tmp_path / "none")]))
    assert find_ruby(_ctx(tmp_path, env=env)) is None
    out = _check(tmp_path, {"a.rb": "puts 1\n"}, _ctx(tmp_path, env=env))["a.rb"]
    assert out.status == ScopeStatus.MISSING


def test_explicit_tool_path_wins(tmp_path: Path) -> None:
    fake = _fake(tmp_path / "fake_ruby", "cat >/dev/null; echo 'Syntax OK'")
    out = _check(tmp_path, {"a.rb": MISSING_END}, _ctx(tmp_path, tool_overrides={"ruby": fake}))
    assert out["a.rb"].tool and out["a.rb"].tool.path == fake
    assert out["a.rb"].reason and "ruby 9.9.9" in out["a.rb"].reason


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ("touch {marker}; sleep 30", ScopeStatus.TIMED_OUT, "deadline"),
        ("cat >/dev/null; kill -SEGV $$", ScopeStatus.TOOL_ERROR, "exit -11"),
        ("cat >/dev/null; echo 'gibberish' >&2; exit 1", ScopeStatus.TOOL_ERROR, "gibberish"),
        ("cat >/dev/null; exit 0", ScopeStatus.TOOL_ERROR, "no diagnostics"),
    ],
    ids=["hang", "crash", "garbage", "silent"],
)
def test_selected_failures_never_fall_back(
    tmp_path: Path, body: str, status: ScopeStatus, needle: str
) -> None:
    marker = hang_marker(tmp_path)  # the hanging fake says it runs: the deadline passes
    fake = _fake(tmp_path / "fake_ruby", body.format(marker=shlex.quote(str(marker))))
    ctx = _ctx(tmp_path, timeout=2, tool_overrides={"ruby": fake})
    with deadline_passes_at(marker):
        outs = _check(tmp_path, {"a.rb": "puts 1\n", "b.rb": MISSING_END}, ctx)
    for out in outs.values():
        assert out.status == status and not out.falls_back and not out.coherent
        assert out.findings == ()
        assert out.reason and needle in out.reason
