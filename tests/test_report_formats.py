"""Report formats through the `orchestrate_report_formats` hook: a plugin adds a
`--format`, built-ins print without loading plugins, a built-in name cannot be taken."""

from __future__ import annotations

import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from orchestrator.api import ReportFormat, hookimpl
from orchestrator.cli.main import main
from orchestrator.core import plugin_host
from orchestrator.render import formats
from orchestrator.vocab import ExitCode


def _mine(report) -> str:  # type: ignore[no-untyped-def]
    return f"mine: {len(report.scopes)} scope(s), {len(report.findings)} finding(s)"


class MinePlugin:
    @hookimpl
    def orchestrate_report_formats(self) -> list[ReportFormat]:
        return [ReportFormat("mine", _mine, "a one-line count")]


class ClashPlugin:
    @hookimpl
    def orchestrate_report_formats(self) -> list[ReportFormat]:
        return [
            ReportFormat("json", _mine, "tries to replace the built-in json"),
            ReportFormat("other", _mine, "would be fine alone"),
        ]


class NotAFormatPlugin:
    @hookimpl
    def orchestrate_report_formats(self) -> list[object]:
        return [types.SimpleNamespace(name="odd", render=_mine)]


@pytest.fixture
def with_plugins(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Install in-process plugins for every `plugin_host.load` call of the test."""
    real = plugin_host.load

    def install(*extra: tuple[str, object]) -> None:
        def load(
            block: Sequence[str] = (), extra_modules: Sequence[tuple[str, object]] = ()
        ) -> plugin_host.PluginSet:
            return real(block=block, extra_modules=[*extra_modules, *extra])

        monkeypatch.setattr(plugin_host, "load", load)

    return install


def _project(tmp_path: Path) -> Path:
    (tmp_path / "ok.py").write_text("x = 1\n")
    return tmp_path


def _lint(root: Path, fmt: str) -> list[str]:
    return ["lint", "--root", str(root), "--no-tasks", "--format", fmt, str(root / "ok.py")]


def test_a_plugin_format_prints_its_rendering(with_plugins, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    with_plugins(("mine-plugin", MinePlugin()))
    code = main(_lint(_project(tmp_path), "mine"))
    out = capsys.readouterr().out
    assert code == ExitCode.PASS
    assert out.startswith("mine: ") and out.endswith("finding(s)\n")


def test_a_plugin_format_writes_to_output(with_plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with_plugins(("mine-plugin", MinePlugin()))
    dest = tmp_path / "report.txt"
    assert main([*_lint(_project(tmp_path), "mine"), "--output", str(dest)]) == ExitCode.PASS
    assert dest.read_text().startswith("mine: ")


def test_an_unknown_format_is_a_usage_error_naming_the_known(
    with_plugins, tmp_path, capsys
) -> None:  # type: ignore[no-untyped-def]
    with_plugins(("mine-plugin", MinePlugin()))
    assert main(_lint(_project(tmp_path), "nope")) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "unknown report format 'nope'" in err
    assert "known: human, json, sarif, github, concise, jsonl, rdjson, mine" in err


def test_a_clash_with_a_builtin_refuses_the_plugins_formats(with_plugins, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    with_plugins(("clash-plugin", ClashPlugin()), ("mine-plugin", MinePlugin()))
    assert main(_lint(_project(tmp_path), "other")) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "known: human, json, sarif, github, concise, jsonl, rdjson, mine" in err
    assert "plugin clash-plugin refused" in err and "already taken or repeated: json" in err
    # The built-in json is untouched: it still renders the standard report.
    assert formats.resolve("json") is formats.BUILTIN["json"]


def test_a_non_format_element_is_refused_with_a_reason(with_plugins) -> None:  # type: ignore[no-untyped-def]
    with_plugins(("odd-plugin", NotAFormatPlugin()))
    offered = plugin_host.load().report_formats(reserved=formats.BUILTIN)
    assert "odd" not in offered.formats
    (refused,) = offered.refused
    assert refused.name == "odd-plugin" and "not a ReportFormat" in refused.reason


def test_two_plugins_offering_one_name_keep_the_first_by_name() -> None:
    ps = plugin_host.load(extra_modules=[("b-plugin", MinePlugin()), ("a-plugin", MinePlugin())])
    offered = ps.report_formats(reserved=formats.BUILTIN)
    assert list(offered.formats) == ["mine"]
    assert [f.name for f in offered.refused] == ["b-plugin"]


@pytest.mark.parametrize("name", ["human", "json", "sarif", "github", "concise", "jsonl"])
def test_builtin_formats_resolve_without_loading_plugins(monkeypatch, name: str) -> None:  # type: ignore[no-untyped-def]
    def refuse(**_: object) -> None:
        raise AssertionError("plugins loaded for a built-in format")

    monkeypatch.setattr(plugin_host, "load", refuse)
    assert formats.resolve(name).name == name
    from orchestrator.cli.main import _report_format

    assert _report_format(name) == name
