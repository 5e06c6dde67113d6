"""Version probes (`TOOL --version`) run on the run's deadline, not on a fixed 10 s.

The tools are FAKES written here (scripts named fake-*) that hang on `--version`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from orchestrate_plugins.ruby_checker import RubyChecker

from orchestrator.api import (
    PROBE_SECONDS,
    Deadline,
    FileTarget,
    RunContext,
    ScopeStatus,
    probe_version,
    tool_version,
)

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


def _same_stamp_of_time(*paths: Path) -> None:
    for p in paths:  # what an installer that fixes every file's mtime does (npm)
        os.utime(p, ns=(499_162_500_000_000_000, 499_162_500_000_000_000))


def test_a_link_swapped_to_another_program_is_probed_again(tmp_path: Path) -> None:
    """`node_modules/.bin/TOOL` style: the link is repointed to an upgraded program with
    the same mtime; the cached version of the old one must not stand."""
    old = _fake(tmp_path / "fake-v1", "echo tool 1.0.0")
    new = _fake(tmp_path / "fake-v2", "echo tool 2.0.0")
    _same_stamp_of_time(Path(old), Path(new))
    link = tmp_path / "bin" / "tool"
    link.parent.mkdir()
    link.symlink_to(old)
    assert tool_version(str(link)) == "tool 1.0.0"
    swapped = tmp_path / "bin" / "tool.new"
    swapped.symlink_to(new)
    swapped.replace(link)
    assert tool_version(str(link)) == "tool 2.0.0"


def test_a_wrapper_whose_target_changed_is_probed_again(tmp_path: Path) -> None:
    """A wrapper script (a shim) that runs a program by its absolute path: the wrapper
    is unchanged, the program behind it replaced."""
    target = tmp_path / "opt" / "tool"
    target.parent.mkdir()
    _fake(target, "echo tool 1.0.0")
    wrapper = tmp_path / "fake-shim"
    wrapper.write_text(f'#!/bin/sh\nexec {target} "$@"\n')
    wrapper.chmod(0o755)
    assert tool_version(str(wrapper)) == "tool 1.0.0"
    replacement = tmp_path / "opt" / "tool.new"
    _fake(replacement, "echo tool 2.0.0")
    _same_stamp_of_time(target, replacement)
    replacement.replace(target)
    assert tool_version(str(wrapper)) == "tool 2.0.0"
