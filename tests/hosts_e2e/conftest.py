"""Fixtures for the real-host end-to-end tests: a git project, a private HOME, a CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .harness import (
    HOSTS,
    VENV_BIN,
    Host,
    Session,
    load_config,
    make_project,
    require_host,
    substitute_command,
)

HERE = Path(__file__).parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "hosts_e2e: runs a real agent host CLI offline against a scripted model"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.hosts_e2e)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A real git repository with one commit (README.md, .gitignore)."""
    return make_project(tmp_path)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A private HOME: no real account, settings or credentials are read."""
    path = tmp_path / "home"
    path.mkdir()
    return path


SessionFactory = Callable[..., Session]


@pytest.fixture
def make_session(tmp_path: Path, project: Path, home: Path) -> SessionFactory:
    """Build a Session for a host: its CLI located (missing under CI=true = failure) and
    our shipped hook configuration from hooks/ ready to install, commands made absolute."""

    def factory(host_name: str, hooks_config: dict[str, Any] | None = None) -> Session:
        host: Host = HOSTS[host_name]
        binary = require_host(host)
        config = hooks_config if hooks_config is not None else load_config(host)
        if config is None:
            pytest.fail(f"{host.config} is missing: the shipped hook configuration is required")
        orchestrate = str(VENV_BIN / "orchestrate")
        logs = tmp_path / f"requests-{host.name}"
        return Session(host, binary, project, home, logs, substitute_command(config, orchestrate))

    return factory
