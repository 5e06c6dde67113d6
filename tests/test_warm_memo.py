"""What a warm engine keeps between requests (orchestrator/statmemo.py), and when it
lets go: plugin discovery and registration, the git top level. Each answer holds only
while the files it rests on keep their stat; a cold process keeps nothing."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from helpers import require_tool

from orchestrator import statmemo
from orchestrator.core import plugin_host
from orchestrator.deadline import Deadline
from orchestrator.git import repo as git_repo

PAST = 1_000_000_000  # 2001: far outside the racy window


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Memos on, as in the engine, and empty before and after."""
    memos = (plugin_host._REGISTERED, git_repo._TOPS)
    for m in memos:
        m.clear()
    statmemo.enable()
    try:
        yield
    finally:
        statmemo.enable(False)
        for m in memos:
            m.clear()


def _age(*paths: Path) -> None:
    for p in paths:
        os.utime(p, (PAST, PAST))


def _dist(folder: Path, name: str) -> Path:
    """A distribution in `folder` offering one `orchestrate` plugin module `name`."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[orchestrate]\n{name} = {name}\n")
    (folder / f"{name}.py").write_text("")
    _age(info / "METADATA", info / "entry_points.txt", info, folder / f"{name}.py")
    return info


def _refuse_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_entry_points(**_: object) -> object:
        raise AssertionError("the metadata was read again")

    monkeypatch.setattr(metadata, "entry_points", fake_entry_points)


def test_discovery_is_kept_while_the_import_folders_keep_their_stat(
    warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _dist(site, "fakeplug_one")
    _age(site)
    monkeypatch.syspath_prepend(str(site))
    first = [fp.name for fp, _ in plugin_host.discover()]
    assert "fakeplug_one" in first
    with monkeypatch.context() as m:
        _refuse_entry_points(m)
        assert [fp.name for fp, _ in plugin_host.discover()] == first
    # A distribution installed into the same folder changes its stat: seen at once.
    _dist(site, "fakeplug_two")
    os.utime(site, None)
    assert "fakeplug_two" in [fp.name for fp, _ in plugin_host.discover()]


def test_discovery_sees_a_plugin_rewritten_in_place(
    warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    info = _dist(site, "fakeplug_one")
    _age(site)
    monkeypatch.syspath_prepend(str(site))
    assert "fakeplug_one" in [fp.name for fp, _ in plugin_host.discover()]
    (info / "entry_points.txt").write_text("[orchestrate]\nfakeplug_renamed = fakeplug_one\n")
    names = [fp.name for fp, _ in plugin_host.discover()]
    assert "fakeplug_renamed" in names and "fakeplug_one" not in names


def test_registration_is_kept_but_checkers_are_fresh_each_run(warm: None) -> None:
    one, two = plugin_host.load(), plugin_host.load()
    assert one.pm is two.pm
    assert [c.name for c in one.checkers()] == [c.name for c in two.checkers()]
    assert not {id(c) for c in one.checkers()} & {id(c) for c in two.checkers()}
    assert one.loaded == two.loaded and one.failed == two.failed


def test_a_failing_checker_is_reported_every_run(warm: None) -> None:
    class Broken:
        @staticmethod
        def orchestrate_checkers() -> list[object]:
            return [object()]

    for _ in range(2):
        ps = plugin_host.load(extra_modules=[("broken", Broken)])
        assert [f.name for f in ps.failed] == ["broken"]
        assert "broken" not in [p.name for p in ps.loaded]


def _git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def test_the_top_level_is_kept_until_a_nested_repository_appears(
    warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_tool("git", "install git (apt-get install git)")
    top = tmp_path / "top"
    sub = top / "sub"
    sub.mkdir(parents=True)
    _git_init(top)
    git_dir = top / ".git"
    _age(git_dir / "HEAD", git_dir / "config", git_dir, sub, top, tmp_path)
    asked: list[Path] = []
    real = git_repo._top

    def counting(git: git_repo.Git) -> Path | None:
        asked.append(git.root)
        return real(git)

    monkeypatch.setattr(git_repo, "_top", counting)
    deadline = Deadline.after(10)
    assert git_repo.find_repo(sub, deadline) == top.resolve()
    assert git_repo.find_repo(sub, deadline) == top.resolve()
    assert len(asked) == 1  # the second answer came without running git
    _git_init(sub)
    assert git_repo.find_repo(sub, deadline) == sub.resolve()
    assert len(asked) == 2


def test_git_is_asked_each_time_when_the_environment_names_the_repository(
    warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_tool("git", "install git (apt-get install git)")
    _git_init(tmp_path / "r")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "r" / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path / "r"))
    asked: list[Path] = []
    real = git_repo._top
    monkeypatch.setattr(git_repo, "_top", lambda g: asked.append(g.root) or real(g))
    for _ in range(2):
        assert git_repo.find_repo(tmp_path, Deadline.after(10)) == (tmp_path / "r").resolve()
    assert len(asked) == 2


def test_a_recent_change_is_never_trusted(warm: None, tmp_path: Path) -> None:
    memo = statmemo.StatMemo()
    f = tmp_path / "f"
    f.write_text("a")
    calls: list[int] = []

    def compute() -> str:
        calls.append(1)
        return f.read_text()

    assert memo.get("k", [str(f)], compute) == "a"
    assert memo.get("k", [str(f)], compute) == "a"
    assert len(calls) == 2  # written within the racy window: computed again
    _age(f)
    memo.get("k", [str(f)], compute)
    memo.get("k", [str(f)], compute)
    assert len(calls) == 3


def test_ruffs_wheel_version_is_read_once_per_stat_of_the_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrate_plugins import ruff_checker

    from orchestrator.checkers import tools

    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir()
    tool = fake_bin / "ruff"
    tool.write_text("")
    _age(tool)
    read: list[str] = []

    def fake_version(name: str) -> str:
        read.append(name)
        return f"9.{len(read)}"

    monkeypatch.setattr(ruff_checker, "interpreter_bin_dir", lambda: fake_bin)
    monkeypatch.setattr(ruff_checker, "_dist_info_version", fake_version)
    monkeypatch.setattr(ruff_checker.metadata, "version", fake_version)
    monkeypatch.setattr(tools, "_VERSION_CACHE", {})
    assert ruff_checker._wheel_version(str(tool)) == "ruff 9.1"
    assert ruff_checker._wheel_version(str(tool)) == "ruff 9.1"
    assert read == ["ruff"]
    tool.write_text("#")  # a reinstall: the binary's mtime changes
    os.utime(tool, (PAST + 5, PAST + 5))
    assert ruff_checker._wheel_version(str(tool)) == "ruff 9.2"


def test_a_ruff_config_is_parsed_once_per_stat_and_each_caller_owns_its_copy(
    warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrate_plugins import _ruff_config

    _ruff_config._TABLES.clear()
    config = tmp_path / "ruff.toml"
    config.write_text('line-length = 90\nlint.select = ["E"]\n')
    _age(config)
    first = _ruff_config.ruff_table(config)
    assert first == {"line-length": 90, "lint": {"select": ["E"]}}
    first["lint"]["select"].append("F")  # a caller's change stays its own
    with monkeypatch.context() as m:
        m.setattr(_ruff_config.tomllib, "loads", lambda _: pytest.fail("parsed again"))
        assert _ruff_config.ruff_table(config) == {"line-length": 90, "lint": {"select": ["E"]}}
    config.write_text('line-length = 80\nlint.select = ["E"]\n')  # same size, new content
    os.utime(config, (PAST + 5, PAST + 5))
    assert _ruff_config.ruff_table(config) == {"line-length": 80, "lint": {"select": ["E"]}}
    _ruff_config._TABLES.clear()


def test_the_pre_commit_pin_follows_its_file(warm: None, tmp_path: Path) -> None:
    from orchestrate_plugins import _pins

    _pins._REVS.clear()
    hook = "repos:\n- repo: https://github.com/astral-sh/ruff-pre-commit\n  rev: v0.1.{n}\n"
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(hook.format(n=1))
    _age(config)
    assert _pins.precommit_rev(tmp_path, "ruff-pre-commit").version == "0.1.1"  # type: ignore[union-attr]
    config.write_text(hook.format(n=2))
    os.utime(config, (PAST + 5, PAST + 5))
    assert _pins.precommit_rev(tmp_path, "ruff-pre-commit").version == "0.1.2"  # type: ignore[union-attr]
    config.unlink()
    assert _pins.precommit_rev(tmp_path, "ruff-pre-commit") is None
    _pins._REVS.clear()


def test_the_project_config_is_validated_once_per_stat_of_its_files(
    warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrator.core import config as config_mod
    from orchestrator.errors import UsageError

    config_mod._LOADED.clear()
    own = tmp_path / "orchestrate.toml"
    own.write_text("[server]\nidle_timeout = 60\n")
    _age(own, tmp_path)
    first = config_mod.load_config(tmp_path)
    assert first["server"]["idle_timeout"] == 60
    first["server"]["idle_timeout"] = 1  # a caller's change stays its own
    with monkeypatch.context() as m:
        m.setattr(config_mod, "_validate_settings", lambda *a: pytest.fail("validated again"))
        assert config_mod.load_config(tmp_path)["server"]["idle_timeout"] == 60
    own.write_text("[server]\nidle_timeout = 61\n")
    os.utime(own, (PAST + 5, PAST + 5))
    assert config_mod.load_config(tmp_path)["server"]["idle_timeout"] == 61
    own.write_text("[server]\nno_such_key = 1\n")  # an error is reported every time
    os.utime(own, (PAST + 9, PAST + 9))
    for _ in range(2):
        with pytest.raises(UsageError, match="no_such_key"):
            config_mod.load_config(tmp_path)
    # A pyproject.toml appearing beside it is seen (orchestrate.toml still wins).
    own.unlink()
    (tmp_path / "pyproject.toml").write_text("[tool.orchestrate.server]\nidle_timeout = 70\n")
    assert config_mod.load_config(tmp_path)["server"]["idle_timeout"] == 70
    config_mod._LOADED.clear()


def test_a_relative_folder_is_its_absolute_path_for_the_memo(
    warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_tool("git", "install git (apt-get install git)")
    for name in ("a", "b"):
        _git_init(tmp_path / name)
        _age(tmp_path / name / ".git", tmp_path / name)
    _age(tmp_path)
    for name in ("a", "b", "a"):  # one process, clients in two folders, as in the engine
        monkeypatch.chdir(tmp_path / name)
        assert git_repo.find_repo(Path("."), Deadline.after(10)) == (tmp_path / name).resolve()
