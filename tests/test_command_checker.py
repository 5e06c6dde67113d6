"""The public `CommandChecker` base (orchestrator.api), in process, around real programs.

The tools are small Python programs written by each test and run by the test's own
interpreter: `lintish` is a real (tiny) linter, reporting each line holding `BAD`;
the ones named `fake-*` inject faults (a crash without output, a hang, a broken
version probe). Each test writes its tool into its own folder, so the process-wide
version cache never answers for another test's tool.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from orchestrator.api import (
    Batch,
    CommandChecker,
    Deadline,
    FileTarget,
    Finding,
    ProcResult,
    RunContext,
    ScopeStatus,
    Severity,
    Unparsable,
    fingerprint,
)
from orchestrator.model.declared import declare
from orchestrator.vocab import Purpose

#: The linter: `--version` prints a version (and counts its calls in versions.log);
#: else it reads the paths after `--` (or stdin after `-`), prints `PATH:LINE: bad`
#: for each line holding BAD, logs its argv in calls.log and exits 1 on a finding.
LINTISH = """
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
MODE = {mode!r}
args = sys.argv[1:]
if args == ["--version"]:
    with open(here / "versions.log", "a") as fh:
        fh.write("v\\n")
    if MODE == "bad-version":
        sys.exit(4)
    print("lintish 1.2.3")
    sys.exit(0)
with open(here / "calls.log", "a") as fh:
    fh.write(" ".join(args) + "\\n")
if MODE == "crash":
    sys.stderr.write("Traceback: lintish exploded\\n")
    sys.exit(3)
if MODE == "hang":
    import time
    time.sleep(60)
if MODE == "garbage":
    print("this is not lintish output")
    sys.exit(1)
if "-" in args:
    sources = [("<stdin>", sys.stdin.read())]
else:
    sources = [(p, Path(p).read_text()) for p in args[args.index("--") + 1 :]]
found = 0
for name, text in sources:
    for number, line in enumerate(text.splitlines(), 1):
        if "BAD" in line:
            print(f"{{name}}:{{number}}: bad")
            found += 1
sys.exit(1 if found else 0)
"""


def _tool(folder: Path, name: str = "lintish", mode: str = "ok") -> Path:
    """Write the linter (or a fake, by `mode`) as an executable `folder/name`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!{sys.executable}\n" + LINTISH.format(mode=mode))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


class Lintish(CommandChecker):
    """The test's checker: `.txt` files, `lintish` findings."""

    name = "lintish"
    suffixes = (".txt",)
    tool = "lintish"
    max_batch = 2
    #: It prints only findings: exit 0 and silence is a clean file.
    quiet_ok = True
    config_names = (".lintish.toml",)

    def parse(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, Sequence[Finding]]:
        out: dict[str, list[Finding]] = {}
        for line in res.stdout.decode().splitlines():
            path, sep, rest = line.partition(":")
            number, sep2, message = rest.partition(": ")
            if not (sep and sep2 and number.isdigit()):
                raise Unparsable(f"not lintish output: {line!r}")
            path = targets[0].path if from_stdin else path
            out.setdefault(path, []).append(
                Finding(
                    checker=self.name,
                    rule="bad",
                    severity=Severity.ERROR,
                    path=path,
                    line=int(number),
                    message=message,
                    fingerprint=fingerprint(self.name, "bad", path, message),
                )
            )
        return out


class ConfiguredLintish(Lintish):
    config_required = True
    config_hint = "add .lintish.toml"


def _project(root: Path, files: Mapping[str, str]) -> list[FileTarget]:
    root.mkdir(parents=True, exist_ok=True)
    targets = []
    for rel, text in files.items():
        (root / rel).write_text(text)
        targets.append(FileTarget(path=rel, abs_path=root / rel))
    return targets


def _ctx(root: Path, tool: Path | None, seconds: float = 30.0, **kw: object) -> RunContext:
    overrides = {"lintish": str(tool)} if tool is not None else {}
    return RunContext(
        project_root=root, deadline=Deadline.after(seconds), tool_overrides=overrides, **kw
    )  # type: ignore[arg-type]


def _run_all(checker: CommandChecker, targets: Sequence[FileTarget], ctx: RunContext) -> dict:
    plan = checker.plan(targets, ctx)
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)
    return {o.path: o for o in outs}


def test_batches_hold_at_most_max_batch_files_and_each_file_is_judged(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    files = {f"f{i}.txt": ("BAD\n" if i % 2 else "fine\n") for i in range(5)}
    targets = _project(root, files)
    checker = Lintish()
    ctx = _ctx(root, tool)
    plan = checker.plan(targets, ctx)
    assert [len(b.targets) for b in plan.batches] == [2, 2, 1]
    got = _run_all(checker, targets, ctx)
    assert {p: o.status for p, o in got.items()} == dict.fromkeys(files, ScopeStatus.CHECKED)
    assert {p for p, o in got.items() if o.findings} == {"f1.txt", "f3.txt"}
    assert all(o.tool and o.tool.version == "lintish 1.2.3" for o in got.values())
    assert all(o.tool and o.tool.path == str(tool) for o in got.values())
    calls = (tool.parent / "calls.log").read_text().splitlines()
    assert calls == ["-- f0.txt f1.txt", "-- f2.txt f3.txt", "-- f4.txt"]


def test_staged_content_goes_over_stdin_one_process_each(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    (target,) = _project(root, {"a.txt": "fine on disk\n"})
    staged = FileTarget(path="a.txt", abs_path=target.abs_path, content=b"ok\nBAD\n")
    checker = Lintish()
    ctx = _ctx(root, tool)
    plan = checker.plan([staged], ctx)
    assert len(plan.batches) == 1 and plan.batches[0].label == "lintish:a.txt"
    (out,) = checker.run(plan.batches[0], ctx)
    assert out.status == ScopeStatus.CHECKED
    assert [(f.path, f.line) for f in out.findings] == [("a.txt", 2)]
    assert (tool.parent / "calls.log").read_text().splitlines() == ["-"]


def test_a_tool_not_found_is_missing_with_an_install_hint(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n"})

    class Absent(Lintish):
        tool = "orchestrate-test-no-such-tool"

    ctx = RunContext(project_root=root, deadline=Deadline.after(30), env={"PATH": ""})
    (out,) = Absent().plan(targets, ctx).settled
    assert out.status == ScopeStatus.MISSING and out.falls_back
    assert out.reason and "orchestrate-test-no-such-tool not found" in out.reason
    assert out.hint and "install orchestrate-test-no-such-tool" in out.hint
    probe = Absent().probe(root)
    assert probe.state == "missing" and probe.hint == out.hint


def test_a_configured_path_that_is_not_an_executable_is_missing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n"})
    ctx = RunContext(
        project_root=root, deadline=Deadline.after(30), tool_overrides={"lintish": "rel/lintish"}
    )
    (out,) = Lintish().plan(targets, ctx).settled
    assert out.status == ScopeStatus.MISSING
    assert out.reason and "not an absolute executable" in out.reason


def test_a_tool_on_an_absolute_path_entry_is_found_and_a_relative_entry_never(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    _project(root, {"a.txt": ""})
    monkeypatch.chdir(tmp_path)
    relative = RunContext(project_root=root, deadline=Deadline.after(30), env={"PATH": "bin"})
    assert Lintish().locate(relative) is None
    absolute = RunContext(
        project_root=root, deadline=Deadline.after(30), env={"PATH": str(tool.parent)}
    )
    found = Lintish().locate(absolute)
    assert found is not None and found.argv == (str(tool),) and found.source == "PATH"


def test_a_project_folder_the_checker_names_is_tried_first(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    own = _tool(root / "tools" / "bin")
    _tool(tmp_path / "bin")

    class ProjectLintish(Lintish):
        project_dirs = ("tools/bin",)

    ctx = RunContext(
        project_root=root, deadline=Deadline.after(30), env={"PATH": str(tmp_path / "bin")}
    )
    found = ProjectLintish().locate(ctx)
    assert found is not None and found.argv == (str(own),)
    assert found.source == "the project's tools/bin"


def test_a_project_tool_is_passed_over_when_tracked_or_at_a_strict_gate(tmp_path: Path) -> None:
    """The base asks tool_refusal of every candidate: a tool git tracks is never run, and
    at a strict gate (delivery) nothing inside the project runs; PATH's tool does."""
    import subprocess

    root = tmp_path / "ws"
    own = _tool(root / "tools" / "bin")
    on_path = _tool(tmp_path / "bin")

    class ProjectLintish(Lintish):
        project_dirs = ("tools/bin",)

    env = {"PATH": str(tmp_path / "bin")}

    def ctx(purpose: Purpose) -> RunContext:
        return RunContext(project_root=root, deadline=Deadline.after(30), env=env, purpose=purpose)

    checker = ProjectLintish()
    untracked = checker.locate(ctx(Purpose.FEEDBACK))
    assert untracked is not None and untracked.argv == (str(own),)
    gate = checker.locate(ctx(Purpose.DELIVERY))
    assert gate is not None and gate.argv == (str(on_path),)
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "tools/bin/lintish"], check=True)
    tracked = checker.locate(ctx(Purpose.FEEDBACK))
    assert tracked is not None and tracked.argv == (str(on_path),)
    explicit = RunContext(
        project_root=root,
        deadline=Deadline.after(30),
        env=env,
        tool_overrides={"lintish": str(own)},
    )
    assert checker.locate(explicit) is None


def test_a_crash_without_parsable_output_is_tool_error(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin", "fake-crash", mode="crash")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n", "b.txt": "ok\n"})
    got = _run_all(Lintish(), targets, _ctx(root, tool))
    assert {o.status for o in got.values()} == {ScopeStatus.TOOL_ERROR}
    reason = got["a.txt"].reason or ""
    assert "lintish exit 3" in reason and "lintish exploded" in reason
    assert not any(o.falls_back for o in got.values())


def test_output_the_parser_rejects_is_tool_error(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin", "fake-garbage", mode="garbage")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n"})
    (out,) = _run_all(Lintish(), targets, _ctx(root, tool)).values()
    assert out.status == ScopeStatus.TOOL_ERROR and "not lintish output" in (out.reason or "")


def test_a_result_for_a_file_not_asked_about_is_tool_error(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n"})

    class Stray(Lintish):
        def parse(
            self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
        ) -> Mapping[str, Sequence[Finding]]:
            return {"elsewhere.txt": []}

    (out,) = _run_all(Stray(), targets, _ctx(root, tool)).values()
    assert out.status == ScopeStatus.TOOL_ERROR and "not asked about" in (out.reason or "")


def test_the_deadline_ends_the_tool_as_timed_out(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin", "fake-hang", mode="hang")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n", "b.txt": ""})
    checker = Lintish()
    plan = checker.plan(targets, _ctx(root, tool))  # the version probe answers at once
    (batch,) = plan.batches
    outs = checker.run(batch, _ctx(root, tool, seconds=1.0))
    assert [o.status for o in outs] == [ScopeStatus.TIMED_OUT] * 2
    assert not any(o.falls_back for o in outs)


def test_the_version_probe_runs_once_per_process_for_an_unchanged_tool(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": ""})
    checker = Lintish()
    probe = RunContext(
        project_root=root, deadline=Deadline.after(0), env={"PATH": str(tool.parent)}
    )
    assert checker.locate(probe) is not None
    assert not (tool.parent / "versions.log").exists()  # locating runs nothing
    for _ in range(3):
        checker.plan(targets, _ctx(root, tool))
    Lintish().plan(targets, _ctx(root, tool))  # another instance: the same cache
    assert (tool.parent / "versions.log").read_text() == "v\n"


def test_a_failed_version_probe_settles_tool_error_never_checked(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin", "fake-bad-version", mode="bad-version")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n"})
    plan = Lintish().plan(targets, _ctx(root, tool))
    assert plan.batches == ()
    (out,) = plan.settled
    assert out.status == ScopeStatus.TOOL_ERROR and "--version failed (exit 4)" in (
        out.reason or ""
    )
    assert out.tool and out.tool.path == str(tool)


def test_the_reuse_identity_follows_the_root_config_bytes(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": ""})
    checker = Lintish()
    ctx = _ctx(root, tool)

    def identity() -> object:
        (batch,) = checker.plan(targets, ctx).batches
        return checker.reuse_identity(batch, ctx)

    absent = identity()
    assert absent is not None and absent == identity()
    (root / ".lintish.toml").write_text("level = 1\n")
    first = identity()
    (root / ".lintish.toml").write_text("level = 2\n")
    second = identity()
    assert absent != first and first != second and absent != second
    assert second.tool.version == "lintish 1.2.3"  # type: ignore[union-attr]
    (root / ".lintish.toml").write_text("level = 1\n")
    assert identity() == first


def test_a_checker_may_refuse_reuse(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": ""})
    (root / ".lintish.toml").write_text("include = 'other.toml'\n")

    class Never(Lintish):
        reusable = False

    class ReadsOther(Lintish):
        def config_reads_other_files(self, name: str, data: bytes) -> bool:
            return b"include" in data

    ctx = _ctx(root, tool)
    for checker in (Never(), ReadsOther()):
        (batch,) = checker.plan(targets, ctx).batches
        assert checker.reuse_identity(batch, ctx) is None, type(checker).__name__
    (batch,) = Lintish().plan(targets, ctx).batches
    assert Lintish().reuse_identity(batch, ctx) is not None


def test_config_required_without_a_root_config_is_configuration_required(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "BAD\n"})
    checker = ConfiguredLintish()
    (out,) = checker.plan(targets, _ctx(root, tool)).settled
    assert out.status == ScopeStatus.CONFIGURATION_REQUIRED and out.falls_back
    assert out.hint == "add .lintish.toml"
    assert out.reason == "no lintish config (.lintish.toml) at the project root"
    assert not (tool.parent / "calls.log").exists()
    (root / ".lintish.toml").write_text("")
    got = _run_all(checker, targets, _ctx(root, tool))
    assert got["a.txt"].status == ScopeStatus.CHECKED and got["a.txt"].findings


def test_claims_by_language_else_by_suffix(tmp_path: Path) -> None:
    class Langs(Lintish):
        languages = frozenset({"text"})

    def target(path: str, language: str | None) -> FileTarget:
        return FileTarget(path=path, abs_path=tmp_path / path, language=language)

    assert Langs().claims(target("a.md", "text"))
    assert not Langs().claims(target("a.txt", "python"))
    assert Langs().claims(target("a.txt", None)) and not Langs().claims(target("a.md", None))
    assert Lintish().claims(target("a.txt", "whatever"))  # no languages: suffix only


def test_the_declarations_load_without_a_warning_and_a_bad_subclass_is_refused() -> None:
    loaded = declare(ConfiguredLintish())
    assert loaded.defaulted == () and loaded.config_required
    assert loaded.config_names == (".lintish.toml",) and loaded.reuse_identity is not None

    class NoParse(CommandChecker):
        name = "noparse"
        tool = "noparse"

    class NoTool(Lintish):
        tool = ""

    for bad, says in ((NoParse, "implements `parse`"), (NoTool, "`tool` or `python_module`")):
        with pytest.raises(TypeError, match=says):
            bad()


def test_scrubbed_variables_do_not_reach_the_tool(tmp_path: Path) -> None:
    class Scrubbing(Lintish):
        scrubbed_env = ("LINTISH_OPTS",)

    env = {"PATH": os.environ.get("PATH", ""), "LINTISH_OPTS": "--fix"}
    ctx = RunContext(project_root=tmp_path, deadline=Deadline.after(1), env=env)
    assert Scrubbing().tool_env(ctx) == {"PATH": env["PATH"]}
    assert Lintish().tool_env(ctx) is env


def test_an_unreadable_staged_file_is_tool_error(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    root.mkdir()

    class StdinOnly(Lintish):
        stdin_only = True

    gone = FileTarget(path="gone.txt", abs_path=root / "gone.txt")
    ctx = _ctx(root, tool)
    (batch,) = StdinOnly().plan([gone], ctx).batches
    assert isinstance(batch, Batch)
    (out,) = StdinOnly().run(batch, ctx)
    assert out.status == ScopeStatus.TOOL_ERROR and "cannot read file" in (out.reason or "")


def test_silence_is_clean_only_for_a_quiet_tool(tmp_path: Path) -> None:
    tool = _tool(tmp_path / "bin")
    root = tmp_path / "ws"
    targets = _project(root, {"a.txt": "fine\n"})

    class Loud(Lintish):
        quiet_ok = False

    (quiet,) = _run_all(Lintish(), targets, _ctx(root, tool)).values()
    assert quiet.status == ScopeStatus.CHECKED and quiet.findings == ()
    (loud,) = _run_all(Loud(), targets, _ctx(root, tool)).values()
    assert loud.status == ScopeStatus.TOOL_ERROR and "printed nothing" in (loud.reason or "")
