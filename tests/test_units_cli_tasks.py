"""`orchestrate task list|show|verify|close` and `orchestrate next` called in process
(cli/tasks.py through cli.main.main): tasks recorded by a real lint with real Ruff, then
listed, shown, re-verified and closed; the exit codes and what each prints. The same
commands as processes are in tests/test_tasks.py (end-to-end)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from orchestrator.cli.main import main
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.tasks import store, verify
from orchestrator.vocab import ExitCode


@pytest.fixture(autouse=True)
def _in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command runs from the project folder, as a user types it there."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def recheck_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The recheck child (`python -m orchestrator.cli.main lint --only CHECKER`, an
    end-to-end spawn) replaced by a fake child that prints the report of the same lint
    run in process just before: the verdict is judged on a real Ruff report. Like the
    real child, that run reuses no cached result (a recheck is a fresh run)."""
    from orchestrator.core import reuse

    def argv(project_root: Path, checker: str, path: str, timeout_s: float) -> list[str]:
        req = LintRequest(
            project_root=project_root,
            paths=[path],
            cwd=project_root,
            only_checkers=frozenset({checker}),
        )
        out = tmp_path.parent / f"{tmp_path.name}-recheck.json"
        with monkeypatch.context() as env:
            env.setenv(reuse.ENV_SWITCH, "0")
            out.write_text(run_lint(req).model_dump_json())
        return [sys.executable, "-c", f"import sys; sys.stdout.write(open({str(out)!r}).read())"]

    fake: Callable[..., list[str]] = argv
    monkeypatch.setattr(verify, "recheck_argv", fake)


def _linted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """A project whose a.py has one blocking F401, linted once (recording its task)."""
    (tmp_path / "a.py").write_text("import os\n")
    assert main(["lint", "--root", str(tmp_path), "a.py", "--format", "json"]) == 1
    capsys.readouterr()
    [rec] = store.list_tasks(tmp_path).tasks
    return tmp_path, rec.id


def test_task_list_shows_the_open_task_and_json_lists_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tid = _linted(tmp_path, capsys)
    assert main(["task", "list", "--root", str(root)]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert out.startswith(tid) and "open" in out and "ruff F401  a.py:1" in out
    assert main(["task", "list", "--root", str(root), "--format", "json"]) == ExitCode.PASS
    data = json.loads(capsys.readouterr().out)
    assert [t["id"] for t in data["tasks"]] == [tid] and data["quarantined"] == []


def test_task_list_of_an_empty_project_says_it_is_not_a_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["task", "list", "--root", str(tmp_path)]) == ExitCode.PASS
    assert "no open tasks in local facts (not a pass" in capsys.readouterr().out


def test_task_list_names_a_quarantined_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tid = _linted(tmp_path, capsys)
    task_file = next((root / ".orchestrate").rglob(f"{tid}.json"))
    task_file.write_text("{not json")
    assert main(["task", "list", "--root", str(root)]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert "quarantined: .orchestrate/quarantine/" in out
    assert tid not in out.split("quarantined:")[0]


def test_task_show_prints_identity_and_recheck_and_the_message_only_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tid = _linted(tmp_path, capsys)
    assert main(["task", "show", tid, "--root", str(root)]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert out.startswith(tid) and "  tool: " in out and "ruff" in out
    assert "  config digest: " in out and "  re-verify: orchestrate task verify" in out
    assert "untrusted tool message" not in out
    assert main(["task", "show", tid, "--root", str(root), "--show-message"]) == 0
    assert 'untrusted tool message: "`os` imported but unused' in capsys.readouterr().out
    assert main(["task", "show", tid, "--root", str(root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == tid


def test_a_malformed_or_unknown_task_id_is_a_usage_error_never_echoed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path
    assert main(["task", "show", "$(rm -rf ~)", "--root", str(root)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "malformed task id" in err and "rm -rf" not in err
    unknown = "T-0123456789ab"
    assert main(["task", "show", unknown, "--root", str(root)]) == ExitCode.USAGE
    assert "no such task" in capsys.readouterr().err
    assert main(["task", "close", unknown, "--root", str(root), "--resolution", "fixed"]) == 2
    assert "no such task" in capsys.readouterr().err


def test_a_root_that_is_not_a_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["task", "list", "--root", str(tmp_path / "nope")]) == ExitCode.USAGE
    assert "is not a directory" in capsys.readouterr().err


@pytest.mark.usefixtures("recheck_in_process")
def test_task_verify_still_present_then_absent_then_close(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tid = _linted(tmp_path, capsys)
    assert main(["task", "verify", tid, "--root", str(root)]) == ExitCode.FINDINGS
    assert f"{tid}: still_present" in capsys.readouterr().out
    (root / "a.py").write_text("import os\n\nprint(os.sep)\n")
    assert main(["task", "verify", tid, "--root", str(root)]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert f"{tid}: absent_unverified" in out
    assert f"`orchestrate task close {tid} --resolution fixed`" in out
    assert "task status: verification_required" in out  # a recheck never closes it
    assert main(["task", "verify", tid, "--root", str(root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["observation"] == "absent_unverified"
    assert main(["task", "close", tid, "--root", str(root), "--resolution", "fixed"]) == 0
    assert capsys.readouterr().out == f"{tid}: closed (fixed)\n"
    assert main(["task", "list", "--root", str(root)]) == 0
    assert "no open tasks" in capsys.readouterr().out
    assert main(["task", "list", "--root", str(root), "--all"]) == 0
    assert "closed (fixed)" in capsys.readouterr().out


def test_task_verify_refuses_a_non_positive_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tid = _linted(tmp_path, capsys)
    assert main(["task", "verify", tid, "--root", str(root), "--timeout", "0"]) == 2
    assert "--timeout must be positive" in capsys.readouterr().err


@pytest.mark.usefixtures("recheck_in_process")
def test_task_verify_of_a_deleted_file_is_not_a_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tid = _linted(tmp_path, capsys)
    (root / "a.py").unlink()
    code = main(["task", "verify", tid, "--root", str(root)])
    out = capsys.readouterr().out
    assert code == ExitCode.INCOMPLETE
    assert f"{tid}: recheck_incomplete" in out and "  reason: " in out


def test_next_names_the_open_task_in_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tid = _linted(tmp_path, capsys)
    assert main(["next", "--root", str(root)]) == ExitCode.PASS
    assert tid in capsys.readouterr().out
    assert main(["next", "--root", str(root), "--format", "json"]) == ExitCode.PASS
    assert json.loads(capsys.readouterr().out)["open_task_ids"] == [tid]
