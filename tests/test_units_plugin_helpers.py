"""Unit tests of the built-in plugins' helper modules, in process."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from orchestrate_plugins import _rubocop_config as rubocop_config
from orchestrate_plugins import _ruff_rules
from orchestrate_plugins._ruff_rules import INFORMATION_URI, cache_file, rule_docs
from orchestrate_plugins.eslint_text import Text, edit, pos
from orchestrate_plugins.exact_inprocess import errors, identity, is_jsonc, strip_jsonc
from orchestrate_plugins.exact_versions import Declared, declared, older, other_major, version_tuple
from orchestrate_plugins.secrets_decode import binary_runs, views
from orchestrate_plugins.treesitter_filters import (
    mask_conditionals,
    mask_macro_lines,
    mask_macro_names,
)


def test_views_of_plain_text_are_the_bytes() -> None:
    v = views(b"token = abc\n")
    assert v.kind == "text" and v.unreadable is None
    assert [x.data for x in v.views] == [b"token = abc\n"]
    assert v.views[0].lines


def test_views_decode_a_bom_declared_utf16_text() -> None:
    v = views(codecs.BOM_UTF16_LE + "key=AKIA\n".encode("utf-16-le"))
    assert v.kind == "utf-16-le" and v.unreadable is None
    assert v.views[0].data == b"key=AKIA\n"


def test_views_name_an_invalid_bom_declared_text() -> None:
    v = views(codecs.BOM_UTF16_LE + b"\x00\xd8")  # a lone high surrogate
    assert v.kind == "utf-16-le"
    assert v.unreadable is not None and "UTF-16LE" in v.unreadable


def test_views_guess_bomless_utf16_and_keep_raw_runs() -> None:
    v = views("secret=value1234\n".encode("utf-16-le"))
    assert v.kind == "utf-16-le"
    assert v.views[0].data == b"secret=value1234\n"
    assert len(v.views) == 3


def test_binary_runs_strip_nuls() -> None:
    raw, stripped = binary_runs(b"a\0b\0\x01")
    assert raw.data == b"a\0b\0\x01" and stripped.data == b"ab\x01"
    assert views(b"\x01\x00\x02\x03\x00\x00\xff").kind == "binary"


def test_text_maps_utf16_offsets_and_lines() -> None:
    t = Text("\ufeffa😀b\nc".encode())
    assert t.text == "a😀b\nc"
    assert t.index(3) == 2  # 'b' sits after a surrogate pair
    assert t.index(99) == len(t.text)
    assert t.line_col(4) == (2, 1)
    assert t.line(1) == "a😀b" and t.line(2) == "c" and t.line(3) == ""


def test_edit_of_a_fix_and_of_a_suggestion() -> None:
    t = Text(b"let x = 1;\n")
    fix = edit({"range": [0, 3], "text": "const"}, t, suggestion=False)
    assert fix["exact_edit"].match == "let" and fix["exact_edit"].replacement == "const"
    assert fix["safety_tier"] == "auto" and fix["fix_applicability"] == "fix"
    sug = edit({"range": [0, 3], "text": "var"}, t, suggestion=True)
    assert sug["is_destructive"] and sug["safety_tier"] == "confirm"
    assert edit({"range": [3, 0], "text": ""}, t, False) == {}
    assert edit("nope", t, False) == {}


def test_pos_accepts_only_positive_ints() -> None:
    assert pos(3) == 3
    assert pos(0) is None and pos("1") is None and pos(None) is None


def test_declared_reads_the_nearest_go_mod(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n\ngo 1.21\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "go.mod").write_text("module y\ngo 1.19.2\n")
    near = declared("go", tmp_path, "sub/main.go")
    assert near == Declared(version="1.19.2", where="sub/go.mod")
    assert declared("go", tmp_path, "main.go") == Declared(version="1.21", where="go.mod")
    assert declared("php", tmp_path, "main.go") is None
    assert declared(None, tmp_path, "main.go") is None


def test_version_comparisons() -> None:
    assert version_tuple("go1.19.8") == (1, 19, 8)
    assert version_tuple("none") is None
    assert older("1.18.3", "1.19") is True
    assert older("1.19.3", "1.19") is False
    assert older(None, "1.19") is None
    assert other_major("2.0", "1.9") and not other_major("1.2", "1.9")
    assert other_major(None, "1")


def test_jsonc_names_and_stripping() -> None:
    assert is_jsonc("tsconfig.json") and is_jsonc("a/.vscode/settings.json")
    assert is_jsonc("X.JSONC") and not is_jsonc("package.json")
    text = '{"a": 1, // note\n "b": "//x",}'
    stripped = strip_jsonc(text)
    assert len(stripped) == len(text) and '"//x"' in stripped
    assert json.loads(stripped) == {"a": 1, "b": "//x"}


def test_in_process_parsers_report_errors_with_positions() -> None:
    assert errors("json", b'{"a": 1}', "a.json") == []
    assert errors("json", b'{"a": 1,}', "tsconfig.json") == []
    (line, _col, _msg), *_ = errors("json", b'{\n"a": 1,}', "a.json")
    assert line == 2
    assert errors("json", b"[NaN]", "a.json")[0][0] == 1
    assert errors("toml", b"a = 1\n", "a.toml") == []
    assert errors("toml", b"a = 1\nb = \n", "a.toml")[0][0] == 2
    assert errors("yaml", b"a: 1\n", "a.yaml") == []
    assert errors("yaml", b"a: [1\n", "a.yaml")
    assert identity("json").startswith("python json ")
    assert identity("toml").startswith("python tomllib ")
    assert identity("yaml").startswith("PyYAML ")


def test_mask_conditionals_keeps_the_first_branch_only() -> None:
    src = b"#if A\nint a;\n#else\nint b;\n#endif\nint c;\n"
    masked = mask_conditionals(src)
    assert len(masked) == len(src) and masked.count(b"\n") == src.count(b"\n")
    assert b"int a;" in masked and b"int c;" in masked
    assert b"int b;" not in masked and b"#" not in masked


def test_mask_macro_lines_blanks_bare_invocations_only() -> None:
    masked = mask_macro_lines(b"int x;\nFOO_BAR(1)\nBAZ(2);\n")
    assert masked == b"int x;\n          \nBAZ(2);\n"


def test_mask_macro_names_blanks_qualifiers_and_keeps_type_names() -> None:
    src = b"U_CAPI int f(void);\nEVP_MD *md;\n"
    assert mask_macro_names(src) == b"       int f(void);\nEVP_MD *md;\n"
    assert mask_macro_names(b"EVP_MD *md;\n", everywhere=True) == b"       *md;\n"


def test_ruff_rule_cache_file_is_named_after_a_safe_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_ruff_rules, "user_cache_root", lambda: tmp_path)
    assert cache_file("ruff 0.8.1") == tmp_path / "ruff-rules" / "0.8.1.json"
    assert cache_file("../x y").name == ".._x_y.json"
    assert cache_file("ruff ").name == "unknown.json"


def test_ruff_rule_docs_read_a_kept_table_and_run_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_ruff_rules, "user_cache_root", lambda: tmp_path)
    assert rule_docs(None, "0.8.1") is None and rule_docs("ruff", None) is None
    kept = cache_file("0.8.1")
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps({"F401": {"name": "unused-import", "short_description": "unused"}}))
    monkeypatch.setattr(_ruff_rules, "_ask_ruff", lambda _tool: pytest.fail("ran ruff"))
    docs = rule_docs("/bin/ruff", "ruff 0.8.1")
    assert docs is not None and docs["information_uri"] == INFORMATION_URI
    assert docs["rules"]["F401"]["help_uri"] == INFORMATION_URI + "rules/unused-import/"


def test_ruff_rule_docs_without_an_answer_give_the_home_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_ruff_rules, "user_cache_root", lambda: tmp_path)
    monkeypatch.setattr(_ruff_rules, "_ask_ruff", lambda _tool: None)
    assert rule_docs("/bin/ruff", "0.9.0") == {"information_uri": INFORMATION_URI}


def test_rubocop_nearest_config_and_local_chain(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".rubocop.yml").write_text("inherit_from: base.yml\nrequire: rubocop-rails\n")
    (tmp_path / "base.yml").write_text("plugins: [rubocop-performance]\n")
    config = rubocop_config.nearest_config(tmp_path, "sub/a.rb")
    assert config == tmp_path / ".rubocop.yml"
    got = rubocop_config.describe(tmp_path, config)
    assert got.refusal is None
    assert got.chain == (config, tmp_path / "base.yml")
    assert got.requires == ("rubocop-rails", "rubocop-performance")
    assert rubocop_config.nearest_config(tmp_path / "sub", "a.rb") is None


def test_rubocop_config_that_fetches_or_loads_a_file_is_refused(tmp_path: Path) -> None:
    config = tmp_path / ".rubocop.yml"
    config.write_text("inherit_from: https://example.invalid/x.yml\n")
    refusal = rubocop_config.describe(tmp_path, config).refusal
    assert refusal is not None and "remote config" in refusal.reason
    config.write_text("require: ./local.rb\n")
    refusal = rubocop_config.describe(tmp_path, config).refusal
    assert refusal is not None and "loads a file" in refusal.reason


def test_rubocop_options_file_allows_display_options_only(tmp_path: Path) -> None:
    assert rubocop_config.options_refusal(tmp_path) is None
    (tmp_path / ".rubocop").write_text("--color -D\n")
    assert rubocop_config.options_refusal(tmp_path) is None
    (tmp_path / ".rubocop").write_text("--color --autocorrect\n")
    refusal = rubocop_config.options_refusal(tmp_path)
    assert refusal is not None and "--autocorrect" in refusal.reason
