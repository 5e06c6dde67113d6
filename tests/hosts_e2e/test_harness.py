"""The harness's own promises that need no host CLI: a missing or off-pin CLI fails
under CI=true (never a silent skip), and hook commands are made absolute."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from .harness import CODEX, require_host, substitute_command


def test_missing_cli_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = dataclasses.replace(CODEX, locate=lambda: (None, None))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="npm ci --prefix tools/hosts"):
        require_host(missing)


def test_off_pin_cli_fails_under_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    other = dataclasses.replace(CODEX, locate=lambda: (tmp_path, "0.0.1"))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=re.escape("version 0.0.1, pinned 0.169.0")):
        require_host(other)


def test_missing_cli_skips_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = dataclasses.replace(CODEX, locate=lambda: (None, None))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        require_host(missing)


def test_orchestrate_command_made_absolute() -> None:
    config = {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "orchestrate hook codex"}]}]}
    }
    out = substitute_command(config, "/venv/bin/orchestrate")
    assert out["hooks"]["Stop"][0]["hooks"][0]["command"] == "/venv/bin/orchestrate hook codex"
    assert substitute_command({"command": "${ORCHESTRATE} hook gemini"}, "/o") == {
        "command": "/o hook gemini"
    }
