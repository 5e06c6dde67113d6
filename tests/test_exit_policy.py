"""The lint exit policy, status by status (README "Exit codes", DESIGN.md "What counts").

A planned check that failed (`tool_error`, `timed_out`, `partial`) makes the run
incomplete (3) by default; the other statuses that are not `checked` are reported gaps
that fail only under `--require`; only blocking findings give 1 unless `--fail-on`
widens it; `--exit-zero` reports and exits 0 unless a usage error or an internal fault
stops the run. The unit cases drive the lint use case with a fault-injection checker
(`fake`) that answers each `*.fake` file with the status and findings its content
names; the end-to-end cases run the real CLI over real tools.
"""

from __future__ import annotations

import json
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import fail_or_skip, run_cli, set_machine_tool

from orchestrator.cli import main as cli_main
from orchestrator.core.engine import LintRequest
from orchestrator.core.hookspecs import hookimpl
from orchestrator.decisions.exits import PRECEDENCE, LintExitPolicy, most_severe
from orchestrator.decisions.findings import FailOn
from orchestrator.model.checker import Batch, CheckerPlan, FileOutcome
from orchestrator.model.report import Finding
from orchestrator.usecases import lint as lint_usecase
from orchestrator.vocab import ExitCode, ScopeStatus, Severity, Tier

#: A planned check that failed: incomplete whatever was required.
FAILED = ("tool_error", "timed_out", "partial")
#: Reported gaps: exit 0 unless `--require` asks for the coverage they lack.
GAPS = ("missing", "configuration_required", "unsupported", "unqualified", "unsafe", "not_run")


def _finding(path: str, kind: str) -> Finding:
    """A finding of one kind: a blocking error, a warning, an info, a syntax candidate."""
    severity = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO}
    return Finding(
        checker="fake",
        rule=f"R-{kind}",
        severity=severity.get(kind, Severity.ERROR),
        path=path,
        line=1,
        candidate=kind == "candidate",
        blocking=kind == "error",
    )


class _FakeStatusChecker:
    """Fault injection: each `*.fake` file's first word is the scope status to report,
    the other words the findings (error, warning, info, candidate) to report with it."""

    name = "fake"
    tier = Tier.NATIVE

    def claims(self, target: Any) -> bool:
        return target.path.endswith(".fake")

    def plan(self, targets: Any, ctx: Any) -> CheckerPlan:
        return CheckerPlan(batches=(Batch(tuple(targets)),))

    def run(self, batch: Batch, ctx: Any) -> list[FileOutcome]:
        out = []
        for t in batch.targets:
            status, *kinds = (ctx.project_root / t.path).read_text().split()
            out.append(
                FileOutcome(
                    path=t.path,
                    checker=self.name,
                    status=ScopeStatus(status),
                    reason=None if status == "checked" else f"fake {status}",
                    findings=tuple(_finding(t.path, k) for k in kinds),
                )
            )
        return out


class _FakePlugin:
    @hookimpl
    def orchestrate_checkers(self) -> list[Any]:
        return [_FakeStatusChecker()]


def _exit(
    root: Path,
    files: dict[str, str],
    require: tuple[str, ...] = (),
    fail_on: FailOn = FailOn.ERROR,
    exit_zero: bool = False,
) -> int:
    for name, content in files.items():
        (root / name).write_text(content + "\n")
    req = LintRequest(
        project_root=root,
        require=require,
        cwd=root,
        only_checkers=frozenset({"fake"}),
        extra_plugins=[("fake_status", _FakePlugin())],
    )
    result = lint_usecase.lint(
        req, lint_usecase.NO_TASKS, exit_policy=LintExitPolicy(fail_on, exit_zero)
    )
    return result.exit_code


@pytest.mark.parametrize("status", FAILED)
def test_a_failed_planned_check_is_incomplete_by_default(tmp_path: Path, status: str) -> None:
    files = {"ok.fake": "checked", "bad.fake": status}
    assert _exit(tmp_path, files) == ExitCode.INCOMPLETE
    assert _exit(tmp_path, files, require=("complete",)) == ExitCode.INCOMPLETE
    assert _exit(tmp_path, files, exit_zero=True) == ExitCode.PASS


@pytest.mark.parametrize("status", GAPS)
def test_a_reported_gap_fails_only_under_require(tmp_path: Path, status: str) -> None:
    files = {"ok.fake": "checked", "gap.fake": status}
    assert _exit(tmp_path, files) == ExitCode.PASS
    assert _exit(tmp_path, files, require=("complete",)) == ExitCode.INCOMPLETE
    assert _exit(tmp_path, files, require=("complete",), exit_zero=True) == ExitCode.PASS


def test_failure_note_names_the_failed_check(tmp_path: Path) -> None:
    (tmp_path / "bad.fake").write_text("timed_out\n")
    req = LintRequest(
        project_root=tmp_path, cwd=tmp_path, extra_plugins=[("fake_status", _FakePlugin())]
    )
    result = lint_usecase.lint(req, lint_usecase.NO_TASKS)
    assert result.exit_code == ExitCode.INCOMPLETE
    assert any("bad.fake: fake timed_out" in n for n in result.report.notes)


@pytest.mark.parametrize(
    ("kind", "fail_on", "code"),
    [
        ("error", FailOn.ERROR, ExitCode.FINDINGS),
        ("warning", FailOn.ERROR, ExitCode.PASS),
        ("candidate", FailOn.ERROR, ExitCode.PASS),
        ("info", FailOn.ERROR, ExitCode.PASS),
        ("warning", FailOn.WARNING, ExitCode.FINDINGS),
        ("candidate", FailOn.WARNING, ExitCode.PASS),
        ("info", FailOn.WARNING, ExitCode.PASS),
        ("candidate", FailOn.CANDIDATE, ExitCode.FINDINGS),
        ("warning", FailOn.CANDIDATE, ExitCode.FINDINGS),
        ("info", FailOn.CANDIDATE, ExitCode.PASS),
    ],
)
def test_which_findings_exit_1(tmp_path: Path, kind: str, fail_on: FailOn, code: int) -> None:
    assert _exit(tmp_path, {"a.fake": f"checked {kind}"}, fail_on=fail_on) == code
    assert _exit(tmp_path, {"a.fake": f"checked {kind}"}, fail_on=fail_on, exit_zero=True) == 0


def test_precedence_incomplete_over_findings_over_pass(tmp_path: Path) -> None:
    # A failed check beside a blocking finding: incomplete wins.
    both = {"err.fake": "checked error", "bad.fake": "tool_error"}
    assert _exit(tmp_path, both) == ExitCode.INCOMPLETE
    # An unmet --require beside a blocking finding: incomplete wins.
    (tmp_path / "bad.fake").unlink()
    gap = {"err.fake": "checked error", "gap.fake": "missing"}
    assert _exit(tmp_path, gap) == ExitCode.FINDINGS
    assert _exit(tmp_path, gap, require=("complete",)) == ExitCode.INCOMPLETE
    # The whole table, most severe first: cancelled > internal > usage > incomplete > ...
    order = [ExitCode.CANCELLED, ExitCode.INTERNAL, ExitCode.INCOMPLETE, ExitCode.FINDINGS]
    assert [c for c in PRECEDENCE if c in order] == order
    assert most_severe([ExitCode.FINDINGS, ExitCode.INCOMPLETE, ExitCode.PASS]) == 3
    assert most_severe([ExitCode.INCOMPLETE, ExitCode.INTERNAL]) == 4
    assert most_severe([ExitCode.INTERNAL, ExitCode.CANCELLED]) == 130


def test_exit_zero_keeps_internal_faults_and_usage_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")

    def fake_lint(*args: object, **kwargs: object) -> object:
        raise RuntimeError("fake fault")

    monkeypatch.setattr(lint_usecase, "lint", fake_lint)
    code = cli_main.main(["lint", "--root", str(tmp_path), "--exit-zero", "--no-tasks"])
    assert code == ExitCode.INTERNAL
    assert "internal error" in capsys.readouterr().err
    monkeypatch.undo()
    code = cli_main.main(["lint", "--root", str(tmp_path), "--exit-zero", "--fail-on", "all"])
    assert code == ExitCode.USAGE


# --- end to end: the real CLI over real tools -----------------------------------------


def _crashing_ruff(tmp_path: Path) -> Path:
    fake = tmp_path / "fake-ruff"
    fake.write_text(
        '#!/bin/sh\ncase "$1" in --version) echo "ruff 9.9.9"; exit 0;; esac\n'
        "cat >/dev/null\necho 'Segmentation fault' >&2; exit 139\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return fake


@pytest.mark.e2e
def test_cli_every_check_failed_is_not_a_pass(tmp_path: Path) -> None:
    """`orchestrate lint && deploy` must not deploy when the planned checks crashed."""
    root = tmp_path / "p"
    root.mkdir()
    set_machine_tool("ruff", f"{_crashing_ruff(tmp_path)}")
    (root / "a.py").write_text("x = 1\n")
    res = run_cli(["lint", ".", "--no-tasks", "--format", "json"], cwd=root)
    assert res.returncode == 3, res.stderr
    report = json.loads(res.stdout)
    assert [s["status"] for s in report["scopes"] if s["path"] == "a.py"] == ["tool_error"]
    assert any(n.startswith("run incomplete") for n in report["notes"])
    res = run_cli(["lint", ".", "--no-tasks", "--exit-zero"], cwd=root)
    assert res.returncode == 0 and "tool_error" in res.stdout


@pytest.mark.e2e
def test_cli_blocking_error_exits_1_and_exit_zero_reports(tmp_path: Path) -> None:
    (tmp_path / "unused.py").write_text("import os\n")
    res = run_cli(["lint", "unused.py", "--no-tasks"], cwd=tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    res = run_cli(["lint", "unused.py", "--no-tasks", "--exit-zero"], cwd=tmp_path)
    assert res.returncode == 0 and "F401" in res.stdout


@pytest.mark.e2e
def test_cli_syntax_candidate_exits_0_unless_fail_on_candidate(tmp_path: Path) -> None:
    (tmp_path / "main.go").write_text('package main\n\nfunc main() {\n\tprintln("a"\n}\n')
    # No exact parser confirms it (gofmt's explicit path names nothing): a candidate.
    absent = (tmp_path / "absent" / "gofmt").as_posix()
    set_machine_tool("gofmt", absent)
    res = run_cli(["lint", "main.go", "--no-tasks", "--format", "json"], cwd=tmp_path)
    report = json.loads(res.stdout)
    assert report["findings"] and all(f["candidate"] for f in report["findings"])
    assert res.returncode == 0, res.stderr
    for level, code in (("warning", 0), ("candidate", 1)):
        res = run_cli(["lint", "main.go", "--no-tasks", "--fail-on", level], cwd=tmp_path)
        assert res.returncode == code, (level, res.stderr)


@pytest.mark.e2e
def test_cli_warning_exits_0_unless_fail_on_warning(tmp_path: Path) -> None:
    """A real yamllint warning (the example plugin): reported, not failing by default."""
    (tmp_path / ".yamllint").write_text("extends: default\nrules:\n  document-start: enable\n")
    (tmp_path / "c.yml").write_text("a: 1\n")
    res = run_cli(["lint", "c.yml", "--no-tasks", "--format", "json"], cwd=tmp_path)
    report = json.loads(res.stdout)
    if not any(s["checker"] == "yamllint" for s in report["scopes"]):
        fail_or_skip(
            "the example plugin is not installed: pip install -e examples/orchestrate-yamllint"
        )
    severities = {f["severity"] for f in report["findings"]}
    assert severities == {"warning"}, report["findings"]
    assert res.returncode == 0, res.stderr
    res = run_cli(["lint", "c.yml", "--no-tasks", "--fail-on", "warning"], cwd=tmp_path)
    assert res.returncode == 1, res.stderr


# --- honest selection -----------------------------------------------------------------


@pytest.mark.e2e
def test_unknown_checker_is_a_usage_error_with_the_known_names(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n")
    res = run_cli(["lint", "--only", "rufff", "--no-tasks"], cwd=tmp_path)
    assert res.returncode == ExitCode.USAGE, res.stdout
    assert "rufff" in res.stderr and "ruff" in res.stderr.split("known:")[1]
    assert res.stdout == ""  # nothing ran, no report


def test_one_unknown_checker_among_known_ones_is_refused_and_known_names_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In process (the CLI's own main; the test above spawns the console script)."""
    (tmp_path / "a.py").write_text("import os\n")
    argv = ["lint", "--root", str(tmp_path), "--no-tasks"]
    assert cli_main.main([*argv, "--only", "ruff", "--only", "nope"]) == ExitCode.USAGE
    assert "nope" in capsys.readouterr().err
    assert cli_main.main([*argv, "--only", "ruff"]) == ExitCode.FINDINGS
    assert "F401" in capsys.readouterr().out


def test_unknown_checker_name_is_refused_in_process_too(tmp_path: Path) -> None:
    """The rule lives in the core: every entry (here the MCP lint tool) refuses it,
    and the refusal does not echo the name back into an agent's context."""
    from orchestrator.hosts.mcp_server import lint_tool

    (tmp_path / "a.py").write_text("x = 1\n")
    result = lint_tool(tmp_path, None, False, ["\x1b[31mrufff"], None)
    assert result.is_error
    assert "rufff" not in result.content[0].text  # type: ignore[union-attr]
    assert result.structured_content["report"] is None  # type: ignore[index]


@pytest.mark.e2e
def test_excluded_folder_under_require_is_incomplete(tmp_path: Path) -> None:
    (tmp_path / "orchestrate.toml").write_text('exclude_dirs = ["cfg"]\n')
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "a.py").write_text("x = 1\n")
    res = run_cli(
        ["lint", "cfg", "--require", "complete", "--no-tasks", "--format", "json"], cwd=tmp_path
    )
    assert res.returncode == ExitCode.INCOMPLETE, res.stderr
    report = json.loads(res.stdout)
    assert report["scopes"] == []
    assert any("no file was checked" in n for n in report["notes"])
    assert run_cli(["lint", "cfg", "--no-tasks"], cwd=tmp_path).returncode == ExitCode.PASS


@pytest.mark.e2e
def test_only_a_checker_that_claims_nothing_is_incomplete_under_require(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    args = ["lint", "--only", "eslint", "--no-tasks", "--format", "json"]
    res = run_cli([*args, "--require", "syntax"], cwd=tmp_path)
    assert res.returncode == ExitCode.INCOMPLETE, res.stderr
    assert run_cli(args, cwd=tmp_path).returncode == ExitCode.PASS


@pytest.mark.e2e
def test_require_native_says_which_files_it_does_not_judge(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "main.go").write_text("package main\n")
    res = run_cli(["lint", "--require", "native", "--no-tasks", "--format", "json"], cwd=tmp_path)
    assert res.returncode == ExitCode.PASS, res.stderr
    notes = json.loads(res.stdout)["notes"]
    assert any("--require native asks nothing of 1 file(s)" in n and "main.go" in n for n in notes)
    # With syntax required too, the Go file is judged: no such note.
    both = ["lint", "--require", "native", "--require", "syntax", "--no-tasks", "--format", "json"]
    res = run_cli(both, cwd=tmp_path)
    assert res.returncode == ExitCode.PASS, res.stderr
    assert not any("asks nothing" in n for n in json.loads(res.stdout)["notes"])


def test_readme_exit_table_states_the_policy() -> None:
    """The README's exit-code table names exactly the statuses the decision uses."""
    from orchestrator.decisions.coverage import FAILED_STATUSES

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    table = readme.split("### Exit codes", 1)[1].split("\n\n", 2)[1]
    rows = {
        line.split("|")[1].strip(): line.split("|")[2]
        for line in table.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().isdigit()
    }
    assert set(rows) == {"0", "1", "2", "3", "4", "130", "143"}
    assert sorted(FAILED_STATUSES) == sorted(FAILED)
    assert all(f"`{s}`" in rows["3"] for s in FAILED)
    assert all(f"`{s}`" in rows["0"] and f"`{s}`" not in rows["3"] for s in GAPS)
    assert "--fail-on" in rows["1"]
    assert "### What `--require` covers" in readme
    assert all(f"| `{level}` |" in readme for level in ("native", "syntax", "complete"))


@pytest.mark.e2e
def test_cli_real_gaps_pass_unless_required(tmp_path: Path) -> None:
    """Real gaps: ESLint without a config (configuration_required), a binary file
    (not_run), a file no checker covers (unsupported), a symlink out of the project
    (unsafe): reported, exit 0; under --require complete, exit 3."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.js").write_text("var a = 1;\n")
    (root / "b.py").write_bytes(b"\x00\x01bin")
    (root / "c.xyz").write_text("x\n")
    (tmp_path / "outside.txt").write_text("x\n")
    (root / "d.txt").symlink_to(tmp_path / "outside.txt")
    res = run_cli(["lint", "--no-tasks", "--format", "json"], cwd=root)
    statuses = {s["status"] for s in json.loads(res.stdout)["scopes"]}
    assert {"configuration_required", "not_run", "unsupported", "unsafe"} <= statuses
    assert res.returncode == ExitCode.PASS, res.stderr
    res = run_cli(["lint", "--no-tasks", "--require", "complete"], cwd=root)
    assert res.returncode == ExitCode.INCOMPLETE, res.stderr


# --- what the project asked for (issue 32): configured checkers, unreadable files -----


def _configured_fake(root: Path, status: str) -> LintRequest:
    """A request over one `*.fake` file whose checker reports `status` and names the
    project's config file for it (`fake.toml`): the project configures the checker."""
    (root / "fake.toml").write_text("\n")
    (root / "a.fake").write_text(f"{status} configured\n")
    return LintRequest(
        project_root=root,
        cwd=root,
        only_checkers=frozenset({"fake"}),
        extra_plugins=[("fake_status", _ConfiguredPlugin())],
    )


class _ConfiguredChecker(_FakeStatusChecker):
    """The fake, naming `fake.toml` as the config of each file whose words hold
    `configured` (as Ruff names its `ruff.toml` on a `missing` scope)."""

    def run(self, batch: Batch, ctx: Any) -> list[FileOutcome]:
        out = []
        for t in batch.targets:
            status, *words = (ctx.project_root / t.path).read_text().split()
            files = ("fake.toml",) if "configured" in words else ()
            out.append(
                FileOutcome(
                    path=t.path,
                    checker=self.name,
                    status=ScopeStatus(status),
                    reason=f"fake {status}",
                    config_files=files,
                )
            )
        return out


class _ConfiguredPlugin:
    @hookimpl
    def orchestrate_checkers(self) -> list[Any]:
        return [_ConfiguredChecker()]


@pytest.mark.parametrize("status", ["missing", "configuration_required"])
def test_a_configured_checker_that_cannot_run_is_incomplete(tmp_path: Path, status: str) -> None:
    """The project asked for the checker (its config is there): not a quiet gap."""
    result = lint_usecase.lint(_configured_fake(tmp_path, status), lint_usecase.NO_TASKS)
    assert result.exit_code == ExitCode.INCOMPLETE
    assert any("a.fake: fake" in n and "fake.toml" in n for n in result.report.notes)
    # Without the project's config the same status stays a reported gap.
    req = _configured_fake(tmp_path, status)
    (tmp_path / "a.fake").write_text(f"{status}\n")
    assert lint_usecase.lint(req, lint_usecase.NO_TASKS).exit_code == ExitCode.PASS


def test_allow_gap_opts_one_checker_out_and_is_recorded(tmp_path: Path) -> None:
    req = replace(_configured_fake(tmp_path, "missing"), allow_gaps=frozenset({"fake"}))
    result = lint_usecase.lint(req, lint_usecase.NO_TASKS)
    assert result.exit_code == ExitCode.PASS
    assert result.report.request.allow_gaps == ["fake"]
    assert any("--allow-gap fake" in n for n in result.report.notes)
    # It opts out of the configured-checker rule only: a failed check stays incomplete.
    (tmp_path / "a.fake").write_text("tool_error configured\n")
    assert lint_usecase.lint(req, lint_usecase.NO_TASKS).exit_code == ExitCode.INCOMPLETE
    # --require complete still asks for the evidence the gap lacks.
    (tmp_path / "a.fake").write_text("missing configured\n")
    strict = replace(req, require=("complete",))
    assert lint_usecase.lint(strict, lint_usecase.NO_TASKS).exit_code == ExitCode.INCOMPLETE


def test_allow_gap_names_a_loaded_checker(tmp_path: Path) -> None:
    from orchestrator.errors import UsageError

    req = replace(_configured_fake(tmp_path, "missing"), allow_gaps=frozenset({"fakee"}))
    with pytest.raises(UsageError, match="--allow-gap: no loaded checker named 'fakee'"):
        lint_usecase.lint(req, lint_usecase.NO_TASKS)


def test_an_unreadable_file_is_incomplete_in_the_decision() -> None:
    """A file the selection could not read (its scope says `cannot read`) is evidence
    the project asked for and did not get: incomplete, like ruff's E902 (exit 1)."""
    from orchestrator.decisions.exits import lint_exit_code
    from orchestrator.model.report import Report, ScanInfo, Scope

    def report(reason: str) -> Report:
        scope = Scope(path="b.py", checker="orchestrate", status=ScopeStatus.NOT_RUN, reason=reason)
        ok = Scope(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
        return Report(scan=ScanInfo(project_root="/p"), scopes=[ok, scope])

    for why in (
        "cannot read: Permission denied",
        "cannot stat: Permission denied",
        "folder cannot be read (Permission denied): the files in it are not checked",
    ):
        assert lint_exit_code(report(why), []) == ExitCode.INCOMPLETE, why
    # Files left out on purpose stay reported gaps.
    for why in ("binary file (NUL bytes): not text", "file too large (1 bytes > 0)"):
        assert lint_exit_code(report(why), []) == ExitCode.PASS, why


def _nobody() -> tuple[int, int]:
    """The uid and gid of `nobody`: a real unreadable file needs a user without root's
    CAP_DAC_OVERRIDE (the tests run as root, which reads any file)."""
    import os
    import pwd
    import shutil

    if os.getuid() != 0 or not shutil.which("setpriv"):
        fail_or_skip("dropping privileges needs root and setpriv (util-linux)")
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def test_cli_an_unreadable_file_is_incomplete_for_real() -> None:
    """A real unreadable file: mode 000, the CLI run as `nobody` (setpriv drops root's
    privileges, so open() really fails with EACCES)."""
    import os
    import subprocess
    import sys
    import tempfile

    uid, gid = _nobody()
    with tempfile.TemporaryDirectory(prefix="unreadable-") as tmp:
        root = Path(tmp)
        root.chmod(0o755)  # pytest's tmp_path is 0700 root's: nobody could not enter it
        home = root / "home"
        home.mkdir()
        os.chown(home, uid, gid)
        (root / "a.py").write_text("x = 1\n")
        secret = root / "b.py"
        secret.write_text("y = 2\n")
        secret.chmod(0o000)
        cmd = [sys.executable, "-m", "orchestrator.cli", "lint", "--no-tasks"]
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "CI": "1"}
        for args in (["b.py", "a.py"], []):  # named by the user, and found by the walk
            res = subprocess.run(
                [
                    "setpriv",
                    f"--reuid={uid}",
                    f"--regid={gid}",
                    "--clear-groups",
                    *cmd,
                    *args,
                    "--format",
                    "json",
                ],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert res.returncode == ExitCode.INCOMPLETE, (args, res.stdout, res.stderr)
            report = json.loads(res.stdout)
            (scope,) = [s for s in report["scopes"] if s["path"] == "b.py"]
            assert scope["reason"].startswith("cannot read"), scope
            assert any("b.py" in n and n.startswith("run incomplete") for n in report["notes"])


# --- end to end: real checkers the project configures ---------------------------------


@pytest.mark.e2e
def test_cli_ruff_required_version_not_met_is_incomplete(tmp_path: Path) -> None:
    (tmp_path / "ruff.toml").write_text('required-version = ">=99"\n')
    (tmp_path / "a.py").write_text("x = 1\n")
    res = run_cli(["lint", "--no-tasks", "--format", "json"], cwd=tmp_path)
    assert res.returncode == ExitCode.INCOMPLETE, res.stdout + res.stderr
    report = json.loads(res.stdout)
    (ruff,) = [s for s in report["scopes"] if s["checker"] == "ruff"]
    assert ruff["status"] == "missing" and ruff["config_files"] == ["ruff.toml"], ruff
    res = run_cli(["lint", "--no-tasks", "--allow-gap", "ruff", "--format", "json"], cwd=tmp_path)
    assert res.returncode == ExitCode.PASS, res.stdout + res.stderr
    assert json.loads(res.stdout)["request"]["allow_gaps"] == ["ruff"]
    res = run_cli(["lint", "--no-tasks", "--allow-gap", "ruff"], cwd=tmp_path)
    assert res.returncode == ExitCode.PASS and "--allow-gap ruff" in res.stdout, res.stdout
    res = run_cli(["lint", "--no-tasks", "--allow-gap", "rufff"], cwd=tmp_path)
    assert res.returncode == ExitCode.USAGE and "rufff" in res.stderr, res.stderr


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("checker", "config", "source"),
    [
        ("ruff", "ruff.toml", ("a.py", "x = 1\n")),
        ("rubocop", ".rubocop.yml", ("a.rb", "x = 1\n")),
        ("eslint", "eslint.config.mjs", ("a.js", "var a = 1;\n")),
    ],
)
def test_cli_a_configured_tool_that_is_absent_is_incomplete(
    tmp_path: Path, checker: str, config: str, source: tuple[str, str]
) -> None:
    """The project's config names the checker; the tool is not there: exit 3 (it was a
    quiet `missing` gap, exit 0), unless `--allow-gap` says the gap is accepted."""
    (tmp_path / config).write_text("export default [];\n" if checker == "eslint" else "\n")
    (tmp_path / source[0]).write_text(source[1])
    absent = (tmp_path / "absent" / checker).as_posix()
    set_machine_tool(f"{checker}", f"{absent}")
    res = run_cli(["lint", "--no-tasks", "--format", "json"], cwd=tmp_path)
    report = json.loads(res.stdout)
    (scope,) = [s for s in report["scopes"] if s["checker"] == checker and s["path"] == source[0]]
    assert scope["status"] == "missing" and scope["config_files"] == [config], scope
    assert res.returncode == ExitCode.INCOMPLETE, res.stdout + res.stderr
    res = run_cli(["lint", "--no-tasks", "--allow-gap", checker], cwd=tmp_path)
    assert res.returncode == ExitCode.PASS, res.stdout + res.stderr


@pytest.mark.e2e
def test_cli_an_unconfigured_missing_tool_stays_a_reported_gap(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    absent = (tmp_path / "absent" / "ruff").as_posix()
    set_machine_tool("ruff", f"{absent}")
    res = run_cli(["lint", "--no-tasks", "--format", "json"], cwd=tmp_path)
    assert res.returncode == ExitCode.PASS, res.stdout + res.stderr
    (scope,) = [s for s in json.loads(res.stdout)["scopes"] if s["checker"] == "ruff"]
    assert scope["status"] == "missing" and scope["config_files"] == []
