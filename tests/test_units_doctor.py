"""Unit tests of the doctor and init use case (usecases/doctor), in process."""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

import pytest

from orchestrator.cli import init_doctor
from orchestrator.errors import UsageError
from orchestrator.usecases.doctor import DoctorResult, LanguageRow, init, starter_config
from orchestrator.vocab import ExitCode


def test_a_language_is_proposed_at_what_every_file_meets() -> None:
    row = LanguageRow("python", files=3, native=2, syntax=1, none=0, required="native")
    assert row.met == "syntax" and row.proposed == "syntax" and row.gets == "native"
    full = LanguageRow("json", files=2, native=2, syntax=0, none=0, required="native")
    assert full.proposed == "native"


def test_starter_config_says_how_to_raise_a_lowered_language() -> None:
    rows = [
        LanguageRow("python", 3, 2, 1, 0, "native", why=("ruff: not configured",)),
        LanguageRow("json", 1, 1, 0, 0, "native"),
        LanguageRow("unrecognised", 4, 0, 0, 4, "none"),
    ]
    text = starter_config(DoctorResult(languages=rows))
    assert tomllib.loads(text) == {"required": {"python": "syntax", "json": "native"}}
    assert "#   not native: ruff: not configured" in text
    assert 'raise to "native" once every python file gets it' in text


def test_init_writes_a_starter_config_once(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"a": 1}\n')
    target, result = init(tmp_path)
    assert target == tmp_path / "orchestrate.toml"
    assert "required" in tomllib.loads(target.read_text())
    assert any(row.language == "json" for row in result.languages)
    with pytest.raises(UsageError, match="not overwritten"):
        init(tmp_path)


def test_doctor_and_init_presenters_print_what_they_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.json").write_text('{"a": 1}\n')
    args = argparse.Namespace(root=str(tmp_path), format="json")
    assert init_doctor.cmd_doctor(args) == ExitCode.PASS
    data = json.loads(capsys.readouterr().out)
    assert {"tools", "config_files", "languages"} <= set(data)
    assert any(row["language"] == "json" for row in data["languages"])
    assert init_doctor.cmd_init(argparse.Namespace(root=str(tmp_path))) == ExitCode.PASS
    out = capsys.readouterr().out
    assert out.startswith("wrote orchestrate.toml:") and "  json: 1 file(s)" in out
