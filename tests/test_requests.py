"""The one builder of the core's `LintRequest` (usecases/requests.py) and the exit codes
of `baseline`, `lint --diff` and `lint --since` (decisions/exits.py), in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git, new_repo

from orchestrator.deadline import FEEDBACK_DEADLINE_S
from orchestrator.decisions.exits import (
    NO_COMMAND,
    UNAVAILABLE_COMMAND,
    baseline_exit,
    diff_exit,
    unknown_base_exit,
)
from orchestrator.errors import UsageError
from orchestrator.usecases.lint import FULL_TIMEOUT_S
from orchestrator.usecases.requests import (
    baseline_request,
    buffer_request,
    lint_request,
    project_root,
    since_paths,
)
from orchestrator.vocab import ExitCode


def test_the_exit_codes_of_baseline_diff_and_an_unknown_since_base() -> None:
    assert baseline_exit(written=True) == ExitCode.PASS
    assert baseline_exit(written=False) == ExitCode.INCOMPLETE
    assert diff_exit(changes=True) == ExitCode.FINDINGS
    assert diff_exit(changes=False) == ExitCode.PASS
    assert unknown_base_exit() == ExitCode.INCOMPLETE
    assert NO_COMMAND == ExitCode.USAGE
    assert UNAVAILABLE_COMMAND == ExitCode.INTERNAL


def test_a_plain_lint_request_names_its_paths_under_the_full_deadline(tmp_path: Path) -> None:
    req = lint_request(tmp_path, tmp_path, ["a.py"], only=["ruff"], require=["native"])
    assert req.paths == ("a.py",)
    assert req.entry == "lint"
    assert req.timeout == FULL_TIMEOUT_S
    assert req.paths_named and req.targets is None
    assert req.only_checkers == frozenset({"ruff"})
    assert tuple(req.require) == ("native",)
    assert req.shard is None


def test_feedback_since_and_hook_requests(tmp_path: Path) -> None:
    feedback = lint_request(tmp_path, tmp_path, feedback=True)
    assert (feedback.entry, feedback.timeout) == ("feedback", FEEDBACK_DEADLINE_S)
    assert lint_request(tmp_path, tmp_path, timeout=7.0).timeout == 7.0
    # `--since` with nothing changed is an empty run, never the whole project.
    empty = lint_request(tmp_path, tmp_path, since=True)
    assert list(empty.targets or ()) == [] and empty.targets is not None
    assert not empty.paths_named
    assert not lint_request(tmp_path, tmp_path, ["x"], from_hook=True).paths_named
    assert lint_request(tmp_path, tmp_path, shard="1/2").shard is not None


def test_the_editor_asks_what_lint_feedback_asks(tmp_path: Path) -> None:
    buffer = buffer_request(tmp_path, "a.py", FEEDBACK_DEADLINE_S)
    cli = lint_request(tmp_path, tmp_path, ["a.py"], feedback=True)
    assert buffer == cli


def test_baseline_request_and_project_root(tmp_path: Path) -> None:
    req = baseline_request(tmp_path)
    assert (req.project_root, req.cwd, req.timeout) == (tmp_path, tmp_path, FULL_TIMEOUT_S)
    assert project_root(str(tmp_path), Path("/")) == tmp_path.resolve()


def test_since_paths_limits_to_the_named_paths_and_reports_an_unknown_rev(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "r")
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    git(repo, "commit", "-qm", "base")
    (repo / "sub").mkdir()
    (repo / "sub" / "b.py").write_text("y = 2\n")
    (repo / "c.py").write_text("z = 3\n")
    everything = since_paths(repo, "HEAD", [], repo)
    assert sorted(Path(p).name for p in everything.paths) == ["b.py", "c.py"]
    assert not everything.problem
    only_sub = since_paths(repo, "HEAD", ["sub"], repo)
    assert [Path(p).name for p in only_sub.paths] == ["b.py"]
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UsageError):
        since_paths(plain, "HEAD", [], plain)


def test_the_feedback_deadline_is_written_once() -> None:
    """Save feedback's 20 seconds: the CLI route, the editor, the agent's edit feedback
    and the warm engine's client (a copy: it starts without dataclasses) read
    `deadline.FEEDBACK_DEADLINE_S`."""
    from orchestrator.hosts.budgets import FAST_DEADLINE_S
    from orchestrator.server.client import FEEDBACK_SECONDS
    from orchestrator.usecases.lint import deadline_for

    assert FEEDBACK_DEADLINE_S == 20.0
    assert deadline_for(None, True) == FAST_DEADLINE_S == FEEDBACK_SECONDS == FEEDBACK_DEADLINE_S
