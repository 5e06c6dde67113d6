"""Version probes (`TOOL --version`) run on the run's deadline, not on a fixed 10 s.

The tools are FAKES written here (scripts named fake-*) that hang on `--version`.
"""

from __future__ import annotations

import stat
from pathlib import Path

from orchestrate_plugins._common import PROBE_SECONDS, probe_version, tool_version
from orchestrate_plugins.ruby_checker import RubyChecker

from orchestrator.api import Deadline, FileTarget, RunContext, ScopeStatus

#: Far beyond the probe's own cap: a probe that ignores the deadline ends by the cap.
HANG = "sleep 60"


def _fake(path: Path, on_version: str) -> str:
    path.write_text(f'#!/bin/sh\ncase "$1" in --version) {on_version};; esac\nexit 0\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_ruby_probe_obeys_the_run_deadline(tmp_path: Path) -> None:
    # The run has one second left: the probe must end with the run, and say it timed
    # out. A probe on its own fixed cap ran 10 s and called the tool broken.
    fake = _fake(tmp_path / "fake-ruby", HANG)
    (tmp_path / "a.rb").write_text("puts 1\n")
    ctx = RunContext(
        project_root=tmp_path, deadline=Deadline.after(1.0), tool_overrides={"ruby": fake}
    )
    plan = RubyChecker().plan([FileTarget(path="a.rb", abs_path=tmp_path / "a.rb")], ctx)
    (out,) = plan.settled
    assert not plan.batches
    assert out.status == ScopeStatus.TIMED_OUT, out.reason
    assert "deadline" in (out.reason or "")


def test_probe_takes_the_smaller_of_cap_and_deadline(tmp_path: Path) -> None:
    fake = _fake(tmp_path / "fake-tool", HANG)
    got = probe_version(fake, Deadline.after(0.5))
    assert got.version is None and got.timed_out
    # A tiny cap wins over a long deadline the same way.
    got = probe_version(fake, Deadline.after(PROBE_SECONDS * 10), cap=0.5)
    assert got.timed_out


def test_failed_probe_says_why_and_is_not_cached(tmp_path: Path) -> None:
    fake = _fake(tmp_path / "fake-tool", "exit 3")
    got = probe_version(fake, Deadline.after(30))
    assert got.version is None and not got.timed_out and got.detail == "exit 3"
    fake = _fake(tmp_path / "fake-tool", 'echo "tool 1.2.3"; exit 0')
    assert tool_version(fake, deadline=Deadline.after(30)) == "tool 1.2.3"
