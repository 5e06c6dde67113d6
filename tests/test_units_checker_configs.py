"""Unit tests of the config-file helpers a checker's probe and reuse identity use
(orchestrator.checkers.configs), and that the public API names the base itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator import api
from orchestrator.checkers import command
from orchestrator.checkers.configs import (
    MAX_SECTION_FILE_BYTES,
    digest_files,
    folders_up,
    holds_section,
    may_hold_section,
    root_configs,
)


def test_the_api_re_exports_the_base_and_the_helpers() -> None:
    assert api.CommandChecker is command.CommandChecker
    assert api.folders_up is folders_up
    assert api.digest_files is digest_files


def test_folders_up_stops_at_the_root_and_never_leaves_it(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    assert folders_up(tmp_path, deep) == [deep, tmp_path / "a", tmp_path]
    assert folders_up(tmp_path, tmp_path) == [tmp_path]
    assert folders_up(tmp_path / "a", tmp_path) == []


def test_root_configs_names_only_files_directly_in_the_root(tmp_path: Path) -> None:
    (tmp_path / ".yamllint").write_text("extends: default\n")
    (tmp_path / ".yamllint.yml").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".yamllint.yaml").write_text("x\n")
    names = (".yamllint", ".yamllint.yaml", ".yamllint.yml")
    assert root_configs(tmp_path, names) == (".yamllint",)


def test_digest_follows_bytes_and_presence_and_not_order(tmp_path: Path) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text("x = 1\n")
    first = digest_files([a, b])
    assert digest_files([b, a]) == first
    assert digest_files([a, b, a]) == first
    b.write_text("")
    with_empty_b = digest_files([a, b])
    assert with_empty_b != first  # a file appearing changes the identity
    a.write_text("x = 2\n")
    assert digest_files([a, b]) != with_empty_b


def test_holds_section_reads_a_toml_table_or_an_ini_section_and_nothing_else(
    tmp_path: Path,
) -> None:
    """A shared config file (pyproject.toml, setup.cfg) is a tool's config only when it
    holds the tool's section; broken, oversized or undecodable files hold none."""
    toml = tmp_path / "pyproject.toml"
    toml.write_text("[tool.mypy]\nstrict = true\n")
    assert holds_section(toml, "tool.mypy") and not holds_section(toml, "tool.codespell")
    toml.write_text("[tool]\nmypy = 1\n")  # a value, not a table
    assert not holds_section(toml, "tool.mypy")
    toml.write_text("[tool.mypy\n")
    assert not holds_section(toml, "tool.mypy")
    cfg = tmp_path / "setup.cfg"
    cfg.write_text("[metadata]\nname = x\n[mypy]\nstrict = True\n")
    assert holds_section(cfg, "mypy") and not holds_section(cfg, "codespell")
    cfg.write_text("no section header\n")
    assert not holds_section(cfg, "mypy")
    cfg.write_bytes(b"[mypy]\n\xff\n")
    assert not holds_section(cfg, "mypy")
    cfg.write_text("[mypy]\n" + "#" * MAX_SECTION_FILE_BYTES)
    assert not holds_section(cfg, "mypy")
    assert not holds_section(tmp_path / "absent.cfg", "mypy")
    (tmp_path / "dir.cfg").mkdir()
    assert not holds_section(tmp_path / "dir.cfg", "mypy")


def test_holds_section_reads_a_dotted_key_of_a_yaml_file(tmp_path: Path) -> None:
    """package.yaml (prettier reads its `prettier` key): a top-level key of a YAML
    mapping, any value; a key elsewhere, a list, a broken or undecodable YAML file holds
    none, but one not read here may hold it (a gate fails closed)."""
    pkg = tmp_path / "package.yaml"
    pkg.write_text("name: x\nprettier:\n  semi: false\n")
    assert holds_section(pkg, "prettier") and not holds_section(pkg, "eslintConfig")
    pkg.write_text("prettier: '@company/prettier-config'\n")
    assert holds_section(pkg, "prettier")
    pkg.write_text("name: x\nconfig:\n  prettier: {}\n")
    assert not holds_section(pkg, "prettier") and holds_section(pkg, "config.prettier")
    pkg.write_text("- prettier\n")
    assert not holds_section(pkg, "prettier")
    pkg.write_text("prettier: [\n")
    assert not holds_section(pkg, "prettier") and may_hold_section(pkg, "prettier")
    pkg.write_bytes(b"prettier: {}\nx: \xff\n")
    assert not holds_section(pkg, "prettier") and may_hold_section(pkg, "prettier")
    yml = tmp_path / "tool.yml"
    yml.write_text("a:\n  b: 1\n")
    assert holds_section(yml, "a.b") and not holds_section(yml, "a.c")


def test_a_file_not_read_here_may_hold_the_section_that_would_run_code(tmp_path: Path) -> None:
    """`may_hold_section` (a strict gate holding back a config that names modules)
    fails closed: a byte that is not UTF-8 (Node.js reads it as U+FFFD), a BOM, a file
    over the size read or a syntax Python refuses may hold the key; a file read whole
    holds what it holds; an absent file or a folder holds none."""
    rc = tmp_path / ".stylelintrc.json"
    rc.write_bytes(b'{"extends": ["./evil.js"], "x": "\xff"}\n')
    assert may_hold_section(rc, "extends") and not holds_section(rc, "extends")
    rc.write_text('\ufeff{"extends": "./evil.js"}\n', encoding="utf-8")
    assert may_hold_section(rc, "extends")
    rc.write_text('{"extends": "./evil.js", "x": "' + "a" * MAX_SECTION_FILE_BYTES + '"}')
    assert may_hold_section(rc, "extends")
    rc.write_text('{"rules": {}, "x": NaN')
    assert may_hold_section(rc, "extends")
    rc.write_text('{"rules": {"block-no-empty": true}}\n')
    assert not may_hold_section(rc, "extends")
    rc.write_text('{"extends": "x"}\n')
    assert may_hold_section(rc, "extends")
    assert not may_hold_section(tmp_path / "absent.json", "extends")
    (tmp_path / "dir.json").mkdir()
    assert not may_hold_section(tmp_path / "dir.json", "extends")


@pytest.mark.parametrize("name", ["package.json", "package.yaml"])
def test_a_config_nested_past_the_parser_is_not_read_and_never_raises(
    tmp_path: Path, name: str
) -> None:
    """A shared config nested deeper than Python's JSON or YAML reader follows (an
    adversarial `[[[[...` well under the size cap) is a file not read here: it holds no
    section, may hold one (a gate holding back what the section runs fails closed), and
    the claim that asked never raises (it was a RecursionError: every file of the tool
    `tool_error`)."""
    path = tmp_path / name
    path.write_text("[" * 30_000)
    assert holds_section(path, "prettier") is False
    assert may_hold_section(path, "prettier") is True
