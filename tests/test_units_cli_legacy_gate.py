"""The legacy-v1 git gate and soft prompt gate presenters (cli/legacy_gate) in process,
on real git repositories with real Ruff: exit 2 blocks, everything else is exit 0 and
says whether anything was certified. The same outcomes through the console script are
end-to-end cases (tests/test_legacy.py)."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest
from gate_support import BAD_PY, GOOD_PY, SECRET_VALUE
from helpers import new_repo, stage

from orchestrator.cli import legacy_gate as lg


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository as the working folder, private cache and config folders, no skip."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("CODEGUARD_SKIP_GATE", raising=False)
    root = new_repo(tmp_path / "r")
    monkeypatch.chdir(root)
    return root


def _gate(event: str = "commit") -> argparse.Namespace:
    return argparse.Namespace(event=event, timeout=None, format="human", output=None)


def test_a_clean_commit_passes_with_exit_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stage(repo, {"a.py": GOOD_PY})
    assert lg.run_legacy(_gate()) == 0
    assert "pass" in capsys.readouterr().out


def test_a_blocking_finding_blocks_with_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stage(repo, {"a.py": BAD_PY})
    assert lg.run_legacy(_gate()) == 2
    assert "blocked" in capsys.readouterr().out


def test_a_skip_passes_uncertified_and_is_counted(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stage(repo, {"a.py": BAD_PY})
    monkeypatch.setenv("CODEGUARD_SKIP_GATE", "1")
    assert lg.run_legacy(_gate()) == 0
    out = capsys.readouterr().out
    assert "skipped, not certified" in out
    assert "skip #1 recorded in .orchestrate/audit/" in out


def test_a_skip_with_a_staged_secret_still_blocks_and_names_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stage(repo, {"a.py": BAD_PY, "config/.env": f"TOKEN={SECRET_VALUE}\n"})
    monkeypatch.setenv("CODEGUARD_SKIP_GATE", "1")
    assert lg.run_legacy(_gate()) == 2
    out = capsys.readouterr().out
    assert "secret: config/.env:1 " in out
    assert SECRET_VALUE not in out


def test_outside_a_repository_the_gate_fails_open_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert lg.run_legacy(_gate()) == 0
    assert capsys.readouterr().out.startswith("orchestrate legacy-v1 gate commit: ")


def test_an_internal_fault_is_exit_0_unverified_with_a_diagnostic(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken_gate(*args: object, **kwargs: object) -> None:  # a fake: fault injection
        raise RuntimeError("injected\nfault")

    monkeypatch.setattr(lg, "legacy_gate", broken_gate)
    assert lg.run_legacy(_gate()) == 0
    captured = capsys.readouterr()
    assert "diagnostic: RuntimeError: injected fault" in captured.err
    assert "UNVERIFIED" in captured.out and "nothing was certified" in captured.out


def test_ctrl_c_is_not_swallowed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:  # a fake: fault injection
        raise KeyboardInterrupt

    monkeypatch.setattr(lg, "legacy_gate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        lg.run_legacy(_gate())


def _prompt(monkeypatch: pytest.MonkeyPatch, event: object) -> None:
    data = json.dumps(event).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_the_prompt_gate_answers_a_commit_prompt_with_advice_and_never_blocks(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stage(repo, {"a.py": BAD_PY})
    _prompt(monkeypatch, {"prompt": "please commit this", "cwd": str(repo)})
    assert lg.cmd_legacy_prompt(argparse.Namespace()) == 0
    out = json.loads(capsys.readouterr().out)
    hook = out["hookSpecificOutput"]
    assert hook["hookEventName"] == "UserPromptSubmit"
    assert "the commit gate answers blocked" in hook["additionalContext"]
    assert len(hook["additionalContext"]) <= lg.MAX_CONTEXT


def test_the_prompt_gate_says_nothing_without_commit_intent(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _prompt(monkeypatch, {"prompt": "explain the code", "cwd": str(repo)})
    assert lg.cmd_legacy_prompt(argparse.Namespace()) == 0
    assert capsys.readouterr().out == ""
    # A stdin without bytes under it (replaced by text) is no event either.
    monkeypatch.setattr(sys, "stdin", io.StringIO("{}"))
    assert lg.cmd_legacy_prompt(argparse.Namespace()) == 0
    assert capsys.readouterr().out == ""


def test_the_prompt_gate_under_a_skip_reports_the_staged_secret(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage(repo, {"config/.env": f"TOKEN={SECRET_VALUE}\n"})
    monkeypatch.setenv("CODEGUARD_SKIP_GATE", "yes")
    text = lg.soft_report({"prompt": "push it", "cwd": str(repo)})
    assert text is not None
    assert "skipped, not certified" in text and "audited as skip #1" in text
    assert "1 sensitive item(s) staged: config/.env:1 " in text and "exit 2" in text
    stage(repo, {"config/.env": "TOKEN=\n"})
    text = lg.soft_report({"prompt": "push it", "cwd": str(repo)})
    assert text is not None and text.endswith("nothing sensitive found.")


def test_a_fault_in_the_prompt_gate_is_said_unverified(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(event: object, timeout: float = 60.0) -> None:  # a fake: fault injection
        raise OSError("injected")

    monkeypatch.setattr(lg, "soft_report", broken)
    _prompt(monkeypatch, {"prompt": "commit", "cwd": str(repo)})
    assert lg.cmd_legacy_prompt(argparse.Namespace()) == 0
    captured = capsys.readouterr()
    assert "diagnostic: OSError" in captured.err
    context = json.loads(captured.out)["hookSpecificOutput"]["additionalContext"]
    assert "UNVERIFIED, not certified" in context
